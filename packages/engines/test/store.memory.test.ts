// Behaviour specific to the embedded engine (the shared contract is in store.contract.test.ts).
import { find as mingoFind, update as mingoUpdate } from 'mingo';
import { Schema } from 'mongoose';
import { holdOpen } from '../src/store/contract';
import { deepClone } from '../src/store/shared';
import { currentContext, runWithContext } from '@vrp/platform/context';
import { createMemoryStore } from '../src/store';
import {
  DuplicateKeyError,
  StoreUnavailableError,
  WriteConflictError,
  type Collection,
  type Doc,
  type DocumentStore,
  type Filter,
  type FindOptions,
  type Tx,
} from '@vrp/platform/store';

type Note = Doc & { text?: string; createdAt?: Date; updatedAt?: Date };

const noteSchema = (): Schema => new Schema({ _id: String, text: String }, { timestamps: true });

describe('memory document store', () => {
  it('runs a write that forgot its tx inside a transaction instead of deadlocking', async () => {
    const store = createMemoryStore();
    const notes = store.collection<Note>({ name: 'notes', schema: noteSchema() });
    await expect(
      store.transaction(async (tx) => {
        await notes.insertOne({ _id: 'in-tx', text: 'a' }, { tx });
        await notes.insertOne({ _id: 'no-tx', text: 'b' }); // outside the transaction, as on MongoDB
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect((await notes.find({})).map((n) => n._id)).toEqual(['no-tx']);
  });

  it('rejects nested transactions instead of deadlocking', async () => {
    const store = createMemoryStore();
    await expect(store.transaction(() => store.transaction(async () => 1))).rejects.toThrow(/nested/);
    await expect(store.transaction(async () => 2)).resolves.toBe(2);
  });

  it('shares one async context with the request context: each keeps the other inside it, nested transactions are still found', async () => {
    const store = createMemoryStore();
    const other = createMemoryStore();
    const seen: (string | undefined)[] = [];
    await runWithContext({ requestId: 'req_outer_000' }, () =>
      store.transaction(async () => {
        seen.push(currentContext()?.requestId);
        // A context set inside the transaction keeps it open: a nested one is still refused.
        await runWithContext({ requestId: 'req_inner_000' }, async () => {
          seen.push(currentContext()?.requestId);
          await expect(store.transaction(async () => 1)).rejects.toThrow(/nested/);
          // Another store's transaction is not nested in this one's, and keeps the context.
          await other.transaction(async () => seen.push(currentContext()?.requestId));
        });
        seen.push(currentContext()?.requestId);
      }),
    );
    expect(seen).toEqual(['req_outer_000', 'req_inner_000', 'req_inner_000', 'req_outer_000']);
    expect(currentContext()).toBeUndefined();
  });

  it('a lone write waiting for an open transaction fails with StoreUnavailableError after the time limit, writing nothing', async () => {
    const store = createMemoryStore({ timeoutMs: 100 });
    const notes = store.collection<Note>({ name: 'notes', schema: noteSchema() });
    await notes.insertOne({ _id: 'held', text: 'committed' });
    const holder = await holdOpen(store, (tx) => notes.updateOne({ _id: 'held' }, { $set: { text: 'tx' } }, { tx }));
    // updateMany meets `held` among its targets: it writes nothing, waits, and gives up at the limit.
    await notes.insertOne({ _id: 'other', text: 'committed' });
    const started = Date.now();
    await expect(notes.updateMany({}, { $set: { text: 'lone' } })).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    await holder.commit();
    expect((await notes.find({}, { sort: { _id: 1 } })).map((n) => n.text)).toEqual(['tx', 'committed']);
  });

  it('frozen: every call hangs until the time limit and fails with StoreUnavailableError; ready() is false; thaw resumes', async () => {
    const store = createMemoryStore({ timeoutMs: 80 });
    const notes = store.collection<Note>({ name: 'notes', schema: noteSchema() });
    await notes.insertOne({ _id: 'n', text: 'a' });
    store.freeze();
    await expect(store.ready()).resolves.toBe(false);
    await expect(notes.findOne({ _id: 'n' })).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(notes.countDocuments({})).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(notes.insertOne({ _id: 'm', text: 'b' })).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.transaction(async () => 'never')).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.init()).rejects.toBeInstanceOf(StoreUnavailableError);
    // A call waiting when the store thaws goes on.
    const waiting = notes.updateOne({ _id: 'n' }, { $set: { text: 'thawed' } });
    store.thaw();
    await expect(waiting).resolves.toMatchObject({ modifiedCount: 1 });
    await expect(store.ready()).resolves.toBe(true);
    expect((await notes.find({})).map((n) => n._id)).toEqual(['n']);
    await store.close();
    await expect(store.ready()).resolves.toBe(false);
    await expect(notes.findOne({ _id: 'n' })).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('a transaction whose work outlives a freeze fails at commit and leaves nothing behind', async () => {
    const store = createMemoryStore({ timeoutMs: 60 });
    const notes = store.collection<Note>({ name: 'notes', schema: noteSchema() });
    await expect(
      store.transaction(async (tx) => {
        await notes.insertOne({ _id: 'x', text: 'in tx' }, { tx });
        store.freeze();
      }),
    ).rejects.toBeInstanceOf(StoreUnavailableError);
    store.thaw();
    expect(await notes.find({})).toEqual([]);
  });

  it('gives up retrying a conflicting transaction at the time limit with the WriteConflictError', async () => {
    const store = createMemoryStore({ timeoutMs: 80 });
    const notes = store.collection<Note>({ name: 'notes', schema: noteSchema() });
    await notes.insertOne({ _id: 'n', text: 'a' });
    const holder = await holdOpen(store, (tx) => notes.updateOne({ _id: 'n' }, { $set: { text: 'holder' } }, { tx }));
    let attempts = 0;
    await expect(
      store.transaction(async (tx) => {
        attempts += 1;
        await notes.updateOne({ _id: 'n' }, { $set: { text: 'loser' } }, { tx });
      }),
    ).rejects.toBeInstanceOf(WriteConflictError);
    expect(attempts).toBeGreaterThan(1);
    await holder.commit();
    expect((await notes.findOne({ _id: 'n' }))?.text).toBe('holder');
  });

  it('maintains schema timestamps like mongoose', async () => {
    const store = createMemoryStore();
    const notes = store.collection<Note>({ name: 'notes', schema: noteSchema() });
    const created = await notes.insertOne({ _id: 'n', text: 'a' });
    expect(created.createdAt).toBeInstanceOf(Date);
    expect(created.updatedAt).toEqual(created.createdAt);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const updated = await notes.findOneAndUpdate({ _id: 'n' }, { $set: { text: 'b' } });
    expect(updated?.createdAt).toEqual(created.createdAt);
    expect(updated?.updatedAt?.getTime()).toBeGreaterThan(created.createdAt?.getTime() ?? 0);
  });

  it('an update that keeps a unique key keeps it owned (taken by no other, held through a rollback); a partial index is checked again whenever the document changes', async () => {
    type Member = Doc & { email?: string; active?: boolean; n?: number };
    const store = createMemoryStore();
    const schema = new Schema({ _id: String, email: String, active: Boolean, n: Number });
    schema.index({ email: 1 }, { unique: true, sparse: true });
    const people = store.collection<Member>({ name: 'people', schema });
    const partialSchema = new Schema({ _id: String, email: String, active: Boolean });
    partialSchema.index({ email: 1 }, { unique: true, partialFilterExpression: { active: true } });
    const members = store.collection<Member>({ name: 'members', schema: partialSchema });

    await people.insertOne({ _id: 'p1', email: 'a@example.com', n: 0 });
    await people.updateOne({ _id: 'p1' }, { $set: { n: 1 } }); // the key stays: no check, no move
    await expect(people.insertOne({ _id: 'p2', email: 'a@example.com' })).rejects.toThrow(DuplicateKeyError);
    // In a transaction: a write that keeps the key, then one that frees it, then a rollback.
    await expect(
      store.transaction(async (tx) => {
        await people.updateOne({ _id: 'p1' }, { $inc: { n: 1 } }, { tx });
        await people.updateOne({ _id: 'p1' }, { $set: { email: 'b@example.com' } }, { tx });
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    await expect(people.insertOne({ _id: 'p3', email: 'a@example.com' })).rejects.toThrow(DuplicateKeyError);
    await people.insertOne({ _id: 'p4', email: 'b@example.com' });
    expect(await people.find({}, { sort: { _id: 1 } })).toEqual([
      { _id: 'p1', email: 'a@example.com', n: 1 },
      { _id: 'p4', email: 'b@example.com' },
    ]);

    // The partial filter reads another field than the key: its change moves the document into or out of the index.
    await members.insertMany([
      { _id: 'm1', email: 'x@example.com', active: true },
      { _id: 'm2', email: 'x@example.com', active: false },
    ]);
    await expect(members.updateOne({ _id: 'm2' }, { $set: { active: true } })).rejects.toThrow(DuplicateKeyError);
    await members.updateOne({ _id: 'm1' }, { $set: { active: false } });
    await members.updateOne({ _id: 'm2' }, { $set: { active: true } });
    await expect(members.updateOne({ _id: 'm1' }, { $set: { active: true } })).rejects.toThrow(DuplicateKeyError);
  });

  it('gives a schema without a string _id one, so caller ids are kept', async () => {
    const store = createMemoryStore();
    const plain = store.collection<Note>({ name: 'plain', schema: new Schema({ text: String }) });
    await plain.insertOne({ _id: 'lst_1', text: 'x' });
    expect(await plain.findOne({ _id: 'lst_1' })).toEqual({ _id: 'lst_1', text: 'x' });
  });

  it('a $set and/or $inc of top-level fields (applied without mingo) writes and counts exactly what mingo’s updater does', async () => {
    const store = createMemoryStore();
    const schema = new Schema({ _id: String, s: String, n: Number, m: Number, b: Boolean, d: Date, o: Schema.Types.Mixed, a: [Number] }, { versionKey: false });
    const c = store.collection<Doc>({ name: 'plain_set', schema });
    const rand = seeded(17);
    const values = {
      s: () => pick(['x', 'y', null], Math.floor(rand() * 3)),
      n: () => pick([1, 2, null], Math.floor(rand() * 3)),
      b: () => rand() < 0.5,
      d: () => pick([new Date(0), new Date(1), null], Math.floor(rand() * 3)),
      o: () => pick([{ k: [1, { z: 1 }] }, { k: [1, { z: 2 }] }, null], Math.floor(rand() * 3)),
      a: () => pick([[1, 2], [2, 1], []], Math.floor(rand() * 3)),
    };
    const fields = Object.keys(values) as (keyof typeof values)[];
    let expected: Doc = { _id: 'p', a: [] };
    await c.insertOne({ _id: 'p' });
    for (let i = 0; i < 300; i++) {
      const set: Record<string, unknown> = {};
      const incs: Record<string, unknown> = {};
      // $inc: a number, a missing field (m, until first set), null, a string; by a positive, zero or negative amount.
      // Either operator alone, or both at once on different fields (a record saved with its version bumped).
      const kind = pick(['$set', '$inc', 'both'] as const, Math.floor(rand() * 3));
      // (s only once it holds a string or null, which $inc leaves: a number in a String path would be cast.)
      if (kind !== '$set')
        for (const f of ['n', 'm', 's']) if (rand() < 0.5 && (f !== 's' || expected.s !== undefined)) incs[f] = pick([1, 0, -2.5], Math.floor(rand() * 3));
      if (kind !== '$inc') for (const f of fields) if (rand() < 0.4 && !(f in incs)) set[f] = values[f]();
      const modifier: Record<string, Record<string, unknown>> = {};
      if (Object.keys(set).length > 0) modifier.$set = set;
      if (Object.keys(incs).length > 0) modifier.$inc = incs;
      if (Object.keys(modifier).length === 0) continue;
      const byMingo = deepClone(expected) as Doc;
      const changed = mingoUpdate(byMingo, deepClone(modifier) as Record<string, unknown>, undefined, undefined, { cloneMode: 'deep' });
      const result = await c.updateOne({ _id: 'p' }, modifier);
      expect(result.modifiedCount).toBe(changed.length > 0 ? 1 : 0);
      expected = byMingo;
      expect(await c.findOne({ _id: 'p' })).toEqual(expected);
      // The stored document shares nothing with the update's values.
      if (set.o && typeof set.o === 'object') (set.o as { k: unknown[] }).k.push('mutated');
      expect(await c.findOne({ _id: 'p' })).toEqual(expected);
    }
  });

  it('a plain update shares unchanged fields with the version before it, which later updates and a rollback never change', async () => {
    const store = createMemoryStore();
    const schema = new Schema({ _id: String, tags: [String], n: Number, at: Date }, { versionKey: false });
    const c = store.collection<Doc>({ name: 'shared_fields', schema });
    await c.insertOne({ _id: 'p', tags: ['x'], n: 0, at: new Date(0) });
    await c.updateOne({ _id: 'p' }, { $set: { n: 1 } });
    const committed = { _id: 'p', tags: ['x'], n: 1, at: new Date(0) };
    // mingo changes nested values in place: an update through it, first or after a plain one,
    // must not reach the array of the committed version.
    const orders = [
      [{ $push: { tags: 'y' } }, { $set: { 'tags.0': 'z' } }, { $set: { n: 2 } }],
      [{ $set: { n: 2 } }, { $push: { tags: 'y' } }, { $set: { 'tags.0': 'z' } }],
    ];
    for (const updates of orders) {
      await expect(
        store.transaction(async (tx) => {
          for (const update of updates) await c.updateOne({ _id: 'p' }, update, { tx });
          expect(await c.findOne({ _id: 'p' }, { tx })).toEqual({ _id: 'p', tags: ['z', 'y'], n: 2, at: new Date(0) });
          // Outside the transaction: the committed version as it was.
          expect(await c.findOne({ _id: 'p' })).toEqual(committed);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(await c.findOne({ _id: 'p' })).toEqual(committed);
    }
    // A reader's copy shares nothing with the stored version either.
    const read = (await c.findOne({ _id: 'p' }))!;
    (read.tags as string[]).push('mutated');
    (read.at as Date).setTime(5);
    expect(await c.findOne({ _id: 'p' })).toEqual(committed);
  });

  it('projects a plain inclusion (applied without mingo) exactly as mingo does, and anything else through mingo', async () => {
    const store = createMemoryStore();
    const schema = new Schema({ _id: String, s: String, n: Number, o: Schema.Types.Mixed, a: [Number] }, { versionKey: false });
    const c = store.collection<Doc>({ name: 'projected', schema });
    const rand = seeded(29);
    const docs: Doc[] = [];
    for (let i = 0; i < 40; i++) {
      const doc: Record<string, unknown> = { _id: `d${i}` };
      if (rand() < 0.7) doc.s = pick(['x', 'y', null], Math.floor(rand() * 3));
      if (rand() < 0.7) doc.n = pick([1, 2.5, null], Math.floor(rand() * 3));
      if (rand() < 0.5) doc.o = pick<unknown>([{ k: [1, { z: 1 }] }, { toString: 'own' }, null], Math.floor(rand() * 3));
      if (rand() < 0.5) doc.a = pick([[1, 2], []], Math.floor(rand() * 2));
      docs.push(doc as Doc);
    }
    await c.insertMany(docs);
    const stored = await c.find({}, { sort: { _id: 1 } });
    // Plain inclusions (the fast path) and, around them, what mingo keeps: exclusions, paths,
    // other values, names an object inherits.
    const projections: Record<string, unknown>[] = [
      { _id: 1 },
      { s: 1 },
      { s: true, n: 1 },
      { n: 1, _id: 0 },
      { _id: false, o: 1, a: 1 },
      { a: 1, _id: 1 },
      { toString: 1 },
      { constructor: 1, s: 1 },
      { _id: 0 },
      { s: 0 },
      { 'o.k': 1 },
      { s: 2 },
      { n: -1 },
      { s: 'x' },
    ];
    for (const projection of projections) {
      const viaStore = await c.find({}, { sort: { _id: 1 }, projection: projection as FindOptions['projection'] });
      expect({ projection, docs: viaStore }).toEqual({ projection, docs: mingoFind(deepClone(stored) as Doc[], {}, projection).all() });
    }
    // The projected documents share nothing with the stored ones.
    const [first] = await c.find({ _id: 'd0' }, { projection: { o: 1, a: 1 } });
    if (first && Array.isArray((first as Record<string, unknown>).a)) ((first as Record<string, unknown>).a as unknown[]).push(99);
    expect(await c.findOne({ _id: 'd0' })).toEqual(stored[0]);
  });
});

// ---- equality-index narrowing ----
// The engine narrows the documents mingo evaluates with in-memory equality indexes. Every check
// below compares the engine's answer with mingo run over a full scan of the collection, and
// `$where` probes record which documents mingo was actually asked to evaluate.

type Item = Doc & {
  tenant?: string;
  status?: string;
  tags?: string[];
  when?: Date;
  n?: number;
  flag?: boolean;
  address?: { city?: string };
  lines?: Array<{ sku: string }>;
};

function itemSchema(): Schema {
  const schema = new Schema({
    _id: String,
    tenant: String,
    status: String,
    tags: [String],
    when: Date,
    n: Number,
    flag: Boolean,
    address: { city: String },
    lines: [{ _id: false, sku: String }],
  });
  schema.index({ tenant: 1, status: 1 });
  schema.index({ tags: 1 });
  schema.index({ when: 1 });
  schema.index({ n: 1, flag: 1 });
  schema.index({ 'address.city': 1 });
  schema.index({ 'lines.sku': 1 });
  return schema;
}

const DAYS = [1, 2, 3, 4, 5].map((d) => new Date(Date.UTC(2024, 0, d)));
const pick = <V>(values: readonly V[], i: number): V => values[i % values.length] as V;

function makeItem(i: number): Item {
  const item: Item = {
    _id: `i${String(i).padStart(3, '0')}`,
    tenant: `t${i % 7}`,
    status: pick(['open', 'closed', 'held'], i),
    tags: [pick(['red', 'green', 'blue', 'black'], i), pick(['x', 'y', 'z', 'red'], i * 3)],
    n: i % 11,
    flag: i % 4 === 0,
    address: { city: pick(['Paris', 'Rome', 'Oslo', 'Lima', 'Kyiv'], i) },
    lines: [{ sku: `s${i % 6}` }, { sku: `s${(i + 2) % 6}` }],
  };
  if (i % 5 !== 0) item.when = pick(DAYS, i * 7);
  return item;
}

/** Records the documents mingo evaluates: put first in a filter, it sees every candidate. */
function probe(seen: Set<string>): (this: Item) => boolean {
  return function (this: Item) {
    seen.add(this._id);
    return true;
  };
}

const sortedIds = (ids: Iterable<string>): string[] => [...ids].sort();

/** The engine's find and count agree with mingo over a full scan (same order, ties included). */
async function expectSameAsScan(c: Collection<Item>, filter: Filter, opts: FindOptions = {}): Promise<void> {
  const all = await c.find({}); // no equality term: a scan, in natural order
  let cursor = mingoFind(all, filter);
  if (opts.sort) cursor = cursor.sort(opts.sort);
  if (opts.skip) cursor = cursor.skip(opts.skip);
  if (opts.limit) cursor = cursor.limit(opts.limit);
  const expected = cursor.all().map((d) => d._id);
  const label = JSON.stringify({ filter, opts });
  expect({ label, ids: (await c.find(filter, opts)).map((d) => d._id) }).toEqual({ label, ids: expected });
  expect({ label, count: await c.countDocuments(filter) }).toEqual({ label, count: mingoFind(all, filter).all().length });
}

const QUERIES: Array<[Filter, FindOptions?]> = [
  [{ tenant: 't1' }],
  [{ tenant: 't1', status: 'open' }],
  [{ tenant: { $in: ['t2', 't3'] }, status: { $eq: 'closed' } }],
  [{ tenant: 't4', n: { $gte: 5 } }, { sort: { n: -1 } }],
  [{ tags: 'red' }],
  [{ tags: { $in: ['x', 'blue'] } }, { sort: { when: 1 }, skip: 2, limit: 5 }],
  [{ tags: { $eq: 'z' }, status: { $ne: 'held' } }],
  [{ when: DAYS[2] }],
  [{ when: { $in: [DAYS[0], DAYS[4]] } }, { sort: { when: -1, n: 1 } }],
  [{ n: 3, flag: false }],
  [{ n: -0 }],
  [{ 'address.city': 'Rome', $or: [{ flag: true }, { n: { $lt: 4 } }] }],
  [{ 'lines.sku': 's1' }, { sort: { tenant: 1 }, limit: 4 }],
  [{ $and: [{ tenant: 't5' }, { tags: 'green' }] }],
  // $or / $and clauses compiled part by part (a missing `when` is null to a query).
  [{ $or: [{ when: null }, { when: { $lt: DAYS[2] } }] }],
  [{ $or: [{ tenant: 't1', status: 'open' }, { $and: [{ n: { $gt: 8 } }, { flag: false }] }] }, { sort: { _id: 1 } }],
  [{ $or: [{ tags: 'red' }, { 'address.city': { $in: ['Oslo'] } }, { $expr: { $eq: ['$n', 7] } }] }],
  [{ $and: [{ $or: [{ when: { $exists: false } }, { n: 0 }] }, { status: { $ne: 'held' } }] }],
  [{ $or: [{}], tenant: 't2' }],
  [{ $or: [{ tenant: 'nobody' }, { lines: { $elemMatch: { sku: 's3' } } }] }],
  [{ tenant: 't1', $expr: { $gt: ['$n', 2] } }],
  [{ tenant: 'nobody' }],
  [{ _id: { $in: ['i003', 'i010', 'zz'] }, tenant: { $ne: 't0' } }],
  [{ status: 'open' }, { sort: { when: 1, _id: -1 }, skip: 3, limit: 7 }],
  [{}, { sort: { n: 1 }, skip: 10, limit: 10 }],
];

async function expectAllQueriesMatchScan(c: Collection<Item>): Promise<void> {
  for (const [filter, opts] of QUERIES) await expectSameAsScan(c, filter, opts);
}

/** Deterministic pseudo-random numbers in [0, 1). */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('memory document store: equality-index narrowing', () => {
  let seq = 0;
  const fresh = async (count: number): Promise<{ store: DocumentStore; c: Collection<Item> }> => {
    const store = createMemoryStore();
    const c = store.collection<Item>({ name: `items${seq++}`, schema: itemSchema() });
    await c.insertMany(Array.from({ length: count }, (_, i) => makeItem(i)));
    return { store, c };
  };

  it('evaluates only the candidates of the most selective index, with the same results as a scan', async () => {
    const { c } = await fresh(70);
    const all = await c.find({});
    const idsWhere = (test: (d: Item) => boolean): string[] => sortedIds(all.filter(test).map((d) => d._id));

    const cases: Array<[Filter, string[]]> = [
      [{ tenant: 't1' }, idsWhere((d) => d.tenant === 't1')],
      // The compound index on (tenant, status) is smaller than tenant alone.
      [{ tenant: 't1', status: 'open' }, idsWhere((d) => d.tenant === 't1' && d.status === 'open')],
      [{ status: 'held', tenant: { $in: ['t2', 't3'] } }, idsWhere((d) => ['t2', 't3'].includes(d.tenant ?? '') && d.status === 'held')],
      [{ tags: 'blue' }, idsWhere((d) => d.tags?.includes('blue') === true)], // multikey
      [{ 'lines.sku': { $eq: 's4' } }, idsWhere((d) => d.lines?.some((l) => l.sku === 's4') === true)],
      [{ when: DAYS[1] }, idsWhere((d) => d.when?.getTime() === DAYS[1]?.getTime())],
      [{ n: 7, flag: { $in: [true, false] } }, idsWhere((d) => d.n === 7)],
      [{ _id: 'i012', tenant: 't5' }, ['i012']],
      [{ tenant: 'nobody' }, []],
    ];
    for (const [filter, candidates] of cases) {
      const seen = new Set<string>();
      await c.find({ $where: probe(seen), ...filter });
      expect({ filter, seen: sortedIds(seen) }).toEqual({ filter, seen: candidates });
      await expectSameAsScan(c, filter);
    }

    // No usable equality: every document is evaluated.
    const seen = new Set<string>();
    await c.countDocuments({ $where: probe(seen), n: { $gt: 3 } });
    expect(seen.size).toBe(70);

    await expectAllQueriesMatchScan(c);
  });

  it('keeps the indexes right through updates that move documents, deletes and upserts', async () => {
    const { c } = await fresh(60);
    await c.updateOne({ _id: 'i001' }, { $set: { tenant: 't6', status: 'held', 'address.city': 'Nice' } });
    expect((await c.find({ tenant: 't1' })).map((d) => d._id)).not.toContain('i001');
    expect((await c.find({ tenant: 't6', status: 'held' })).map((d) => d._id)).toContain('i001');
    expect((await c.find({ 'address.city': 'Nice' })).map((d) => d._id)).toEqual(['i001']);

    await c.updateMany({ tenant: 't2' }, { $set: { tenant: 't3' }, $push: { tags: 'moved' } });
    expect(await c.countDocuments({ tenant: 't2' })).toBe(0);
    expect(await c.countDocuments({ tags: 'moved' })).toBe(await c.countDocuments({ tenant: 't3', tags: 'moved' }));

    await c.updateMany({ tags: 'red' }, { $pull: { tags: 'red' } }); // multikey: a key leaves, the others stay
    expect(await c.countDocuments({ tags: 'red' })).toBe(0);
    await c.updateOne({ _id: 'i004' }, { $addToSet: { tags: 'red' }, $unset: { when: '' } });
    expect((await c.find({ tags: { $in: ['red'] } })).map((d) => d._id)).toEqual(['i004']);

    const moved = await c.findOneAndUpdate({ tenant: 't4', status: 'open' }, { $set: { status: 'closed', n: 0 } }, { sort: { _id: -1 } });
    expect(moved).toMatchObject({ tenant: 't4', status: 'closed', n: 0 });
    expect((await c.find({ tenant: 't4', status: 'closed', n: -0 })).map((d) => d._id)).toContain(moved?._id);

    expect(await c.deleteOne({ tenant: 't5' })).toEqual({ deletedCount: 1 });
    const withS3 = (await c.find({})).filter((d) => d.lines?.some((l) => l.sku === 's3')).length;
    expect(withS3).toBeGreaterThan(0);
    expect(await c.deleteMany({ 'lines.sku': 's3' })).toEqual({ deletedCount: withS3 });
    expect(await c.countDocuments({ 'lines.sku': 's3' })).toBe(0);

    // An upsert inserts the filter's equality fields; a second one finds the document by them.
    const up = await c.updateOne({ tenant: 't9', status: 'new' }, { $set: { n: 42 }, $push: { tags: 'up' } }, { upsert: true });
    expect(up.upsertedId).toEqual(expect.any(String));
    expect(await c.find({ tenant: 't9', status: 'new' })).toEqual([expect.objectContaining({ _id: up.upsertedId, n: 42, tags: ['up'] })]);
    expect(await c.updateOne({ tenant: 't9', status: 'new' }, { $inc: { n: 1 } }, { upsert: true })).toEqual({
      matchedCount: 1,
      modifiedCount: 1,
      upsertedId: null,
    });
    expect(await c.countDocuments({ n: 43, tags: 'up' })).toBe(1);

    await expectAllQueriesMatchScan(c);
  });

  it('builds an index on its first lookup from every document, uncommitted writes included, and keeps it right', async () => {
    const { store, c } = await fresh(40);
    // Writes that use no equality index (by _id only), before any lookup builds one.
    await c.updateOne({ _id: 'i001' }, { $set: { tenant: 't6', tags: ['late'] } });
    await c.deleteOne({ _id: 'i002' });
    await c.insertOne({ ...makeItem(90), tenant: 't6' });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let written!: () => void;
    const writtenInTx = new Promise<void>((resolve) => (written = resolve));
    const rolledBack = store.transaction(async (tx) => {
      await c.updateOne({ _id: 'i003' }, { $set: { tenant: 't6', tags: ['late'] } }, { tx });
      await c.insertOne({ ...makeItem(91), tenant: 't6', tags: ['late'] }, { tx });
      await c.deleteOne({ _id: 'i006' }, { tx }); // a t6 document
      // Inside, the transaction's own writes count: the first lookup builds the index here.
      expect(sortedIds((await c.find({ tenant: 't6' }, { tx })).map((d) => d._id))).toEqual(['i001', 'i003', 'i013', 'i020', 'i027', 'i034', 'i090', 'i091']);
      written();
      await held;
      throw new Error('rollback');
    });
    await Promise.race([writtenInTx, rolledBack]); // a failed check inside rejects the transaction
    // Outside, the committed versions: the index built inside holds the uncommitted ones too.
    expect(sortedIds((await c.find({ tenant: 't6' })).map((d) => d._id))).toEqual(['i001', 'i006', 'i013', 'i020', 'i027', 'i034', 'i090']);
    await expectSameAsScan(c, { tags: 'late' });
    release();
    await expect(rolledBack).rejects.toThrow('rollback');
    const seen = new Set<string>();
    expect(sortedIds((await c.find({ $where: probe(seen), tenant: 't6' })).map((d) => d._id))).toEqual([
      'i001',
      'i006',
      'i013',
      'i020',
      'i027',
      'i034',
      'i090',
    ]);
    expect(sortedIds(seen)).toEqual(['i001', 'i006', 'i013', 'i020', 'i027', 'i034', 'i090']); // narrowed by the built index
    // Kept up to date once built.
    await c.updateMany({ tenant: 't6' }, { $set: { tenant: 't0' } });
    expect(await c.countDocuments({ tenant: 't6' })).toBe(0);
    await expectAllQueriesMatchScan(c);
  });

  it('restores the indexes when a transaction rolls back', async () => {
    const { store, c } = await fresh(50);
    await c.deleteOne({ _id: 'i007' }); // natural order has a hole, and a later insert fills it
    // Documents put back by a rollback go last in natural order (so ties may reorder): compare by id.
    const byId = (a: Item, b: Item): number => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);
    const snapshot = async (): Promise<unknown[]> => Promise.all(QUERIES.map(async ([f]) => [await c.countDocuments(f), (await c.find(f)).sort(byId)]));
    const before = await snapshot();

    await expect(
      store.transaction(async (tx) => {
        await c.insertMany([makeItem(7), { _id: 'new1', tenant: 't1', status: 'open', tags: ['red'] }], { tx });
        await c.updateMany({ tenant: 't1' }, { $set: { tenant: 't2', status: 'held' }, $push: { tags: 'tx' } }, { tx });
        await c.updateOne({ _id: 'i020' }, { $set: { when: DAYS[4], n: 3, flag: false } }, { tx });
        await c.deleteMany({ tags: 'blue' }, { tx });
        await c.updateOne({ tenant: 't8' }, { $set: { n: 1 } }, { tx, upsert: true });
        await c.findOneAndUpdate({ 'address.city': 'Rome' }, { $set: { 'address.city': 'Oslo' } }, { tx });
        expect(await c.countDocuments({ tenant: 't1' }, { tx })).toBe(0);
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');

    expect(await snapshot()).toEqual(before);
    expect(await c.countDocuments({ tags: 'tx' })).toBe(0);
    expect(await c.countDocuments({ tenant: 't8' })).toBe(0);
    expect(await c.findOne({ _id: 'i007' })).toBeNull();
    await expectAllQueriesMatchScan(c);
  });

  it('shows readers outside an open transaction exactly the committed state (pages, sorts, counts), and the transaction its own', async () => {
    const { store, c } = await fresh(60);
    const view = async (tx?: Tx): Promise<unknown[]> =>
      Promise.all(QUERIES.map(async ([f, o]) => [f, await c.countDocuments(f, { tx }), (await c.find(f, { ...o, tx })).map((d) => d._id)]));
    const committed = await view();
    let inside: unknown[] = [];
    const holder = await holdOpen(store, async (tx) => {
      await c.insertMany(
        [
          { _id: 'new1', tenant: 't1', status: 'open', tags: ['red'], n: 3 },
          { _id: 'new2', tenant: 't4', n: 9 },
        ],
        { tx },
      );
      await c.updateMany({ tenant: 't1' }, { $set: { tenant: 't2', status: 'held' }, $push: { tags: 'tx' } }, { tx });
      await c.updateOne({ _id: 'i020' }, { $set: { when: DAYS[4], n: 3, flag: false } }, { tx });
      await c.deleteMany({ tags: 'blue' }, { tx });
      await c.updateOne({ tenant: 't8' }, { $set: { n: 1 } }, { tx, upsert: true });
      inside = await view(tx);
    });
    expect(await view()).toEqual(committed);
    await holder.commit();
    expect(await view()).toEqual(inside);
    await expectAllQueriesMatchScan(c);
  });

  it('with several transactions open at once, each reader sees its own snapshot, by _id as by any other filter', async () => {
    // Reads skip the open documents of others that match the filter in neither version, and a
    // filter that pins _id looks up only those ids; what each reader sees is unchanged.
    const byId: Array<[Filter, FindOptions?]> = [
      [{ _id: 'i020' }],
      [{ _id: 'i021' }],
      [{ _id: { $in: ['i020', 'i021', 'i030', 'newA', 'newB'] } }, { sort: { _id: 1 } }],
      [{ _id: { $in: ['i020', 'i024', 'newA'] } }, { sort: { n: -1 }, limit: 2 }],
      [{ _id: 'i030', tenant: 't5' }],
      [{ _id: { $in: [7, 'i020'] } }], // an id that is no string: every open document is looked at
    ];
    const queries = [...QUERIES, ...byId];
    const view = async (c: Collection<Item>, tx?: Tx): Promise<unknown[]> =>
      Promise.all(queries.map(async ([f, o]) => [f, await c.countDocuments(f, { tx }), (await c.find(f, { ...o, tx })).map((d) => d._id)]));
    // A and B write different documents (no conflict); both move documents into and out of t5.
    const writeA = async (c: Collection<Item>, tx: Tx): Promise<void> => {
      await c.updateOne({ _id: 'i020' }, { $set: { tenant: 't5', n: 10 } }, { tx });
      await c.deleteOne({ _id: 'i021' }, { tx });
      await c.insertOne({ _id: 'newA', tenant: 't5', status: 'open', n: 1 }, { tx });
    };
    const writeB = async (c: Collection<Item>, tx: Tx): Promise<void> => {
      await c.updateMany({ tenant: 't3' }, { $set: { tenant: 't5', status: 'held' } }, { tx });
      await c.updateOne({ _id: 'i030' }, { $set: { tenant: 't5' } }, { tx });
      await c.updateOne({ _id: 'i005' }, { $set: { tenant: 't1' } }, { tx });
      await c.insertOne({ _id: 'newB', tenant: 't1', n: 2 }, { tx });
    };
    // What a transaction sees of its own writes when it is the only one open.
    const alone = async (write: typeof writeA): Promise<unknown[]> => {
      const { store, c } = await fresh(60);
      let seen: unknown[] = [];
      await store.transaction(async (tx) => {
        await write(c, tx);
        seen = await view(c, tx);
      });
      return seen;
    };
    const [aloneA, aloneB] = [await alone(writeA), await alone(writeB)];

    const { store, c } = await fresh(60);
    const committed = await view(c);
    const gate = () => {
      let open: () => void = () => undefined;
      const opened = new Promise<void>((resolve) => (open = resolve));
      return { opened, open };
    };
    const [aWrote, bSeen, aSeen, release] = [gate(), gate(), gate(), gate()];
    let [insideA, insideB]: unknown[][] = [[], []];
    const a = store.transaction(async (tx) => {
      await writeA(c, tx);
      aWrote.open();
      await bSeen.opened;
      insideA = await view(c, tx);
      aSeen.open();
      await release.opened;
    });
    await aWrote.opened;
    const b = store.transaction(async (tx) => {
      await writeB(c, tx);
      insideB = await view(c, tx);
      bSeen.open();
      await release.opened;
    });
    await aSeen.opened;
    expect(await view(c)).toEqual(committed);
    expect(insideA).toEqual(aloneA);
    expect(insideB).toEqual(aloneB);
    release.open();
    await Promise.all([a, b]);
    await expectAllQueriesMatchScan(c);
  });

  it('matches multikey arrays, $in and whole-array equality like a scan', async () => {
    const store = createMemoryStore();
    const c = store.collection<Item>({ name: 'multikey', schema: itemSchema() });
    await c.insertMany([
      { _id: 'a', tags: ['p', 'q', 'p'], lines: [{ sku: 'k1' }, { sku: 'k2' }] },
      { _id: 'b', tags: ['q'], lines: [{ sku: 'k2' }] },
      { _id: 'c', tags: [], lines: [] },
      { _id: 'd', tags: ['r', 'p'] },
      { _id: 'e' },
    ]);
    const ids = async (filter: Filter): Promise<string[]> => (await c.find(filter)).map((d) => d._id);
    expect(await ids({ tags: 'p' })).toEqual(['a', 'd']);
    expect(await ids({ tags: { $in: ['q', 'zz'] } })).toEqual(['a', 'b']);
    expect(await ids({ tags: { $in: ['p', 'q'] } })).toEqual(['a', 'b', 'd']); // a sits under both keys, once
    expect(await ids({ tags: ['q'] })).toEqual(['b']); // whole-array equality: not an index lookup
    expect(await ids({ tags: { $size: 0 } })).toEqual(['c', 'e']); // the schema defaults arrays to []
    expect(await ids({ 'lines.sku': 'k2' })).toEqual(['a', 'b']);
    expect(await ids({ 'lines.sku': { $in: [] } })).toEqual([]);
    await c.updateOne({ _id: 'a' }, { $pull: { tags: 'p' } });
    expect(await ids({ tags: 'p' })).toEqual(['d']);
    expect(await ids({ tags: 'q' })).toEqual(['a', 'b']);
    for (const filter of [{ tags: 'p' }, { tags: { $in: ['q', 'r'] } }, { tags: { $all: ['q'] } }, { 'lines.sku': 'k1', tags: 'q' }]) {
      await expectSameAsScan(c, filter);
    }
  });

  it('pages large sorted results exactly like mingo (ties in natural order)', async () => {
    const { c } = await fresh(1200);
    // Updates reorder documents within buckets without moving them in natural order.
    await c.updateMany({ n: { $in: [2, 5] } }, { $set: { tenant: 't3' } });
    await c.updateMany({ tenant: 't3', flag: true }, { $unset: { when: '' } });
    const pages: Array<[Filter, FindOptions]> = [
      [{}, { sort: { when: 1 }, limit: 50 }],
      [{}, { sort: { when: -1, n: 1 }, skip: 300, limit: 40 }],
      [{ tenant: 't3' }, { sort: { n: -1, when: 1 }, skip: 17, limit: 25 }],
      [{ status: { $in: ['open', 'held'] } }, { sort: { 'address.city': 1, when: -1 }, skip: 500, limit: 200 }],
      [{ tags: 'red' }, { sort: { n: 1 }, skip: 5, limit: 10 }],
      [{ flag: false }, { sort: { tenant: -1, _id: 1 }, skip: 250, limit: 300 }],
      [{}, { sort: { n: 1 }, skip: 1190, limit: 50 }],
    ];
    for (const [filter, opts] of pages) await expectSameAsScan(c, filter, opts);
  });

  it('agrees with a full scan through random writes and rolled-back transactions', async () => {
    const { store, c } = await fresh(40);
    const rand = seeded(7);
    const int = (n: number): number => Math.floor(rand() * n);
    let next = 1000;
    const randomWrite = async (tx?: Tx): Promise<void> => {
      const id = `i${String(int(60)).padStart(3, '0')}`;
      switch (int(7)) {
        case 0:
          await c.insertOne(makeItem(next++), { tx });
          break;
        case 1:
          await c.updateOne({ _id: id }, { $set: { tenant: `t${int(9)}`, status: pick(['open', 'closed', 'held'], int(3)) } }, { tx });
          break;
        case 2:
          await c.updateMany(
            { tenant: `t${int(7)}`, n: { $lt: int(11) } },
            { $set: { n: int(11), flag: rand() < 0.5 }, $push: { tags: pick(['red', 'x', 'new'], int(3)) } },
            { tx },
          );
          break;
        case 3:
          await c.updateOne(
            { tags: pick(['red', 'green', 'x'], int(3)) },
            { $pull: { tags: pick(['red', 'green', 'x'], int(3)) }, $set: { when: pick(DAYS, int(5)) } },
            { tx },
          );
          break;
        case 4:
          await c.deleteOne({ tenant: `t${int(7)}`, status: 'held' }, { tx });
          break;
        case 5: // creates a document carrying the filter's equality fields, or updates it
          await c.updateOne({ tenant: `t${int(9)}`, status: `s${int(4)}` }, { $inc: { n: 1 }, $setOnInsert: { flag: true } }, { tx, upsert: true });
          break;
        default:
          await c.findOneAndUpdate(
            { 'address.city': pick(['Paris', 'Rome', 'Oslo'], int(3)) },
            { $set: { 'address.city': pick(['Lima', 'Kyiv', 'Rome'], int(3)) } },
            { tx, sort: { n: -1 } },
          );
      }
    };
    for (let round = 0; round < 8; round++) {
      for (let i = 0; i < 20; i++) await randomWrite();
      await expect(
        store.transaction(async (tx) => {
          for (let i = 0; i < 8; i++) await randomWrite(tx);
          throw new Error('rollback');
        }),
      ).rejects.toThrow('rollback');
      await expectAllQueriesMatchScan(c);
    }
  });
});

// ---- ordered indexes ----
// A sorted page whose filter pins the prefix of a schema index, and whose sort is the rest of that
// index, is read by walking the index in order (ordered-index.ts). The walk must return exactly
// the page mingo returns over a full scan, ties (in natural order) included, through any writes.

function orderedSchema(): Schema {
  // Mixed: the documents may hold arrays and NaN where the index orders its values.
  const schema = new Schema({ _id: String, tenant: Schema.Types.Mixed, status: String, when: Schema.Types.Mixed, n: Schema.Types.Mixed, flag: Boolean });
  schema.index({ tenant: 1, when: 1, _id: 1 });
  schema.index({ tenant: 1, when: -1 }); // ties on `when`: natural order
  schema.index({ tenant: 1, status: 1, n: -1 });
  return schema;
}

function makeOrdered(i: number): Item {
  const item: Item = {
    _id: `o${String(i).padStart(4, '0')}`,
    tenant: i % 10 < 7 ? 'big' : 'small', // 'big' holds most documents: no equality index narrows it
    status: pick(['open', 'closed', 'held'], i * 7),
    n: (i * 37) % 13,
    flag: i % 3 === 0,
  };
  if (i % 9 !== 0) item.when = pick(DAYS, (i * 13) % 17);
  return item;
}

const ORDERED_PAGES: Array<[Filter, FindOptions]> = [
  [{ tenant: 'big' }, { sort: { when: 1, _id: 1 }, limit: 50 }],
  [{ tenant: 'big' }, { sort: { when: 1, _id: 1 }, skip: 120, limit: 30 }],
  [
    { tenant: 'big', flag: true },
    { sort: { when: 1, _id: 1 }, skip: 10, limit: 25 },
  ],
  [
    { tenant: 'big', n: { $gte: 6 }, status: { $ne: 'held' } },
    { sort: { when: 1, _id: 1 }, limit: 40 },
  ],
  [{ tenant: 'big' }, { sort: { when: -1 }, skip: 33, limit: 60 }],
  [
    { tenant: { $eq: 'big' }, flag: false },
    { sort: { when: -1 }, limit: 500 },
  ],
  [{ $and: [{ tenant: 'big' }, { n: { $lt: 4 } }] }, { sort: { when: -1 }, skip: 5, limit: 5 }],
  [{ tenant: 'big' }, { sort: { when: 1, _id: 1 }, skip: 10_000, limit: 5 }], // past the end
  [{ tenant: 'small' }, { sort: { when: 1, _id: 1 }, limit: 20 }], // narrowed: sorted in memory
  // Ranges on the first sorted field of an index bound the walk, or the candidates.
  [
    { tenant: 'big', when: { $gte: DAYS[1], $lt: DAYS[3] } },
    { sort: { when: 1, _id: 1 }, limit: 30 },
  ],
  [
    { tenant: 'big', when: DAYS[2] },
    { sort: { when: -1 }, skip: 3, limit: 10 },
  ],
  [
    { tenant: 'big', status: 'open', n: { $gt: 3, $lte: 9 } },
    { sort: { when: -1 }, limit: 20 },
  ],
  [
    { tenant: 'big', status: 'held', n: { $lt: 7, $ne: 3 } },
    { sort: { n: -1 }, skip: 2, limit: 15 },
  ],
  [
    { tenant: 'big', when: { $gt: '2024' } },
    { sort: { when: 1, _id: 1 }, limit: 10 },
  ], // a string never compares with a date
  [{ tenant: 'big', n: { $gte: 5, $lt: 'z' } }, {}], // bounds of two types: no range
  [{ tenant: 'big', when: { $lte: DAYS[2] } }, {}],
  // Indexes ordered by the first sort fields only: groups of equal leading keys, sorted by the rest.
  [
    { tenant: 'big', status: 'held' },
    { sort: { n: -1, _id: 1 }, skip: 4, limit: 12 },
  ],
  [
    { tenant: 'big', flag: false },
    { sort: { when: -1, n: 1 }, skip: 20, limit: 25 },
  ],
  [
    { tenant: 'big', status: 'open', n: { $lte: 8 } },
    { sort: { n: -1, when: 1 }, limit: 7 },
  ],
  // Exactly the pinned prefix: the page is a slice of the index, the count its size.
  // `{ f: null }` pins the bucket of null and missing values.
  [
    { tenant: 'big', when: null },
    { sort: { _id: 1 }, limit: 20 },
  ],
  [
    { tenant: 'small', when: { $eq: null }, flag: true },
    { sort: { _id: 1 }, skip: 2, limit: 50 },
  ],
  [{ tenant: null }, { sort: { when: 1, _id: 1 }, limit: 10 }],
  [{ tenant: 'big', when: null }, {}],
  [{ tenant: { $in: ['big'] } }, { sort: { when: 1, _id: 1 }, skip: 100, limit: 10 }],
  [{ tenant: { $eq: 'big', $ne: 'small' } }, { sort: { when: 1, _id: 1 }, limit: 10 }],
  [{ tenant: 'big' }, {}],
];

describe('memory document store: ordered indexes', () => {
  let seq = 0;
  const fresh = async (count: number): Promise<{ store: DocumentStore; c: Collection<Item> }> => {
    const store = createMemoryStore();
    const c = store.collection<Item>({ name: `ordered${seq++}`, schema: orderedSchema() });
    await c.insertMany(Array.from({ length: count }, (_, i) => makeOrdered(i)));
    return { store, c };
  };
  const expectPagesMatchScan = async (c: Collection<Item>): Promise<void> => {
    for (const [filter, opts] of ORDERED_PAGES) await expectSameAsScan(c, filter, opts);
  };

  it('reads a sorted page by walking the index, evaluating only the documents up to the page', async () => {
    const { c } = await fresh(600);
    const seen = new Set<string>();
    const page = await c.find({ $where: probe(seen), tenant: 'big' }, { sort: { when: 1, _id: 1 }, limit: 5 });
    expect(page).toHaveLength(5);
    expect(seen.size).toBe(5); // a scan would have evaluated all 420 documents of 'big'
    await expectPagesMatchScan(c);
  });

  it('walks the bucket of null and missing values for a `{ f: null }` term', async () => {
    const { c } = await fresh(600);
    await c.updateMany({ _id: { $in: ['o0001', 'o0002'] } }, { $set: { when: null } }); // null next to missing
    const seen = new Set<string>();
    const page = await c.find({ $where: probe(seen), tenant: 'big', when: null }, { sort: { _id: 1 }, limit: 5 });
    expect(page).toHaveLength(5);
    expect(seen.size).toBe(5); // a scan would have evaluated every document of 'big'
    await expectPagesMatchScan(c);
  });

  it('keeps the walk exact through updates that move documents, deletes, inserts and rollbacks', async () => {
    const { store, c } = await fresh(300);
    await expectPagesMatchScan(c); // builds the ordered indexes
    const rand = seeded(11);
    const int = (n: number): number => Math.floor(rand() * n);
    let next = 5000;
    const randomWrite = async (tx?: Tx): Promise<void> => {
      const id = `o${String(int(320)).padStart(4, '0')}`;
      switch (int(6)) {
        case 0:
          await c.insertMany([makeOrdered(next++), makeOrdered(next++)], { tx });
          break;
        case 1: // moves the document inside its bucket (ties on `when` keep natural order)
          await c.updateOne({ _id: id }, { $set: { when: pick(DAYS, int(5)) } }, { tx });
          break;
        case 2: // moves it to the other bucket, or out of the index's order entirely
          await c.updateOne(
            { _id: id },
            int(2) ? { $set: { tenant: pick(['big', 'small'], int(2)) } } : int(2) ? { $unset: { when: '' } } : { $set: { when: null } },
            { tx },
          );
          break;
        case 3:
          await c.updateMany({ tenant: 'big', n: int(13) }, { $set: { status: pick(['open', 'closed', 'held'], int(3)) }, $inc: { n: 1 } }, { tx });
          break;
        case 4:
          await c.deleteOne({ _id: id }, { tx });
          break;
        default:
          await c.findOneAndUpdate({ tenant: 'big', flag: true }, { $set: { flag: false, when: pick(DAYS, int(5)) } }, { tx, sort: { when: 1, _id: 1 } });
      }
    };
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 40; i++) await randomWrite();
      await expectPagesMatchScan(c);
      await expect(
        store.transaction(async (tx) => {
          for (let i = 0; i < 10; i++) await randomWrite(tx);
          throw new Error('rollback');
        }),
      ).rejects.toThrow('rollback');
      await expectPagesMatchScan(c);
    }
  });

  it('bounds a range on the first sorted field of an index by binary search', async () => {
    const { c } = await fresh(600);
    const seen = new Set<string>();
    const filter = { tenant: 'big', status: 'open', n: { $gte: 11 } };
    const count = await c.countDocuments({ $where: probe(seen), ...filter });
    expect(count).toBe(await c.countDocuments(filter));
    expect(seen.size).toBe(count); // only the range was evaluated: n sits in order in (tenant, status)
    await expectPagesMatchScan(c);
  });

  it('falls back to sorting when a prefix value is an array (equality matches any element)', async () => {
    const { c } = await fresh(200);
    await expectPagesMatchScan(c);
    await c.updateOne({ _id: 'o0001' }, { $set: { tenant: ['small', 'big'] } });
    await expectPagesMatchScan(c);
    expect((await c.find({ tenant: 'big' }, { sort: { when: 1, _id: 1 } })).map((d) => d._id)).toContain('o0001');
    await c.updateOne({ _id: 'o0001' }, { $set: { tenant: 'big' } });
    await expectPagesMatchScan(c);
  });

  it('declines walks and ranges while a sorted field holds arrays or NaN (no total order)', async () => {
    const { c } = await fresh(200);
    await expectPagesMatchScan(c);
    // mingo itself orders such values by the sort algorithm it happens to run, so only what
    // matches (and how many) is compared here; every filter of the pages is asked in full.
    const expectSameMatches = async (): Promise<void> => {
      const all = await c.find({});
      for (const [filter] of ORDERED_PAGES) {
        const label = JSON.stringify(filter);
        const expected = sortedIds(
          mingoFind(all, filter)
            .all()
            .map((d) => (d as Item)._id),
        );
        expect({ label, ids: sortedIds((await c.find(filter, { sort: { when: 1, _id: 1 } })).map((d) => d._id)) }).toEqual({ label, ids: expected });
        expect({ label, ids: sortedIds((await c.find(filter, { sort: { n: -1 }, limit: 1000 })).map((d) => d._id)) }).toEqual({ label, ids: expected });
        expect({ label, count: await c.countDocuments(filter) }).toEqual({ label, count: expected.length });
      }
    };
    await c.updateOne({ _id: 'o0002' }, { $set: { n: NaN } });
    await c.updateOne({ _id: 'o0003' }, { $set: { when: [DAYS[0], DAYS[4]] } });
    await expectSameMatches();
    await c.updateOne({ _id: 'o0002' }, { $set: { n: 4 } });
    await c.updateOne({ _id: 'o0003' }, { $set: { when: DAYS[1] } });
    await expectPagesMatchScan(c);
  });
});
