// The write lease of store/lease.ts on the embedded engine: one holder at a time, a waiting
// writer gets it once released, an expired lease is taken over, and a missing document is null.
import { Schema } from 'mongoose';
import { acquireLease, LEASE_FIELDS, releaseLease } from '../src/store/lease';
import { createMemoryStore } from '../../engines/src/store';
import type { Doc } from '../src/store/port';

type Item = Doc & { n: number; leaseToken?: string; leaseUntil?: Date | null };

describe('write lease', () => {
  const store = createMemoryStore();
  const items = store.collection<Item>({ name: 'items', schema: new Schema({ _id: String, n: Number, ...LEASE_FIELDS }, { versionKey: false }) });

  beforeAll(async () => {
    await items.insertOne({ _id: 'a', n: 0 });
  });
  afterAll(() => store.close());

  it('serializes holders: a second writer waits until the first releases with its write', async () => {
    const first = await acquireLease(items, { _id: 'a' });
    expect(first).not.toBeNull();
    let secondHasIt = false;
    const second = acquireLease(items, { _id: 'a' }).then((l) => {
      secondHasIt = true;
      return l;
    });
    // The first holder's write checks the lease and releases it in the same update.
    await new Promise((resolve) => setImmediate(resolve));
    expect(secondHasIt).toBe(false);
    const written = await items.updateOne({ _id: 'a', ...first!.held }, { $set: { n: 1, ...first!.release } });
    expect(written.matchedCount).toBe(1);
    const lease = await second;
    expect(lease!.token).not.toBe(first!.token);
    // The first holder's token no longer writes.
    expect((await items.updateOne({ _id: 'a', ...first!.held }, { $set: { n: 99 } })).matchedCount).toBe(0);
    await releaseLease(items, { _id: 'a' }, lease!);
    expect((await items.findOne({ _id: 'a' }))!.leaseToken).toBe('');
  });

  it('takes over a lease whose holder died (expired), and gives up with 409 conflict while a live holder keeps it', async () => {
    let now = new Date('2030-01-01T00:00:00Z');
    const dead = await acquireLease(items, { _id: 'a' }, { now: () => now, ttlMs: 1000 });
    await expect(acquireLease(items, { _id: 'a' }, { now: () => now, waitMs: 30 })).rejects.toMatchObject({ code: 'conflict' });
    now = new Date(now.getTime() + 1001);
    const next = await acquireLease(items, { _id: 'a' }, { now: () => now });
    expect(next!.token).not.toBe(dead!.token);
    await releaseLease(items, { _id: 'a' }, next!);
  });

  it('is null for a document that does not exist', async () => {
    expect(await acquireLease(items, { _id: 'missing' })).toBeNull();
  });
});
