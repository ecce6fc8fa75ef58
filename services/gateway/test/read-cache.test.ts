// The request path's read cache (verified API keys, workspace plans): bounded, expiring, and a
// change evicts so that no read racing it can put the old record back.
import { ReadCache } from '../src/store/read-cache';

describe('ReadCache', () => {
  it('serves a read from the cache until its entry expires, then reads again', async () => {
    const cache = new ReadCache<string>(10);
    let now = 0;
    let loads = 0;
    const load = async () => `v${++loads}`;
    expect(await cache.read('k', 1000, () => now, load)).toBe('v1');
    now = 999;
    expect(await cache.read('k', 1000, () => now, load)).toBe('v1');
    now = 1000;
    expect(await cache.read('k', 1000, () => now, load)).toBe('v2');
  });

  it('reads every time with a TTL of 0, and never keeps a missing or unwanted record', async () => {
    const cache = new ReadCache<string>(10);
    let loads = 0;
    const twice = async (key: string, ttlMs: number, load: () => Promise<string | null>, keep?: (v: string) => boolean) => {
      await cache.read(key, ttlMs, Date.now, load, keep);
      return cache.read(key, ttlMs, Date.now, load, keep);
    };
    expect(await twice('k', 0, async () => `v${++loads}`)).toBe('v2');
    expect(await twice('missing', 1000, async () => (loads++, null))).toBeNull();
    expect(loads).toBe(4);
    expect(
      await twice(
        'revoked',
        1000,
        async () => `r${++loads}`,
        () => false,
      ),
    ).toBe('r6');
  });

  it('holds at most maxEntries, dropping the least recently used', () => {
    const cache = new ReadCache<number>(2);
    cache.set('a', 1, 100);
    cache.set('b', 2, 100);
    expect(cache.get('a', 0)).toBe(1); // a is now the most recently used
    cache.set('c', 3, 100);
    expect(cache.get('b', 0)).toBeUndefined();
    expect(cache.get('a', 0)).toBe(1);
    expect(cache.get('c', 0)).toBe(3);
  });

  it('does not let a read that started before a change put the old record back', async () => {
    const cache = new ReadCache<string>(10);
    let release!: (value: string) => void;
    const racing = cache.read('k', 60_000, Date.now, () => new Promise<string>((resolve) => (release = resolve)));
    await cache.around(
      (key) => key === 'k',
      async () => undefined,
    );
    release('old');
    expect(await racing).toBe('old');
    expect(await cache.read('k', 60_000, Date.now, async () => 'new')).toBe('new');
  });
});
