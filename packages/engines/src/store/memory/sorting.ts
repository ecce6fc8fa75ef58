// Sorted pages of the embedded store without sorting everything: the `skip + limit` best of the
// matches, kept in a bounded buffer pruned by quickselect, compared as mingo's $sort compares.
import type { Sort } from '@vrp/platform/store';
import { compareValues, sortKey, type Slot } from './ordered-index';

/**
 * The documents at [skip, skip + limit) in `sort` order, ties in insertion order (as mingo's
 * stable sort over the collection leaves them). Keys are resolved and compared with mingo's own
 * resolve / compare (what its $sort uses). Only the `skip + limit` best are kept (a bounded
 * buffer pruned by quickselect), so a page costs about one comparison per matching document.
 */
export function sortedPage(slots: Slot[], sort: Sort, skip: number, limit: number): Slot[] {
  const fields = Object.keys(sort);
  const dirs = fields.map((f) => (sort[f] === -1 ? -1 : 1));
  const keyAt = (r: Ranked, i: number): unknown => {
    const keys = r.keys;
    while (keys.length <= i) {
      const j = keys.length;
      keys.push(sortKey(r.slot.doc, fields[j] as string));
    }
    return keys[i];
  };
  const cmp = (a: Ranked, b: Ranked): number => {
    for (let i = 0; i < fields.length; i++) {
      const c = compareValues(keyAt(a, i), keyAt(b, i));
      if (c !== 0) return c * (dirs[i] as number);
    }
    return a.slot.seq - b.slot.seq;
  };

  const want = limit > 0 ? skip + limit : Infinity;
  if (want >= slots.length) {
    const all = slots.map((slot): Ranked => ({ slot, keys: [] }));
    all.sort(cmp);
    return all.slice(skip).map((r) => r.slot);
  }

  // Keep a buffer of candidates better than the current threshold; when it has twice what is
  // wanted, partition it around the want-th best (quickselect), which becomes the new threshold.
  const capacity = Math.max(2 * want, want + 256);
  const buffer: Ranked[] = [];
  let threshold: Ranked | null = null;
  const probe: Ranked = { slot: slots[0] as Slot, keys: [] };
  for (const slot of slots) {
    if (threshold) {
      probe.slot = slot;
      probe.keys = [];
      if (cmp(probe, threshold) >= 0) continue;
      buffer.push({ slot, keys: probe.keys });
    } else {
      buffer.push({ slot, keys: [] });
    }
    if (buffer.length >= capacity) {
      nthElement(buffer, want - 1, cmp);
      buffer.length = want;
      threshold = buffer[want - 1] as Ranked;
    }
  }
  buffer.sort(cmp);
  return buffer.slice(skip, want).map((r) => r.slot);
}

interface Ranked {
  slot: Slot;
  /** Sort keys resolved so far (lazily: most documents lose on the first key). */
  keys: unknown[];
}

/** Reorders `a` so that a[k] is its k-th smallest and everything before it is smaller (Hoare). */
function nthElement(a: Ranked[], k: number, cmp: (x: Ranked, y: Ranked) => number): void {
  let lo = 0;
  let hi = a.length - 1;
  const swap = (i: number, j: number): void => {
    const t = a[i] as Ranked;
    a[i] = a[j] as Ranked;
    a[j] = t;
  };
  while (hi > lo) {
    const mid = (lo + hi) >> 1;
    // Median of three as the pivot, which also guards the scans below.
    if (cmp(a[mid] as Ranked, a[lo] as Ranked) < 0) swap(mid, lo);
    if (cmp(a[hi] as Ranked, a[lo] as Ranked) < 0) swap(hi, lo);
    if (cmp(a[hi] as Ranked, a[mid] as Ranked) < 0) swap(hi, mid);
    const pivot = a[mid] as Ranked;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (cmp(a[i] as Ranked, pivot) < 0) i++;
      while (cmp(a[j] as Ranked, pivot) > 0) j--;
      if (i <= j) {
        swap(i, j);
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return;
  }
}

export const bySeq = (a: Slot, b: Slot): number => a.seq - b.seq;
