// The store-backed limiter (rate-limiter-flexible over the gateway's own store), which gateways on
// MongoDB use so that every replica counts against the same documents. The embedded stack counts
// in memory instead (middleware/rate-limit.ts), so this limiter is tested here on its own, over
// the embedded store's engine, which evaluates the very same filter and update documents.
import { RateLimiterRes } from 'rate-limiter-flexible';
import { createMemoryStore } from '@vrp/engines/store';
import type { DocumentStore } from '@vrp/platform/store';
import { RateLimiterDocumentStore, rateLimitCounters } from '../src/store/rate-limit-store';

const outcome = (p: Promise<RateLimiterRes>) =>
  p.then(
    () => 'admitted' as const,
    (err: unknown) => {
      if (err instanceof RateLimiterRes) return 'refused' as const;
      throw err;
    },
  );

describe('the store-backed rate limiter', () => {
  let store: DocumentStore;
  beforeEach(async () => {
    store = createMemoryStore();
    await store.init();
  });
  afterEach(() => store.close());

  const limiter = (points: number, duration: number, keyPrefix = 'rl:test') =>
    new RateLimiterDocumentStore({ counters: rateLimitCounters(store), keyPrefix, points, duration });

  it('admits the window’s points and refuses the next one, with what is left and when it resets', async () => {
    const rl = limiter(3, 60);
    const first = await rl.consume('k');
    expect(first.remainingPoints).toBe(2);
    expect(first.msBeforeNext).toBeGreaterThan(59_000);
    await rl.consume('k');
    await rl.consume('k');
    const refused = await rl.consume('k').catch((r: unknown) => r);
    expect(refused).toBeInstanceOf(RateLimiterRes);
    expect((refused as RateLimiterRes).remainingPoints).toBe(0);
    // Another key has its own counter.
    expect(await outcome(rl.consume('other'))).toBe('admitted');
  });

  it('admits exactly the points among concurrent first requests (the unique counter decides races)', async () => {
    const rl = limiter(5, 60);
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => outcome(rl.consume('race'))));
    expect(outcomes.filter((o) => o === 'admitted')).toHaveLength(5);
  });

  it('two limiters over one store (two replicas) share the counter', async () => {
    const a = limiter(4, 60);
    const b = limiter(4, 60);
    const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => outcome((i % 2 ? a : b).consume('shared'))));
    expect(outcomes.filter((o) => o === 'admitted')).toHaveLength(4);
  });

  it('starts a new window over a counter whose window has passed', async () => {
    const counters = rateLimitCounters(store);
    await counters.insertOne({ _id: 'rl:test:late', points: 99, expire: new Date(Date.now() - 1000) });
    const res = await limiter(3, 60).consume('late');
    expect(res.consumedPoints).toBe(1);
    expect((await counters.findOne({ _id: 'rl:test:late' }))?.points).toBe(1);
  });
});
