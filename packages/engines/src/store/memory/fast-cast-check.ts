// Random documents for a schema, and the comparison of the embedded engine's fast caster
// (fast-cast.ts) with mongoose on them. For tests (the platform's own, and the stack's over every
// service schema); not part of the store index.
import { isDeepStrictEqual } from 'node:util';
import mongoose, { Schema } from 'mongoose';
import { compileFastCaster } from './fast-cast';
import { prepareSchema, validationFields } from '../shared';

/** Deterministic random numbers (mulberry32), so a failure can be replayed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SCALARS: unknown[] = [
  '2025-01-02',
  '10:00',
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
      return t.enumValues && t.enumValues.length > 0 && r() < 0.8
        ? pick(r, t.enumValues)
        : pick(r, ['a', 'ab', 'abc', 'x1', '', 'Z', 'pending', 'open', '2025-01-02', '15:00', 'a@b.c']);
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
export function documentFor(r: () => number, schema: Schema, depth = 0, noise = pick(r, [0.01, 0.05, 0.3])): Record<string, unknown> {
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
export function comparable(value: unknown): unknown {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'Invalid Date' : value;
  if (Array.isArray(value)) return value.map(comparable);
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, comparable(v)]));
  return value;
}

export type Verdict = { ok: true; doc: unknown } | { ok: false; fields: Record<string, string> };

export function byMongoose(model: mongoose.Model<Record<string, unknown>>, input: Record<string, unknown>): Verdict {
  const doc = new model(input);
  const err = doc.validateSync();
  if (err) return { ok: false, fields: validationFields(err) ?? { '(document)': err.message } };
  return { ok: true, doc: comparable(doc.toObject(TO_OBJECT)) };
}

/**
 * Casts `runs` random documents for `schema` with the fast caster and with mongoose: throws when
 * the fast caster gives a document mongoose rejects or casts differently, or changes its input.
 * `taken`: documents the fast caster gave; `accepted`: documents mongoose accepted.
 */
export function compareWithMongoose(name: string, schema: Schema, runs: number, seed: number): { taken: number; accepted: number } {
  const prepared = prepareSchema(schema);
  const fast = compileFastCaster(prepared);
  if (!fast) throw new Error(`${name}: no fast caster for this schema`);
  const model = new mongoose.Mongoose().model<Record<string, unknown>>(name, prepared);
  const r = rng(seed);
  let taken = 0;
  let accepted = 0;
  for (let i = 0; i < runs; i++) {
    const input = documentFor(r, prepared);
    const snapshot = JSON.stringify(input);
    const expected = byMongoose(model, input);
    const got = fast(input);
    if (JSON.stringify(input) !== snapshot) throw new Error(`${name}: the fast caster changed its input ${snapshot}`);
    if (expected.ok) accepted++;
    if (got === undefined) continue;
    taken++;
    if (!expected.ok) throw new Error(`${name}: the fast caster accepted what mongoose rejects (${JSON.stringify(expected.fields)}): ${snapshot}`);
    if (!isDeepStrictEqual(comparable(got), expected.doc)) {
      throw new Error(`${name}: the fast caster gave ${JSON.stringify(got)}, mongoose ${JSON.stringify(expected.doc)}, for ${snapshot}`);
    }
  }
  return { taken, accepted };
}
