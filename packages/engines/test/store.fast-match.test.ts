// The embedded engine evaluates simple filter terms natively (fast-match.ts). Its answers must be
// mingo's for every document, including the values it hands back to mingo.
import { Query } from 'mingo';
import { compileFastTerm } from '../src/store/memory/fast-match';
import type { Doc } from '@vrp/platform/store';

const D1 = new Date(Date.UTC(2024, 0, 1));
const D2 = new Date(Date.UTC(2024, 5, 1));

// Values a document field can hold: every kind fast-match compares, and the ones it must not.
const VALUES: unknown[] = [
  'a',
  'b',
  'B',
  '',
  '2024-01-01',
  '10',
  0,
  -0,
  1,
  10,
  2.5,
  -3,
  NaN,
  Infinity,
  true,
  false,
  D1,
  D2,
  new Date(NaN),
  null,
  undefined,
  ['a', 'b'],
  [1, 10],
  [],
  [['a']],
  { a: 1 },
  /a/,
];

// Terms as services write them, plus ones fast-match must decline or hand back per document.
const TERMS: unknown[] = [
  'a',
  'B',
  '',
  1,
  10,
  -0,
  0,
  true,
  false,
  D1,
  NaN,
  null,
  /a/,
  ['a', 'b'],
  { a: 1 },
  { $eq: 'a' },
  { $eq: 1 },
  { $eq: D1 },
  { $eq: null },
  { $ne: 'a' },
  { $ne: 1 },
  { $ne: D2 },
  { $ne: null },
  { $in: ['a', 'b'] },
  { $in: [1, '10', true] },
  { $in: [] },
  { $in: [null, 'a'] },
  { $in: [/a/] },
  { $in: [D1] },
  { $nin: ['a'] },
  { $nin: [1, 10] },
  { $nin: [] },
  { $nin: [null] },
  { $gt: 'a' },
  { $gte: 'a', $lte: 'b' },
  { $lt: 10 },
  { $lte: 1, $gt: -5 },
  { $gt: D1 },
  { $lte: D2 },
  { $gt: true },
  { $gt: '2023-12-31', $lt: '2024-02-01' },
  { $gte: 0 },
  { $gt: null },
  { $exists: true },
  { $gt: 1, $in: [10, 2.5] },
];

describe('fast-match: native evaluation of simple filter terms', () => {
  it('agrees with mingo on every document value, for every term it accepts', () => {
    let accepted = 0;
    for (const term of TERMS) {
      const slow = new Query({ v: term });
      const fast = compileFastTerm('v', term, () => (doc) => slow.test(doc));
      if (!fast) continue;
      accepted += 1;
      for (const value of VALUES) {
        const doc: Doc = value === undefined ? { _id: 'x' } : { _id: 'x', v: value };
        const label = { term, value };
        expect({ ...label, result: fast(doc) }).toEqual({ ...label, result: slow.test(doc) });
      }
    }
    // The terms list services use most must take the native path, or this test proves nothing.
    expect(accepted).toBeGreaterThanOrEqual(25);
  });

  it('declines terms it does not evaluate: dotted or operator fields, regexps, nulls, documents', () => {
    const never = () => () => false;
    expect(compileFastTerm('a.b', 'x', never)).toBeNull();
    expect(compileFastTerm('$or', [], never)).toBeNull();
    for (const term of [/a/, null, ['a'], { a: 1 }, { $in: [null] }, { $in: [/a/] }, { $exists: true }, { $gt: true }, NaN, {}]) {
      expect({ term, fast: compileFastTerm('v', term, never) }).toEqual({ term, fast: null });
    }
  });

  it('hands the documents it cannot compare natively to mingo', () => {
    const seen: unknown[] = [];
    const fast = compileFastTerm('v', { $gte: 'a' }, () => (doc) => {
      seen.push(doc.v);
      return true;
    });
    expect(fast?.({ _id: '1', v: 'b' })).toBe(true);
    expect(fast?.({ _id: '2', v: 5 })).toBe(false); // another type never compares
    expect(fast?.({ _id: '3', v: ['a'] })).toBe(true);
    expect(fast?.({ _id: '4' })).toBe(true);
    expect(seen).toEqual([['a'], undefined]);
  });
});
