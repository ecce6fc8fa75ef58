// Identifiers: random base58 (ids, API keys and webhook secrets are made of it) and sortable ids.
import { newId, randomBase58, sortableId, sortableIdAfter } from '../src/ids';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

describe('ids', () => {
  it('draws base58 of the asked length, every character about equally often, never repeating an id (across refills of the random pool)', () => {
    const counts = new Map<string, number>();
    const seen = new Set<string>();
    // 20,000 ids of 20 characters use about 430 KiB of random bytes: a hundred refills of the pool.
    for (let i = 0; i < 20_000; i++) {
      const id = randomBase58(20);
      expect(id).toMatch(/^[1-9A-HJ-NP-Za-km-z]{20}$/);
      seen.add(id);
      for (const ch of id) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    }
    expect(seen.size).toBe(20_000);
    expect([...counts.keys()].sort().join('')).toBe([...BASE58].sort().join(''));
    // Chi-square over 58 characters (57 degrees of freedom): 100 is beyond its 0.9995 quantile, so
    // a biased alphabet (e.g. without the rejection of bytes >= 232) fails while a fair one passes.
    const expected = (20_000 * 20) / 58;
    const chi2 = [...counts.values()].reduce((s, n) => s + (n - expected) ** 2 / expected, 0);
    expect(chi2).toBeLessThan(100);
    expect(randomBase58(0)).toBe('');
    expect(randomBase58(5000)).toHaveLength(5000);
  });

  it('prefixes ids, and sortable ids sort in creation order, also after a floor from a clock ahead', () => {
    expect(newId('res')).toMatch(/^res_[1-9A-HJ-NP-Za-km-z]{20}$/);
    const ids = Array.from({ length: 500 }, () => sortableId('obx'));
    expect([...ids].sort()).toEqual(ids);
    const ahead = `obx_${(Date.now() + 60_000).toString(36).padStart(9, '0')}0005abcdef`;
    const after = sortableIdAfter('obx', ahead);
    expect(after > ahead).toBe(true);
    expect(after.slice(0, 13 + 4)).toBe(`${ahead.slice(0, 13)}0006`);
  });
});
