// The embedded store persisted to LMDB: what was acknowledged is there after a restart (same
// documents, natural order, unique indexes), a rolled-back or refused commit is not, and a disk
// that refuses writes fails the write with a 503 StoreUnavailableError and leaves memory as it was.
import { Schema } from 'mongoose';
import { AppError, storeFailureToAppError } from '@vrp/platform/errors';
import { createMemoryStore, openStorePersistence, type StorePersistence } from '../src/store';
import { DuplicateKeyError, StoreUnavailableError, type Doc, type DocumentStore } from '@vrp/platform/store';
import { tempDirs } from './temp-dirs';

interface Booking extends Doc {
  _id: string;
  workspaceId: string;
  code: string;
  nights: number;
  checkIn: Date;
  guest: { name: string; tags: string[] };
}

function bookingSchema(): Schema {
  const schema = new Schema(
    {
      _id: { type: String, required: true },
      workspaceId: { type: String, required: true },
      code: { type: String, required: true },
      nights: { type: Number, required: true, min: 1 },
      checkIn: { type: Date, required: true },
      guest: { name: String, tags: [String] },
    },
    { versionKey: false, timestamps: true },
  );
  schema.index({ workspaceId: 1, code: 1 }, { unique: true });
  schema.index({ workspaceId: 1, checkIn: 1 });
  return schema;
}

const spec = { name: 'bookings', schema: bookingSchema() };

function booking(n: number, over: Partial<Booking> = {}): Booking {
  return {
    _id: `bk_${String(n).padStart(4, '0')}`,
    workspaceId: 'ws_1',
    code: `C${n}`,
    nights: 1 + (n % 5),
    checkIn: new Date(Date.UTC(2027, 0, 1 + (n % 28))),
    guest: { name: `guest ${n}`, tags: n % 2 ? ['vip'] : [] },
    ...over,
  };
}

const dataDir = tempDirs('vrp-store-persist-');

// The retry budget of contended transactions is the store's time limit; these tests are about the
// disk, not that budget, so it is generous (a loaded 2-core machine ran 20 contenders past 2 s).
function openStore(path: string, readOnly = false): DocumentStore {
  return createMemoryStore({ timeoutMs: 30_000, persistence: openStorePersistence({ path, label: 'test store', readOnly }) });
}

describe('embedded store persisted to LMDB', () => {
  it('reads back after a restart every acknowledged write, in natural order, with its indexes', async () => {
    const path = dataDir();
    const first = openStore(path);
    const c1 = first.collection<Booking>(spec);
    await c1.insertMany([booking(3), booking(1), booking(2)]);
    await c1.insertOne(booking(4));
    await c1.updateOne({ _id: 'bk_0001' }, { $set: { nights: 9 }, $push: { 'guest.tags': 'late' } });
    await c1.deleteOne({ _id: 'bk_0002' });
    await first.transaction(async (tx) => {
      await c1.insertOne(booking(5), { tx });
      await c1.updateOne({ _id: 'bk_0003' }, { $inc: { nights: 1 } }, { tx });
    });
    const before = await c1.find({});
    await first.close();

    const second = openStore(path);
    const c2 = second.collection<Booking>(spec);
    const after = await c2.find({});
    expect(after).toEqual(before);
    expect(after.map((d) => d._id)).toEqual(['bk_0003', 'bk_0001', 'bk_0004', 'bk_0005']);
    expect(after[1]?.checkIn).toBeInstanceOf(Date);
    expect(after[1]).toMatchObject({ nights: 9, guest: { tags: ['vip', 'late'] } });
    // The unique index is rebuilt from disk, and queries use the rebuilt indexes.
    await expect(c2.insertOne(booking(6, { code: 'C4' }))).rejects.toBeInstanceOf(DuplicateKeyError);
    expect((await c2.find({ workspaceId: 'ws_1' }, { sort: { checkIn: -1 }, limit: 1 }))[0]?._id).toBe('bk_0005');
    // New documents go after the loaded ones in natural order.
    await c2.insertOne(booking(7));
    expect((await c2.find({})).map((d) => d._id).at(-1)).toBe('bk_0007');
    await second.close();
  });

  it('writes nothing of a transaction that rolls back', async () => {
    const path = dataDir();
    const first = openStore(path);
    const c1 = first.collection<Booking>(spec);
    await c1.insertOne(booking(1));
    await expect(
      first.transaction(async (tx) => {
        await c1.insertOne(booking(2), { tx });
        await c1.updateOne({ _id: 'bk_0001' }, { $set: { nights: 4 } }, { tx });
        await c1.insertOne(booking(3, { code: 'C1' }), { tx }); // duplicate code: aborts
      }),
    ).rejects.toBeInstanceOf(DuplicateKeyError);
    await first.close();

    const second = openStore(path);
    const c2 = second.collection<Booking>(spec);
    expect(await c2.find({})).toEqual([expect.objectContaining({ _id: 'bk_0001', nights: 2 })]);
    await second.close();
  });

  it('keeps what an ordered insertMany inserted before a duplicate, on disk too', async () => {
    const path = dataDir();
    const first = openStore(path);
    const c1 = first.collection<Booking>(spec);
    await expect(c1.insertMany([booking(1), booking(2), booking(3, { code: 'C1' }), booking(4)])).rejects.toBeInstanceOf(DuplicateKeyError);
    const inMemory = (await c1.find({})).map((d) => d._id);
    await first.close();
    const second = openStore(path);
    expect((await second.collection<Booking>(spec).find({})).map((d) => d._id)).toEqual(inMemory);
    expect(inMemory).toEqual(['bk_0001', 'bk_0002']);
    await second.close();
  });

  it('fails writes on a disk that refuses them with a 503 error, leaving memory and disk unchanged', async () => {
    const path = dataDir();
    const writable = openStore(path);
    await writable.collection<Booking>(spec).insertMany([booking(1), booking(2)]);
    await writable.close();

    const readOnly = openStore(path, true);
    const c = readOnly.collection<Booking>(spec);
    // Sorted: undoing a delete in memory puts the document back last in natural order.
    const all = () => c.find({}, { sort: { _id: 1 } });
    const before = await all();
    const refused = await c.insertOne(booking(3)).then(
      () => null,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(StoreUnavailableError);
    // Mapped like every store failure (errors/store-failures.ts): 503 service_unavailable.
    const answer = storeFailureToAppError(refused);
    expect(answer).toBeInstanceOf(AppError);
    expect(answer?.code).toBe('service_unavailable');
    expect(answer?.httpStatus).toBe(503);
    await expect(c.updateOne({ _id: 'bk_0001' }, { $set: { nights: 5 } })).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(c.deleteMany({})).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(
      readOnly.transaction(async (tx) => {
        await c.insertOne(booking(4), { tx });
        await c.updateOne({ _id: 'bk_0002' }, { $set: { nights: 3 } }, { tx });
      }),
    ).rejects.toBeInstanceOf(StoreUnavailableError);
    // Nothing of the refused writes is visible, and the unique index does not hold their keys.
    expect(await all()).toEqual(before);
    expect(await c.countDocuments({ workspaceId: 'ws_1' })).toBe(2);
    await readOnly.close();

    const reopened = openStore(path);
    const c2 = reopened.collection<Booking>(spec);
    expect(await c2.find({})).toEqual(before);
    await c2.insertOne(booking(3)); // the key of the refused insert is free
    await reopened.close();
  });

  it('with concurrent writers, commits reach the disk in commit order and nothing is visible or changeable before it is on disk', async () => {
    const path = dataDir();
    const first = openStore(path);
    const c = first.collection<Booking>(spec);
    await c.insertMany([booking(1, { nights: 1 }), booking(2, { nights: 1 })]);
    // Lone writes and transactions on the same documents, all in flight together: each one
    // owns what it wrote until it is on disk, so none is lost and the disk ends as memory does.
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < 20; i++) {
      writes.push(c.updateOne({ _id: 'bk_0001' }, { $inc: { nights: 1 } }));
      writes.push(
        first.transaction(async (tx) => {
          const doc = await c.findOne({ _id: 'bk_0002' }, { tx });
          await c.updateOne({ _id: 'bk_0002' }, { $set: { nights: (doc?.nights ?? 0) + 1 } }, { tx });
          await c.updateOne({ _id: 'bk_0001' }, { $inc: { nights: 1 } }, { tx });
        }),
      );
    }
    await Promise.all(writes);
    // A lone write is not visible before it is on disk: once it has applied in memory (a turn
    // of the event loop) but before LMDB has flushed it, readers still see the version before it.
    const pending = c.updateOne({ _id: 'bk_0002' }, { $set: { code: 'NEW' } });
    await new Promise((resolve) => setImmediate(resolve));
    expect((await c.findOne({ _id: 'bk_0002' }))?.code).toBe('C2');
    await pending;
    expect((await c.findOne({ _id: 'bk_0002' }))?.code).toBe('NEW');
    const inMemory = await c.find({}, { sort: { _id: 1 } });
    expect(inMemory.map((d) => d.nights)).toEqual([41, 21]);
    await first.close();

    const second = openStore(path);
    expect(await second.collection<Booking>(spec).find({}, { sort: { _id: 1 } })).toEqual(inMemory);
    await second.close();
  });

  it('acknowledges an unjournaled lone write before the disk has it, and queues it ahead of the journaled writes made after it', async () => {
    // A disk whose writes complete only when the test lets them: what reached it, in order.
    const queued: { ids: string[]; done: () => void }[] = [];
    const disk: StorePersistence = {
      load: () => [],
      write: (changes) => new Promise<void>((resolve) => queued.push({ ids: changes.map((ch) => ch.id), done: resolve })),
      close: async () => undefined,
    };
    const store = createMemoryStore({ timeoutMs: 30_000, persistence: disk });
    const c = store.collection<Booking>(spec);

    await c.insertOne(booking(1), { journal: false });
    expect(queued.map((q) => q.ids)).toEqual([['bk_0001']]);
    expect((await c.findOne({ _id: 'bk_0001' }))?.code).toBe('C1'); // visible although not on disk
    await c.updateOne({ _id: 'bk_0001' }, { $set: { nights: 4 } }, { journal: false }); // not held by the write before it

    // A journaled write is acknowledged only once its own disk write completes; it was queued behind.
    let journaled = false;
    const write = c.insertOne(booking(2)).then(() => (journaled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(queued.map((q) => q.ids)).toEqual([['bk_0001'], ['bk_0001'], ['bk_0002']]);
    expect(journaled).toBe(false);
    expect(await c.findOne({ _id: 'bk_0002' })).toBeNull();
    queued[2]!.done();
    await write;
    expect(journaled).toBe(true);

    // In a transaction the option changes nothing: the commit waits for the disk.
    let committed = false;
    const tx = store.transaction((t) => c.insertOne(booking(3), { tx: t, journal: false })).then(() => (committed = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(committed).toBe(false);
    queued[3]!.done();
    await tx;
    expect(committed).toBe(true);
    await store.close();
  });

  it('writes unjournaled lone writes to LMDB in commit order: a restart after a clean stop finds them', async () => {
    const path = dataDir();
    const first = openStore(path);
    const c = first.collection<Booking>(spec);
    await c.insertOne(booking(1), { journal: false });
    await c.updateOne({ _id: 'bk_0001' }, { $set: { nights: 4 } }, { journal: false });
    await c.insertOne(booking(2), { journal: false });
    await c.deleteOne({ _id: 'bk_0002' }, { journal: false });
    await first.close(); // waits for every queued write

    const second = openStore(path);
    expect(await second.collection<Booking>(spec).find({})).toEqual([expect.objectContaining({ _id: 'bk_0001', nights: 4 })]);
    await second.close();
  });
});
