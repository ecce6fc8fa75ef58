// The embedded engine's fast caster against mongoose (new Model + validateSync + toObject), on
// many random documents: whenever it gives a document, mongoose accepts the same input and
// gives an equal one; the engine (fast path, then mongoose) accepts and rejects exactly what
// mongoose does, with the same field names.
import mongoose, { Schema } from 'mongoose';
import { byMongoose, comparable, compareWithMongoose, documentFor, rng, type Verdict } from '../src/store/memory/fast-cast-check';
import { compileFastCaster } from '../src/store/memory/fast-cast';
import { createMemoryStore } from '../src/store';
import { DocumentValidationError } from '@vrp/platform/store';
import { prepareSchema } from '../src/store/shared';

/** `pnpm fuzz` casts three times as many random documents (FAST_CAST_RUNS_SCALE=3). */
const RUNS_SCALE = Number(process.env.FAST_CAST_RUNS_SCALE ?? 1);

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

describe('fast caster of the embedded engine', () => {
  const base = new mongoose.Mongoose();

  for (const [name, make] of Object.entries(schemas())) {
    it(`gives what mongoose gives, or defers to it: ${name}`, () => {
      const { taken, accepted } = compareWithMongoose(`fast_${name}`, make(), Math.ceil(800 * RUNS_SCALE), name.length * 7919);
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
      for (let i = 0; i < Math.ceil(300 * RUNS_SCALE); i++) {
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
