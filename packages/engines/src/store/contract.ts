// Shared contract tests for DocumentStore engines (jest globals). Every test uses fresh random
// collection names, so the suite also runs against a shared, long-lived database.
// Not part of the store index (it needs jest); import it from tests only.
import { Schema } from 'mongoose';
import {
  DocumentValidationError,
  DuplicateKeyError,
  isTransientStoreError,
  TransactionAbortedError,
  WriteConflictError,
  type Collection,
  type Doc,
  type DocumentStore,
  type Filter,
  type Tx,
} from '@vrp/platform/store';

export interface StoreContractOptions {
  /** Jest timeout of each test and hook. Default 30s. */
  testTimeoutMs?: number;
  /** Jest timeout of the hook that runs makeStore (it may start a container). Default 4 x testTimeoutMs. */
  setupTimeoutMs?: number;
}

type Item = Doc & {
  name?: string;
  email?: string;
  tenant?: string;
  code?: string;
  count?: number;
  limit?: number;
  status?: string;
  tags?: string[];
  when?: Date;
  address?: { city?: string; zip?: string };
  lines?: Array<{ sku: string; qty?: number }>;
};

function itemSchema(): Schema {
  const schema = new Schema({
    _id: { type: String, required: true },
    name: { type: String, required: true },
    email: { type: String, unique: true, sparse: true },
    tenant: String,
    code: String,
    count: { type: Number, default: 0, min: 0 },
    limit: Number,
    status: { type: String, enum: ['open', 'closed'], default: 'open' },
    tags: [String],
    when: Date,
    address: { city: String, zip: String },
    lines: [{ _id: false, sku: { type: String, required: true }, qty: Number }],
  });
  // Compound and partial: documents without a code never collide.
  schema.index({ tenant: 1, code: 1 }, { unique: true, partialFilterExpression: { code: { $exists: true } } });
  return schema;
}

export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 10)}`;
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A promise and the function that resolves it (a gate a test opens when it chooses). */
function signal(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/**
 * Opens a transaction, runs `write` in it and keeps it open: resolves once `write` is done, with
 * `commit()` (lets the transaction end, resolves when it has committed).
 */
export async function holdOpen(store: DocumentStore, write: (tx: Tx) => Promise<unknown>): Promise<{ commit: () => Promise<void> }> {
  const wrote = signal();
  const release = signal();
  const done = store.transaction(async (tx) => {
    await write(tx);
    wrote.open();
    await release.promise;
  });
  await Promise.race([wrote.promise, done]);
  return {
    commit: async () => {
      release.open();
      await done;
    },
  };
}

async function expectRejects<E extends Error>(promise: Promise<unknown>, type: new (...args: never[]) => E): Promise<E> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(type);
    return err as E;
  }
  throw new Error(`expected a ${type.name}`);
}

export function describeStoreContract(name: string, makeStore: () => Promise<DocumentStore>, options: StoreContractOptions = {}): void {
  const testMs = options.testTimeoutMs ?? 30_000;
  const setupMs = options.setupTimeoutMs ?? testMs * 4;

  describe(`document store contract: ${name}`, () => {
    let store: DocumentStore | undefined;

    beforeAll(async () => {
      store = await makeStore();
    }, setupMs);

    afterAll(async () => {
      await store?.close();
    }, testMs);

    const theStore = (): DocumentStore => {
      if (!store) throw new Error('store was not created');
      return store;
    };
    const items = (): Collection<Item> => theStore().collection<Item>({ name: uniqueName('items'), schema: itemSchema() });
    const idsOf = (docs: Doc[]): string[] => docs.map((d) => d._id);
    /** One contract case, with the engine's time limit. */
    const check = (title: string, fn: () => Promise<void>): void => it(title, fn, testMs);
    const idsMatching = async (c: Collection<Item>, filter: Filter): Promise<string[]> => idsOf(await c.find(filter, { sort: { _id: 1 } }));

    check('is ready', async () => {
      await expect(theStore().ready()).resolves.toBe(true);
    });

    check('round-trips dates, nested objects and arrays, applying schema defaults', async () => {
      const c = items();
      const when = new Date('2024-05-01T10:00:00.000Z');
      const written = { _id: 'a1', name: 'Alpha', when, address: { city: 'Paris', zip: '75001' }, tags: ['x', 'y'], lines: [{ sku: 's1', qty: 2 }] };
      const inserted = await c.insertOne(written);
      const expected = { ...written, count: 0, status: 'open' };
      expect(inserted).toEqual(expected);
      const found = await c.findOne({ _id: 'a1' });
      expect(found).toEqual(expected);
      expect(found?.when).toBeInstanceOf(Date);
      expect(await c.findOne({ _id: 'nope' })).toBeNull();
    });

    check('casts values and drops fields the schema does not know', async () => {
      const c = items();
      await c.insertOne({ _id: 'k1', name: 'Cast', count: '7' as unknown as number, when: '2024-01-02T00:00:00.000Z' as unknown as Date, extra: 'dropped' });
      const found = await c.findOne({ _id: 'k1' });
      expect(found?.count).toBe(7);
      expect(found?.when).toEqual(new Date('2024-01-02T00:00:00.000Z'));
      expect(found).not.toHaveProperty('extra');
    });

    check('never shares state with callers', async () => {
      const c = items();
      const input: Item = { _id: 'c1', name: 'n', tags: ['a'], address: { city: 'X' }, when: new Date(0) };
      const returned = await c.insertOne(input);
      input.tags?.push('in');
      if (input.address) input.address.city = 'in';
      input.when?.setTime(1000);
      returned.tags?.push('out');
      const first = await c.findOne({ _id: 'c1' });
      first?.tags?.push('read');
      if (first?.address) first.address.city = 'read';
      const [listed] = await c.find({});
      listed?.tags?.push('listed');
      const updated = await c.findOneAndUpdate({ _id: 'c1' }, { $set: { count: 1 } });
      updated?.tags?.push('updated');

      const again = await c.findOne({ _id: 'c1' });
      expect(again?.tags).toEqual(['a']);
      expect(again?.address).toEqual({ city: 'X' });
      expect(again?.when).toEqual(new Date(0));
    });

    check('applies unjournaled lone writes as journaled ones, and unjournaled operations of a transaction with its commit', async () => {
      const c = items();
      const unjournaled = { journal: false } as const;
      await c.insertOne({ _id: 'u1', name: 'claim', count: 1 }, unjournaled);
      await c.insertMany([{ _id: 'u2', name: 'two' }], unjournaled);
      await expect(c.insertOne({ _id: 'u1', name: 'again' }, unjournaled)).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await c.updateOne({ _id: 'u1' }, { $inc: { count: 1 } }, unjournaled)).toMatchObject({ matchedCount: 1, modifiedCount: 1 });
      expect(await c.findOneAndUpdate({ _id: 'u1' }, { $inc: { count: 1 } }, unjournaled)).toMatchObject({ count: 3 });
      expect(await c.deleteOne({ _id: 'u2' }, unjournaled)).toEqual({ deletedCount: 1 });
      expect(await idsMatching(c, {})).toEqual(['u1']);
      // In a transaction the option is no error, and the write commits or rolls back with the rest.
      await expect(
        theStore().transaction(async (tx) => {
          await c.insertOne({ _id: 'u3', name: 'in tx' }, { tx, ...unjournaled });
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      await theStore().transaction((tx) => c.updateOne({ _id: 'u1' }, { $set: { name: 'committed' } }, { tx, ...unjournaled }));
      expect(await c.find({})).toEqual([expect.objectContaining({ _id: 'u1', name: 'committed', count: 3 })]);
    });

    describe('queries', () => {
      let c: Collection<Item>;
      beforeAll(async () => {
        c = items();
        await c.insertMany([
          {
            _id: 'a',
            name: 'Alice',
            count: 1,
            limit: 3,
            tags: ['x', 'y'],
            when: new Date('2024-01-01'),
            address: { city: 'Paris' },
            lines: [
              { sku: 's1', qty: 1 },
              { sku: 's2', qty: 5 },
            ],
          },
          { _id: 'b', name: 'bob', count: 5, limit: 3, tags: ['y'], when: new Date('2024-02-01'), address: { city: 'Rome' }, lines: [{ sku: 's1', qty: 4 }] },
          { _id: 'c', name: 'Carol', count: 3, limit: 10, tags: [], when: new Date('2024-03-01'), status: 'closed' },
          { _id: 'd', name: 'alfred', count: 3, email: 'd@example.com', address: { city: 'Paris', zip: '75002' } },
        ]);
      }, testMs);

      check('filters with $in, ranges, $regex, dotted paths, $elemMatch, $expr and arrays', async () => {
        expect(await idsMatching(c, { _id: { $in: ['a', 'c', 'zz'] } })).toEqual(['a', 'c']);
        expect(await idsMatching(c, { count: { $gte: 2, $lt: 5 } })).toEqual(['c', 'd']);
        expect(await idsMatching(c, { when: { $gte: new Date('2024-02-01'), $lt: new Date('2024-03-01') } })).toEqual(['b']);
        expect(await idsMatching(c, { name: { $regex: '^al', $options: 'i' } })).toEqual(['a', 'd']);
        expect(await idsMatching(c, { name: { $regex: '^al' } })).toEqual(['d']);
        expect(await idsMatching(c, { 'address.city': 'Paris' })).toEqual(['a', 'd']);
        expect(await idsMatching(c, { lines: { $elemMatch: { sku: 's1', qty: { $gte: 2 } } } })).toEqual(['b']);
        expect(await idsMatching(c, { 'lines.sku': 's2' })).toEqual(['a']);
        expect(await idsMatching(c, { $expr: { $lt: ['$count', '$limit'] } })).toEqual(['a', 'c']);
        expect(await idsMatching(c, { tags: 'y' })).toEqual(['a', 'b']);
        expect(await idsMatching(c, { tags: { $size: 0 } })).toEqual(['c', 'd']);
        expect(await idsMatching(c, { email: { $exists: true } })).toEqual(['d']);
        expect(await idsMatching(c, { $or: [{ status: 'closed' }, { count: 5 }] })).toEqual(['b', 'c']);
        expect(await idsMatching(c, { status: { $ne: 'open' }, _id: 'c' })).toEqual(['c']);
        expect(await idsMatching(c, { _id: 'a', count: 2 })).toEqual([]);
      });

      check('sorts, skips and limits', async () => {
        expect(idsOf(await c.find({}, { sort: { count: -1, _id: 1 } }))).toEqual(['b', 'c', 'd', 'a']);
        expect(idsOf(await c.find({}, { sort: { count: -1, _id: 1 }, skip: 1, limit: 2 }))).toEqual(['c', 'd']);
        expect(idsOf(await c.find({}, { sort: { when: 1 }, limit: 1 }))).toEqual(['d']); // missing sorts first
        expect((await c.findOne({ count: 3 }, { sort: { _id: -1 } }))?._id).toBe('d');
      });

      check('projects fields', async () => {
        expect(await c.findOne({ _id: 'a' }, { projection: { name: 1 } })).toEqual({ _id: 'a', name: 'Alice' });
        expect(await c.findOne({ _id: 'a' }, { projection: { name: 1, _id: 0 } })).toEqual({ name: 'Alice' });
        expect(await c.findOne({ _id: 'd' }, { projection: { 'address.zip': 1 } })).toEqual({ _id: 'd', address: { zip: '75002' } });
        const excluded = await c.findOne({ _id: 'b' }, { projection: { lines: 0, address: 0, tags: 0 } });
        expect(excluded).toEqual({ _id: 'b', name: 'bob', count: 5, limit: 3, when: new Date('2024-02-01'), status: 'open' });
        expect(await c.find({ count: 3 }, { projection: { _id: 1 }, sort: { _id: 1 } })).toEqual([{ _id: 'c' }, { _id: 'd' }]);
      });

      check('counts documents', async () => {
        expect(await c.countDocuments({})).toBe(4);
        expect(await c.countDocuments({ 'address.city': 'Paris' })).toBe(2);
        expect(await c.countDocuments({ _id: 'zz' })).toBe(0);
      });
    });

    check('updates with $set, $inc, $push, $pull, $addToSet and $unset', async () => {
      const c = items();
      await c.insertOne({
        _id: 'u',
        name: 'n',
        count: 1,
        tags: ['a', 'b'],
        lines: [
          { sku: 's1', qty: 1 },
          { sku: 's2', qty: 2 },
        ],
      });
      expect(
        await c.updateOne(
          { _id: 'u' },
          { $set: { name: 'm', 'address.city': 'Rome' }, $inc: { count: 2 }, $push: { lines: { sku: 's3', qty: 3 } }, $addToSet: { tags: 'c' } },
        ),
      ).toEqual({ matchedCount: 1, modifiedCount: 1, upsertedId: null });
      await c.updateOne({ _id: 'u' }, { $pull: { tags: 'a', lines: { sku: 's1' } } });
      expect(await c.updateOne({ _id: 'u' }, { $addToSet: { tags: 'b' } })).toEqual({ matchedCount: 1, modifiedCount: 0, upsertedId: null });
      expect(await c.updateOne({ _id: 'u' }, { $set: { name: 'm' } })).toEqual({ matchedCount: 1, modifiedCount: 0, upsertedId: null });
      await c.updateOne({ _id: 'u' }, { $unset: { 'address.city': '' }, $set: { 'address.zip': '00100' } });
      await c.updateOne({ 'lines.sku': 's3' }, { $inc: { 'lines.$.qty': 10 } });
      expect(await c.updateOne({ _id: 'missing' }, { $set: { name: 'x' } })).toEqual({ matchedCount: 0, modifiedCount: 0, upsertedId: null });

      expect(await c.findOne({ _id: 'u' })).toEqual({
        _id: 'u',
        name: 'm',
        count: 3,
        status: 'open',
        tags: ['b', 'c'],
        address: { zip: '00100' },
        lines: [
          { sku: 's2', qty: 2 },
          { sku: 's3', qty: 13 },
        ],
      });
    });

    check('upserts, copying the filter equality fields and applying $setOnInsert only on insert', async () => {
      const c = items();
      expect(await c.updateOne({ _id: 'up1', tenant: 't1' }, { $set: { name: 'first' }, $setOnInsert: { count: 5 } }, { upsert: true })).toEqual({
        matchedCount: 0,
        modifiedCount: 0,
        upsertedId: 'up1',
      });
      expect(await c.findOne({ _id: 'up1' })).toMatchObject({ _id: 'up1', tenant: 't1', name: 'first', count: 5, status: 'open' });

      expect(await c.updateOne({ _id: 'up1', tenant: 't1' }, { $set: { name: 'second' }, $setOnInsert: { count: 9 } }, { upsert: true })).toEqual({
        matchedCount: 1,
        modifiedCount: 1,
        upsertedId: null,
      });
      expect(await c.findOne({ _id: 'up1' })).toMatchObject({ name: 'second', count: 5 });

      const created = await c.findOneAndUpdate(
        { _id: 'up2', 'address.city': 'Oslo', count: { $gte: 0 } },
        { $set: { name: 'oslo' }, $inc: { limit: 2 } },
        { upsert: true },
      );
      expect(created).toMatchObject({ _id: 'up2', name: 'oslo', address: { city: 'Oslo' }, limit: 2 });
      expect(created?.count).toBe(0); // a default: the filter only constrains count
      expect(await c.findOneAndUpdate({ _id: 'up3' }, { $set: { name: 'x' } }, { upsert: true, returnDocument: 'before' })).toBeNull();
      expect(await c.countDocuments({})).toBe(3);

      // Without an _id in the filter or update, the engine picks a string one.
      const r = await c.updateOne({ tenant: 't9' }, { $set: { name: 'anon' } }, { upsert: true });
      expect(typeof r.upsertedId).toBe('string');
      expect(await c.findOne({ _id: r.upsertedId ?? '' })).toMatchObject({ tenant: 't9', name: 'anon' });
    });

    check('findOneAndUpdate returns the document before or after, honours sort, and null on no match', async () => {
      const c = items();
      await c.insertMany([
        { _id: 'f1', name: 'one', count: 1 },
        { _id: 'f2', name: 'two', count: 2 },
      ]);
      expect(await c.findOneAndUpdate({ _id: 'f1' }, { $inc: { count: 1 } }, { returnDocument: 'before' })).toMatchObject({ _id: 'f1', count: 1 });
      expect(await c.findOneAndUpdate({ _id: 'f1' }, { $inc: { count: 1 } })).toMatchObject({ _id: 'f1', count: 3 });
      expect(await c.findOneAndUpdate({}, { $set: { status: 'closed' } }, { sort: { count: 1 } })).toMatchObject({ _id: 'f2', status: 'closed' });
      expect(await c.findOneAndUpdate({ _id: 'none' }, { $inc: { count: 1 } })).toBeNull();
    });

    check('a conditional findOneAndUpdate is an atomic guard under concurrency', async () => {
      const c = items();
      await c.insertOne({ _id: 'g', name: 'guard', count: 0 });
      const results = await Promise.all(Array.from({ length: 20 }, () => c.findOneAndUpdate({ _id: 'g', count: { $lt: 3 } }, { $inc: { count: 1 } })));
      expect(results.filter((r) => r !== null)).toHaveLength(3);
      expect(
        results
          .filter((r) => r !== null)
          .map((r) => r?.count)
          .sort(),
      ).toEqual([1, 2, 3]);
      expect((await c.findOne({ _id: 'g' }))?.count).toBe(3);
    });

    check('updateMany, deleteOne and deleteMany report counts', async () => {
      const c = items();
      await c.insertMany([
        { _id: 'm1', name: 'a', tenant: 't1', count: 1 },
        { _id: 'm2', name: 'b', tenant: 't1', count: 2 },
        { _id: 'm3', name: 'c', tenant: 't2', count: 3 },
        { _id: 'm4', name: 'd', tenant: 't1', count: 4, status: 'closed' },
      ]);
      expect(await c.updateMany({ tenant: 't1' }, { $set: { status: 'closed' } })).toEqual({ matchedCount: 3, modifiedCount: 2, upsertedId: null });
      expect(await c.updateMany({ tenant: 'none' }, { $set: { status: 'closed' } })).toEqual({ matchedCount: 0, modifiedCount: 0, upsertedId: null });
      expect(await c.countDocuments({ status: 'closed' })).toBe(3);

      expect(await c.deleteOne({ tenant: 't1' })).toEqual({ deletedCount: 1 });
      expect(await c.deleteOne({ _id: 'none' })).toEqual({ deletedCount: 0 });
      expect(await c.deleteMany({ count: { $gte: 3 } })).toEqual({ deletedCount: 2 });
      expect(await c.countDocuments({})).toBe(1);
      expect(await c.deleteMany({})).toEqual({ deletedCount: 1 });
      expect(await c.find({})).toEqual([]);
    });

    check('enforces unique indexes (single, compound, _id) on insert and update', async () => {
      const c = items();
      await c.insertMany([
        { _id: 'x1', name: 'a', email: 'a@example.com', tenant: 't1', code: 'A' },
        { _id: 'x2', name: 'b', email: 'b@example.com', tenant: 't1', code: 'B' },
      ]);
      await expectRejects(c.insertOne({ _id: 'x1', name: 'dup id' }), DuplicateKeyError);
      const byEmail = await expectRejects(c.insertOne({ _id: 'x3', name: 'c', email: 'a@example.com' }), DuplicateKeyError);
      expect(byEmail.keyPattern).toEqual({ email: 1 });
      const byCompound = await expectRejects(c.insertOne({ _id: 'x4', name: 'd', tenant: 't1', code: 'A' }), DuplicateKeyError);
      expect(byCompound.keyPattern).toEqual({ tenant: 1, code: 1 });
      await expectRejects(c.updateOne({ _id: 'x2' }, { $set: { email: 'a@example.com' } }), DuplicateKeyError);
      await expectRejects(c.findOneAndUpdate({ _id: 'x2' }, { $set: { code: 'A' } }), DuplicateKeyError);
      await expectRejects(c.insertMany([{ _id: 'x5', name: 'e', email: 'b@example.com' }]), DuplicateKeyError);
      await expectRejects(c.updateOne({ _id: 'x7' }, { $set: { name: 'g', tenant: 't1', code: 'B' } }, { upsert: true }), DuplicateKeyError);

      // Sparse and partial indexes: documents without the fields never collide; other tenants may reuse a code.
      await c.insertMany([
        { _id: 'y1', name: 'no email 1', tenant: 't1' },
        { _id: 'y2', name: 'no email 2', tenant: 't1' },
        { _id: 'y3', name: 'other tenant', tenant: 't2', code: 'A' },
      ]);
      // A document may keep its own key; a freed key can be taken.
      await c.updateOne({ _id: 'x1' }, { $set: { email: 'a@example.com', name: 'same' } });
      await c.updateOne({ _id: 'x1' }, { $set: { email: 'a2@example.com' } });
      await c.insertOne({ _id: 'x6', name: 'f', email: 'a@example.com' });

      expect(idsOf(await c.find({}, { sort: { _id: 1 } }))).toEqual(['x1', 'x2', 'x6', 'y1', 'y2', 'y3']);
      expect(await c.findOne({ _id: 'x2' })).toMatchObject({ email: 'b@example.com', code: 'B' });
    });

    check('rejects invalid documents with DocumentValidationError and writes nothing', async () => {
      const c = items();
      const missing = await expectRejects(c.insertOne({ _id: 'v1' } as Item), DocumentValidationError);
      expect(Object.keys(missing.fields)).toEqual(['name']);
      const tooLow = await expectRejects(c.insertOne({ _id: 'v2', name: 'n', count: -1 }), DocumentValidationError);
      expect(Object.keys(tooLow.fields)).toEqual(['count']);
      await expectRejects(c.insertOne({ _id: 'v3', name: 'n', status: 'weird' }), DocumentValidationError);
      await expectRejects(c.insertOne({ _id: 'v4', name: 'n', count: 'many' as unknown as number }), DocumentValidationError);
      await expectRejects(
        c.insertMany([
          { _id: 'v5', name: 'ok' },
          { _id: 'v6', name: 'n', count: -5 },
        ]),
        DocumentValidationError,
      );
      expect(await c.countDocuments({})).toBe(0);

      await c.insertOne({ _id: 'v7', name: 'valid', count: 2 });
      const onUpdate = await expectRejects(c.updateOne({ _id: 'v7' }, { $set: { count: -3 } }), DocumentValidationError);
      expect(Object.keys(onUpdate.fields)).toEqual(['count']);
      await expectRejects(c.findOneAndUpdate({ _id: 'v7' }, { $set: { status: 'weird' } }), DocumentValidationError);
      await expectRejects(c.updateMany({}, { $unset: { name: '' } }), DocumentValidationError);
      expect(await c.findOne({ _id: 'v7' })).toMatchObject({ name: 'valid', count: 2, status: 'open' });
    });

    check('commits a transaction', async () => {
      const c = items();
      const log = theStore().collection<Item>({ name: uniqueName('log'), schema: itemSchema() });
      await c.insertMany([
        { _id: 't1', name: 'keep', count: 1 },
        { _id: 't2', name: 'drop' },
      ]);
      const result = await theStore().transaction(async (tx) => {
        await c.insertOne({ _id: 't3', name: 'new' }, { tx });
        await c.updateOne({ _id: 't1' }, { $inc: { count: 1 } }, { tx });
        await c.deleteOne({ _id: 't2' }, { tx });
        await log.insertOne({ _id: 'l1', name: 'entry' }, { tx });
        // Reads with the tx see its own writes.
        expect((await c.findOne({ _id: 't1' }, { tx }))?.count).toBe(2);
        expect(await c.countDocuments({}, { tx })).toBe(2);
        return 'done';
      });
      expect(result).toBe('done');
      expect(idsOf(await c.find({}, { sort: { _id: 1 } }))).toEqual(['t1', 't3']);
      expect((await c.findOne({ _id: 't1' }))?.count).toBe(2);
      expect(await log.countDocuments({})).toBe(1);
    });

    check('rolls back every write of a transaction that throws', async () => {
      const c = items();
      const log = theStore().collection<Item>({ name: uniqueName('log'), schema: itemSchema() });
      await c.insertMany([
        { _id: 'r1', name: 'keep', count: 1, tags: ['a'] },
        { _id: 'r2', name: 'doomed', email: 'r2@example.com' },
        { _id: 'r3', name: 'many', tenant: 'tx' },
      ]);
      await log.insertOne({ _id: 'l0', name: 'before' });
      const before = idsOf(await c.find({}, { sort: { _id: 1 } }));

      const failure = new Error('boom');
      await expect(
        theStore().transaction(async (tx) => {
          await c.insertOne({ _id: 'r4', name: 'new', email: 'r4@example.com' }, { tx });
          await c.insertMany([{ _id: 'r5', name: 'new too' }], { tx });
          await c.updateOne({ _id: 'r1' }, { $inc: { count: 5 }, $push: { tags: 'b' } }, { tx });
          await c.updateMany({ tenant: 'tx' }, { $set: { status: 'closed' } }, { tx });
          await c.updateOne({ _id: 'r6' }, { $set: { name: 'upserted' } }, { tx, upsert: true });
          await c.findOneAndUpdate({ _id: 'r3' }, { $set: { code: 'Z' } }, { tx });
          await c.deleteOne({ _id: 'r2' }, { tx });
          await log.deleteMany({}, { tx });
          await log.insertOne({ _id: 'l1', name: 'inside' }, { tx });
          throw failure;
        }),
      ).rejects.toBe(failure);

      expect(idsOf(await c.find({}, { sort: { _id: 1 } }))).toEqual(before);
      expect(await c.findOne({ _id: 'r1' })).toMatchObject({ count: 1, tags: ['a'] });
      expect(await c.findOne({ _id: 'r3' })).toMatchObject({ status: 'open' });
      expect(await c.findOne({ _id: 'r3' })).not.toHaveProperty('code');
      expect(idsOf(await log.find({}))).toEqual(['l0']);
      // Unique keys held by undone writes are free again, and restored ones are held again.
      await c.insertOne({ _id: 'r7', name: 'reuse', email: 'r4@example.com' });
      await expectRejects(c.insertOne({ _id: 'r8', name: 'clash', email: 'r2@example.com' }), DuplicateKeyError);
    });

    check('rolls back a transaction that fails on a unique index', async () => {
      const c = items();
      await c.insertOne({ _id: 'q1', name: 'a', email: 'q1@example.com' });
      await expectRejects(
        theStore().transaction(async (tx) => {
          await c.insertOne({ _id: 'q2', name: 'b' }, { tx });
          await c.insertOne({ _id: 'q3', name: 'c', email: 'q1@example.com' }, { tx });
        }),
        DuplicateKeyError,
      );
      expect(idsOf(await c.find({}))).toEqual(['q1']);
    });

    check('rejects a tx used after its transaction ended', async () => {
      const c = items();
      let leaked: Tx | undefined;
      await theStore().transaction(async (tx) => {
        leaked = tx;
        await c.insertOne({ _id: 'e1', name: 'inside' }, { tx });
      });
      if (!leaked) throw new Error('transaction did not run');
      await expect(c.insertOne({ _id: 'e2', name: 'late' }, { tx: leaked })).rejects.toThrow(/transaction/);
      expect(idsOf(await c.find({}))).toEqual(['e1']);
    });

    check('does not interleave the writes of concurrent transactions', async () => {
      const c = items();
      const log = theStore().collection<Item>({ name: uniqueName('log'), schema: itemSchema() });
      await c.insertOne({ _id: 'counter', name: 'counter', count: 0 });
      await log.insertOne({ _id: 'seed', name: 'seed' }); // collections exist before the transactions
      const runs = 5;
      await Promise.all(
        Array.from({ length: runs }, (_, i) =>
          theStore().transaction(async (tx) => {
            // Read-modify-write across an await: only isolation keeps the count right.
            const current = await c.findOne({ _id: 'counter' }, { tx });
            await delay(5);
            await c.updateOne({ _id: 'counter' }, { $set: { count: (current?.count ?? 0) + 1 } }, { tx });
            await log.updateOne({ _id: `run${i}` }, { $set: { name: `run ${i}`, count: current?.count ?? 0 } }, { tx, upsert: true });
          }),
        ),
      );
      expect((await c.findOne({ _id: 'counter' }))?.count).toBe(runs);
      const seen = (await log.find({ _id: { $ne: 'seed' } })).map((d) => d.count).sort();
      expect(seen).toEqual(Array.from({ length: runs }, (_, i) => i));
    });

    describe('transactions are as strict as MongoDB', () => {
      const writeErrors: Array<[string, (c: Collection<Item>, tx: Tx) => Promise<unknown>, new (...args: never[]) => Error]> = [
        ['a duplicate key', (c, tx) => c.insertOne({ _id: 'w2', name: 'dup', email: 'w@example.com' }, { tx }), DuplicateKeyError],
        ['a validation failure', (c, tx) => c.updateOne({ _id: 'w0' }, { $set: { count: -1 } }, { tx }), DocumentValidationError],
      ];
      for (const [what, failingWrite, errorType] of writeErrors) {
        check(`${what} inside a transaction aborts it: later operations and the commit fail, nothing is visible`, async () => {
          const c = items();
          await c.insertOne({ _id: 'w0', name: 'taken', email: 'w@example.com', count: 1 });
          const caught: unknown[] = [];
          let attempts = 0;
          const outcome = theStore().transaction(async (tx) => {
            attempts += 1;
            await c.insertOne({ _id: 'w1', name: 'first' }, { tx });
            await c.updateOne({ _id: 'w0' }, { $set: { name: 'changed' } }, { tx });
            // Catching the error and going on is the mistake under test.
            await failingWrite(c, tx).catch((err: unknown) => caught.push(err));
            await c.insertOne({ _id: 'w3', name: 'after' }, { tx }).catch((err: unknown) => caught.push(err));
            await c.findOne({ _id: 'w1' }, { tx }).catch((err: unknown) => caught.push(err));
            return 'went on';
          });
          const failure = await expectRejects(outcome, TransactionAbortedError);
          expect(failure.reason).toBeInstanceOf(errorType);
          expect(isTransientStoreError(failure)).toBe(false); // not retried: it would fail the same way
          expect(attempts).toBe(1);
          expect(caught).toHaveLength(3);
          expect(caught[0]).toBeInstanceOf(errorType);
          expect(caught[1]).toBeInstanceOf(TransactionAbortedError);
          expect(caught[2]).toBeInstanceOf(TransactionAbortedError);
          expect(await c.find({})).toEqual([expect.objectContaining({ _id: 'w0', name: 'taken', count: 1 })]);
        });
      }

      check('two transactions writing the same document: the later one gets a transient WriteConflictError and is run again', async () => {
        const c = items();
        await c.insertOne({ _id: 'k', name: 'k', count: 0 });
        const holder = await holdOpen(theStore(), (tx) => c.updateOne({ _id: 'k' }, { $inc: { count: 1 } }, { tx }));
        const errors: unknown[] = [];
        let committed: Promise<void> | undefined;
        let attempts = 0;
        const second = theStore().transaction(async (tx) => {
          attempts += 1;
          try {
            await c.updateOne({ _id: 'k' }, { $inc: { count: 10 } }, { tx });
          } catch (err) {
            errors.push(err);
            committed ??= holder.commit(); // the holder may commit now; this attempt is aborted
            throw err;
          }
          return attempts;
        });
        expect(await second).toBeGreaterThanOrEqual(2);
        expect(errors[0]).toBeInstanceOf(WriteConflictError);
        expect(isTransientStoreError(errors[0])).toBe(true);
        expect((await c.findOne({ _id: 'k' }))?.count).toBe(11);
      });

      check('a document committed by another writer after a transaction began is a write conflict when the transaction writes it', async () => {
        const c = items();
        await c.insertOne({ _id: 's', name: 's', count: 0 });
        const errors: unknown[] = [];
        let attempts = 0;
        await theStore().transaction(async (tx) => {
          attempts += 1;
          const seen = await c.findOne({ _id: 's' }, { tx }); // MongoDB takes the snapshot at the first operation
          if (attempts === 1) await c.updateOne({ _id: 's' }, { $inc: { count: 100 } }); // committed meanwhile
          try {
            await c.updateOne({ _id: 's' }, { $set: { count: (seen?.count ?? 0) + 1 } }, { tx });
          } catch (err) {
            errors.push(err);
            throw err;
          }
        });
        expect(attempts).toBe(2);
        expect(errors).toHaveLength(1);
        expect(errors[0]).toBeInstanceOf(WriteConflictError);
        expect((await c.findOne({ _id: 's' }))?.count).toBe(101); // no lost update
      });

      check('inserting a unique key an open transaction holds is a write conflict; after it commits, a duplicate key', async () => {
        const c = items();
        const holder = await holdOpen(theStore(), (tx) => c.insertOne({ _id: 'h1', name: 'holder', email: 'h@example.com' }, { tx }));
        const errors: unknown[] = [];
        let committed: Promise<void> | undefined;
        const second = theStore().transaction(async (tx) => {
          try {
            await c.insertOne({ _id: 'h2', name: 'second', email: 'h@example.com' }, { tx });
          } catch (err) {
            errors.push(err);
            committed ??= holder.commit();
            throw err;
          }
        });
        await expectRejects(second, DuplicateKeyError);
        await committed;
        expect(errors[0]).toBeInstanceOf(WriteConflictError);
        expect(errors.at(-1)).toBeInstanceOf(DuplicateKeyError);
        expect(idsOf(await c.find({}))).toEqual(['h1']);
      });

      check('insert-if-new as an upsert with $setOnInsert: of two concurrent transactions one inserts, the other is run again and finds it', async () => {
        const c = items();
        const holder = await holdOpen(theStore(), (tx) => c.updateOne({ _id: 'once' }, { $setOnInsert: { name: 'first' } }, { tx, upsert: true }));
        const upserted: Array<string | null> = [];
        const errors: unknown[] = [];
        let committed: Promise<void> | undefined;
        await theStore().transaction(async (tx) => {
          try {
            const r = await c.updateOne({ _id: 'once' }, { $setOnInsert: { name: 'second' } }, { tx, upsert: true });
            upserted.push(r.upsertedId);
          } catch (err) {
            errors.push(err);
            committed ??= holder.commit();
            throw err;
          }
        });
        await committed;
        expect(errors[0]).toBeInstanceOf(WriteConflictError);
        expect(upserted).toEqual([null]); // the retry found the document: nothing inserted twice
        expect(await c.find({})).toEqual([expect.objectContaining({ _id: 'once', name: 'first' })]);
      });

      check('nothing a transaction writes is visible outside it before it commits', async () => {
        const c = items();
        await c.insertMany([
          { _id: 'v1', name: 'a', tenant: 't', count: 1 },
          { _id: 'v2', name: 'b', tenant: 't', count: 2 },
          { _id: 'v3', name: 'c', tenant: 't', count: 3 },
        ]);
        const holder = await holdOpen(theStore(), async (tx) => {
          await c.updateOne({ _id: 'v1' }, { $set: { count: 10 } }, { tx });
          await c.deleteOne({ _id: 'v2' }, { tx });
          await c.insertOne({ _id: 'v4', name: 'd', tenant: 't', count: 4 }, { tx });
          await c.updateOne({ _id: 'v3' }, { $set: { tenant: 'u' } }, { tx });
          // Its own reads see its writes.
          expect(idsOf(await c.find({ tenant: 't' }, { sort: { count: -1 }, tx }))).toEqual(['v1', 'v4']);
        });
        expect(await c.findOne({ _id: 'v1' })).toMatchObject({ count: 1 });
        expect(await c.findOne({ _id: 'v2' })).toMatchObject({ count: 2 });
        expect(await c.findOne({ _id: 'v4' })).toBeNull();
        expect(idsOf(await c.find({ tenant: 't' }, { sort: { count: -1 } }))).toEqual(['v3', 'v2', 'v1']);
        expect(idsOf(await c.find({ tenant: 't' }, { sort: { count: -1 }, skip: 1, limit: 1 }))).toEqual(['v2']);
        expect(idsOf(await c.find({ count: { $gte: 4 } }))).toEqual([]);
        expect(await c.countDocuments({ tenant: 't' })).toBe(3);
        expect(await c.countDocuments({ tenant: 'u' })).toBe(0);
        await holder.commit();
        expect(idsOf(await c.find({ tenant: 't' }, { sort: { count: -1 } }))).toEqual(['v1', 'v4']);
        expect(await c.countDocuments({ tenant: 'u' })).toBe(1);
      });

      check('a lone write to a document an open transaction holds waits for the transaction to end', async () => {
        const c = items();
        await c.insertOne({ _id: 'l', name: 'l', count: 0 });
        const holder = await holdOpen(theStore(), (tx) => c.updateOne({ _id: 'l' }, { $inc: { count: 1 } }, { tx }));
        let settled = false;
        const lone = c.updateOne({ _id: 'l' }, { $inc: { count: 10 } }).finally(() => {
          settled = true;
        });
        // Round trips to the store while the transaction is open: the lone write is still waiting.
        for (let i = 0; i < 3; i++) expect((await c.findOne({ _id: 'l' }))?.count).toBe(0);
        expect(settled).toBe(false);
        await holder.commit();
        expect(await lone).toEqual({ matchedCount: 1, modifiedCount: 1, upsertedId: null });
        expect((await c.findOne({ _id: 'l' }))?.count).toBe(11);
      });
    });
  });
}
