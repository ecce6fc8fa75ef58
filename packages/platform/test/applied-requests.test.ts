// The shared service-side idempotency record (applied-requests.ts) on the embedded engine: a key
// is applied once (sequentially and concurrently), answers the first result, is refused with
// another request, expires after 24 h, and is written or rolled back with its write.
import { Schema } from 'mongoose';
import { AppliedRequests, APPLIED_REQUEST_TTL_MS, requestKey } from '../src/applied-requests';
import { createMemoryStore } from '../../engines/src/store';
import type { Doc } from '../src/store/port';

type Item = Doc & { n: number };

describe('applied requests (service-side Idempotency-Key)', () => {
  let now = new Date('2030-01-01T00:00:00Z');
  const store = createMemoryStore();
  const items = store.collection<Item>({ name: 'items', schema: new Schema({ _id: String, n: Number }, { versionKey: false }) });
  const applied = new AppliedRequests(store, () => now);
  let seq = 0;

  /** A keyed write: inserts one item and remembers its id with the key, in one transaction. */
  const write = (key: string, n: number) => {
    const req = requestKey('items.create', { workspaceId: 'ws_1', idempotencyKey: key, n });
    return applied.once(
      req,
      () =>
        store.transaction(async (tx) => {
          const id = `it_${++seq}`;
          await items.insertOne({ _id: id, n }, { tx });
          await applied.remember(req, id, tx);
          return id;
        }),
      async (id) => id,
    );
  };

  afterAll(() => store.close());

  it('a retry with the key answers the first result and writes nothing', async () => {
    const first = await write('k1', 1);
    const before = await items.countDocuments({});
    expect(await write('k1', 1)).toBe(first);
    expect(await items.countDocuments({})).toBe(before);
  });

  it('concurrent requests with one key write once and all answer the same result', async () => {
    const before = await items.countDocuments({});
    const ids = await Promise.all(Array.from({ length: 8 }, () => write('k2', 2)));
    expect(new Set(ids).size).toBe(1);
    expect(await items.countDocuments({})).toBe(before + 1);
  });

  it('the same key with another request or operation is idempotency_conflict', async () => {
    await write('k3', 3);
    await expect(write('k3', 4)).rejects.toMatchObject({ code: 'idempotency_conflict' });
    const other = requestKey('items.delete', { workspaceId: 'ws_1', idempotencyKey: 'k3', n: 3 })!;
    await expect(applied.lookup(other)).rejects.toMatchObject({ code: 'idempotency_conflict' });
  });

  it('field order does not change the fingerprint; a request without a key has none', () => {
    const a = requestKey('op', { workspaceId: 'ws_1', idempotencyKey: 'k', x: 1, y: { b: 2, a: 1 } })!;
    const b = requestKey('op', { y: { a: 1, b: 2 }, x: 1, idempotencyKey: 'k', workspaceId: 'ws_1' })!;
    expect(a.fingerprint).toBe(b.fingerprint);
    expect(requestKey('op', { workspaceId: 'ws_1', idempotencyKey: '' })).toBeNull();
  });

  it('a key expires after 24 h: it is then applied again, with a new result', async () => {
    const first = await write('k4', 5);
    now = new Date(now.getTime() + APPLIED_REQUEST_TTL_MS + 1);
    const second = await write('k4', 6);
    expect(second).not.toBe(first);
    expect(await applied.purgeExpired()).toBeGreaterThan(0);
    expect(await applied.collection.findOne({ _id: 'ws_1:k4' })).toMatchObject({ result: second });
  });

  it('a write that fails leaves no key: the retry runs for real', async () => {
    const req = requestKey('items.create', { workspaceId: 'ws_1', idempotencyKey: 'k5', n: 7 });
    await expect(
      store.transaction(async (tx) => {
        await applied.remember(req, 'it_x', tx);
        throw new Error('the write failed');
      }),
    ).rejects.toThrow('the write failed');
    expect(await applied.lookup(req!)).toBeNull();
  });
});
