// The embedded engine's fast caster against mongoose (new Model + validateSync + toObject), on
// many random documents: whenever it gives a document, mongoose accepts the same input and
// gives an equal one; the engine (fast path, then mongoose) accepts and rejects exactly what
// mongoose does, with the same field names.
import mongoose, { Schema } from 'mongoose';
import { compileFastCaster } from '../src/store/fast-cast';
import { createMemoryStore } from '../src/store/memory';
import { DocumentValidationError } from '../src/store/port';
import { prepareSchema, validationFields } from '../src/store/shared';

/** Deterministic random numbers (mulberry32), so a failure can be replayed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STATUSES = ['pending', 'delivering', 'succeeded', 'failed'];

function schemas(): Record<string, () => Schema> {
  return {
    delivery: () =>
      new Schema(
        {
          _id: { type: String, required: true },
          workspaceId: { type: String, required: true },
          status: { type: String, enum: STATUSES, required: true },
          head: { type: Boolean, default: false },
          attempts: { type: Number, default: 0 },
          nextAttemptAt: { type: Date, default: null },
          responseStatus: { type: Number, default: null },
          lastError: { type: String, default: null },
          createdAt: { type: Date, required: true },
        },
        { versionKey: false },
      ),
    item: () =>
      new Schema({
        _id: { type: String, required: true },
        name: { type: String, required: true },
        email: { type: String, unique: true, sparse: true },
        count: { type: Number, default: 0, min: 0 },
        limit: { type: Number, min: 1, max: 10 },
        status: { type: String, enum: ['open', 'closed'], default: 'open' },
        code: { type: String, maxlength: 4, minlength: 2, match: /^[a-z0-9]*$/ },
        tags: [String],
        flags: { type: [Boolean], default: undefined },
        when: { type: Date, min: new Date('2020-01-01T00:00:00Z') },
        address: { city: String, zip: { type: String, default: '00000' }, geo: { lat: Number, lng: Number } },
        lines: [{ _id: false, sku: { type: String, required: true }, qty: { type: Number, default: 1, min: 1 }, notes: [String] }],
        stamps: { type: [Date], required: true },
        kind: { type: String, alias: 'category' },
      }),
    subdocuments: () => {
      const guest = new Schema({ firstName: { type: String, required: true }, email: { type: String, default: '' } }, { _id: false });
      const line = new Schema({ type: { type: String, required: true }, amount: { type: Number, required: true } }, { _id: false });
      const breakdown = new Schema({ base: { type: Number, default: 0 }, fees: { type: [line], default: [] }, extra: { a: String } }, { _id: false });
      const money = new Schema({ total: { type: Number, default: 0 }, breakdown: { type: breakdown, default: () => ({}) } }, { _id: false });
      return new Schema(
        {
          _id: { type: String, required: true },
          guest: { type: guest, required: true },
          money: { type: money, default: () => ({}) },
          contacts: { type: new Schema({ email: { type: String, default: '' } }, { _id: false }), default: null },
          loose: { type: new Schema({ a: String, inner: { b: String } }, { _id: false }) },
          custom: { type: Schema.Types.Mixed, default: () => ({}) },
          headers: { type: Schema.Types.Mixed, default: {} },
        },
        { versionKey: false, minimize: false },
      );
    },
    mixedMinimized: () =>
      new Schema({
        _id: String,
        headers: { type: Schema.Types.Mixed, default: {} },
        any: Schema.Types.Mixed,
        sub: { type: new Schema({ m: Schema.Types.Mixed, n: { o: String } }, { _id: false }) },
        subs: [new Schema({ m: Schema.Types.Mixed, n: { o: String } }, { _id: false, minimize: false })],
      }),
    unminimized: () =>
      new Schema(
        {
          _id: String,
          open: { type: Boolean, required: true },
          money: { amount: { type: Number, default: 0 }, currency: String },
          meta: { source: String, at: Date },
          prices: { type: [{ _id: false, night: String, amount: Number }], default: () => [{ night: 'x', amount: 1 }] },
        },
        { minimize: false },
      ),
  };
}

const SCALARS: unknown[] = [
  undefined,
  null,
  '',
  'a',
  'abc',
  'ABCD',
  'pending',
  'open',
  'closed',
  'failed',
  '5',
  '0',
  '-1',
  'true',
  '2024-01-02T03:04:05Z',
  'has.dot',
  0,
  -0,
  1,
  3,
  11,
  -5,
  2.5,
  NaN,
  Infinity,
  true,
  false,
  new Date('2024-05-06T07:08:09Z'),
  new Date('2019-01-01T00:00:00Z'),
  new Date(Number.NaN),
  [],
  ['a'],
  ['a', 'b'],
  [1, 2],
  [true],
  [null],
  [new Date('2025-01-01T00:00:00Z')],
  {},
  { city: 'Rome' },
  { sku: 's1' },
  { sku: 's1', qty: 2, extra: 1 },
  { id: 'x' },
];

function pick<T>(r: () => number, from: readonly T[]): T {
  return from[Math.floor(r() * from.length)] as T;
}

/** A value for a schema path: mostly of the right shape, often not. */
function valueFor(r: () => number, type: mongoose.SchemaType | undefined, depth: number, noise: number): unknown {
  if (!type || r() < noise) return pick(r, SCALARS);
  const t = type as unknown as { instance: string; schema?: Schema; caster?: { instance: string }; enumValues?: string[] };
  switch (t.instance) {
    case 'String':
      return t.enumValues && t.enumValues.length > 0 && r() < 0.8 ? pick(r, t.enumValues) : pick(r, ['a', 'ab', 'abc', 'x1', '', 'Z', 'pending', 'open']);
    case 'Number':
      return pick(r, [0, 1, 2, 5, 10, 11, -1, 3.5]);
    case 'Boolean':
      return r() < 0.5;
    case 'Date':
      return new Date(Date.UTC(2018 + Math.floor(r() * 8), 0, 1));
    case 'Mixed':
      return pick(r, [{}, { a: 1 }, { a: {} }, { a: { b: {} }, c: [{}] }, [], ['x', {}], 'text', 3, null, { d: new Date(0) }, { 'a.b': 1 }, { u: undefined }]);
    case 'Embedded':
      return depth < 2 && t.schema ? documentFor(r, t.schema, depth + 1, noise) : pick(r, SCALARS);
    case 'Array': {
      const n = Math.floor(r() * 3);
      if (t.schema && depth < 2) return Array.from({ length: n }, () => documentFor(r, t.schema as Schema, depth + 1, noise));
      const item = t.caster?.instance;
      return Array.from({ length: n }, () =>
        item === 'Date' ? new Date(Date.UTC(2024, 0, 1 + n)) : item === 'Number' ? n : item === 'Boolean' ? true : `v${n}`,
      );
    }
    default:
      return pick(r, SCALARS);
  }
}

/**
 * A random document for a schema: its paths (nested ones as objects or dotted keys), unknown
 * fields, gaps; `noise` is the share of values picked from anything (wrong types included).
 */
function documentFor(r: () => number, schema: Schema, depth = 0, noise = pick(r, [0.01, 0.05, 0.3])): Record<string, unknown> {
  const doc: Record<string, unknown> = {};
  for (const path of Object.keys(schema.paths)) {
    if (r() < 0.15) continue;
    const value = valueFor(r, schema.path(path), depth, noise);
    const parts = path.split('.');
    if (parts.length > 1 && r() < noise) {
      doc[path] = value; // a dotted key: mongoose sets the nested path
      continue;
    }
    let level = doc;
    for (const part of parts.slice(0, -1)) {
      if (r() < noise / 2) level[part] = pick(r, [null, 'str', [], {}]);
      if (!isObject(level[part])) level[part] = {};
      level = level[part] as Record<string, unknown>;
    }
    level[parts[parts.length - 1] as string] = value;
  }
  if (r() < noise) doc[pick(r, ['unknown', 'other', 'id', 'category', '$bad'])] = pick(r, SCALARS);
  return doc;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date);
}

const TO_OBJECT = { depopulate: true, versionKey: false, flattenMaps: true } as const;

/** Invalid dates compare unequal to themselves: name them for the comparison. */
function comparable(value: unknown): unknown {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'Invalid Date' : value;
  if (Array.isArray(value)) return value.map(comparable);
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, comparable(v)]));
  return value;
}

type Verdict = { ok: true; doc: unknown } | { ok: false; fields: Record<string, string> };

function byMongoose(model: mongoose.Model<Record<string, unknown>>, input: Record<string, unknown>): Verdict {
  const doc = new model(input);
  const err = doc.validateSync();
  if (err) return { ok: false, fields: validationFields(err) ?? { '(document)': err.message } };
  return { ok: true, doc: comparable(doc.toObject(TO_OBJECT)) };
}

describe('fast caster of the embedded engine', () => {
  const base = new mongoose.Mongoose();

  for (const [name, make] of Object.entries(schemas())) {
    it(`gives what mongoose gives, or defers to it: ${name}`, () => {
      const schema = prepareSchema(make());
      const fast = compileFastCaster(schema);
      expect(fast).not.toBeNull();
      const model = base.model<Record<string, unknown>>(`fast_${name}`, schema);
      const r = rng(name.length * 7919);
      let taken = 0;
      let accepted = 0;
      const runs = 2500;
      for (let i = 0; i < runs; i++) {
        const input = documentFor(r, schema);
        const snapshot = JSON.stringify(input);
        const expected = byMongoose(model, input);
        const got = fast?.(input);
        expect(JSON.stringify(input)).toBe(snapshot); // the input is not changed
        if (expected.ok) accepted++;
        if (got === undefined) continue;
        taken++;
        if (!expected.ok) throw new Error(`fast path accepted what mongoose rejects (${JSON.stringify(expected.fields)}): ${snapshot}`);
        expect(comparable(got)).toEqual(expected.doc);
      }
      // The fast path must carry the bulk of what mongoose accepts, or it buys nothing.
      expect(taken).toBeGreaterThan(accepted * 0.3);
    });
  }

  it('the engine rejects exactly what mongoose rejects, with the same fields, and stores what it gives', async () => {
    const store = createMemoryStore();
    for (const [name, make] of Object.entries(schemas())) {
      const schema = prepareSchema(make());
      const model = base.model<Record<string, unknown>>(`engine_${name}`, schema);
      const coll = store.collection<{ _id: string }>({ name: `engine_${name}`, schema: make() });
      const r = rng(name.length * 104729);
      for (let i = 0; i < 1000; i++) {
        const input: Record<string, unknown> = { ...documentFor(r, schema), _id: `d${i}` };
        if (typeof input.email === 'string') input.email = `${input.email}${i}`; // unique index
        const expected = byMongoose(model, input);
        let got: Verdict;
        try {
          got = { ok: true, doc: comparable(await coll.insertOne(input as { _id: string })) };
        } catch (err) {
          if (!(err instanceof DocumentValidationError)) throw err;
          got = { ok: false, fields: err.fields };
        }
        expect(got).toEqual(expected);
      }
    }
    await store.close();
  });

  it('has no caster for schemas with what it does not know', () => {
    const unsupported: Schema[] = [
      new Schema({ _id: String, name: { type: String, trim: true } }),
      new Schema({ _id: String, name: { type: String, set: (v: string) => v } }),
      new Schema({ _id: String, n: { type: Number, validate: (v: number) => v > 1 } }),
      new Schema({ _id: String, m: { type: Map, of: String } }),
      new Schema({ _id: String, sub: new Schema({ a: String }) }), // a subdocument with an ObjectId _id
      new Schema({ _id: String, subs: [new Schema({ a: String })] }), // subdocuments with ObjectId _ids
      new Schema({ _id: String, name: String }, { strict: 'throw' }),
      new Schema({ _id: String, name: { type: String, required: () => true } }),
    ];
    for (const schema of unsupported) expect(compileFastCaster(prepareSchema(schema))).toBeNull();
  });
});
