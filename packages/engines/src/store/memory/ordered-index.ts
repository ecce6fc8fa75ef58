// Ordered indexes of the embedded engine: a schema index {a, b, c} read as "documents with equal
// a (and b) kept sorted by the remaining fields", the way MongoDB walks an index to serve a sort.
//
// A sorted page over a large collection otherwise has to look at every match to find the first
// `skip + limit` (see sortedPage in sorting.ts). With an ordered index whose equality prefix the
// filter pins and whose remaining fields are exactly the sort, the page is the first matches of a
// walk in index order: `GET /v1/reservations` over 100,000 reservations costs the documents it
// shows, not the whole workspace. Ties are broken by insertion order (`seq`), exactly as
// sortedPage breaks them, so both paths return the same page. An index that orders by the first
// sort fields only serves too: its walk yields groups of equal leading keys in order, and only
// the groups up to the page are sorted by the rest.
//
// An ordered index is built on the first query that can use it (schema indexes that no sorted
// query reads cost nothing) and kept current by every write after that.
import { kindOf } from './fast-match';
import type { Doc, Sort } from '@vrp/platform/store';
import { samePlainValue, scalarKey } from '../shared';

/* eslint-disable @typescript-eslint/no-require-imports */
const { compare: mingoCompare, resolve: mingoResolve } = require('mingo/util') as typeof import('mingo/types/util');
/* eslint-enable @typescript-eslint/no-require-imports */

/**
 * A stored document, its place in the natural (insertion) order, and the store's commit number
 * of its last committed version (the memory engine's snapshot rule reads it).
 */
export interface Slot {
  doc: Doc;
  readonly seq: number;
  version: number;
}

/** The value a sort reads at `field`, as mingo's $sort resolves it. */
export function sortKey(doc: Doc, field: string): unknown {
  if (!field.includes('.') && field !== '__proto__') return Object.hasOwn(doc, field) ? doc[field] : undefined;
  return mingoResolve(doc, field);
}

/** mingo's compare, with its result for two strings or two numbers computed inline. */
export function compareValues(a: unknown, b: unknown): number {
  const type = typeof a;
  if (type === typeof b && (type === 'string' || type === 'number')) {
    return (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0;
  }
  return mingoCompare(a, b);
}

export interface Entry {
  slot: Slot;
  /** The sort keys of the document version this entry was made from. */
  keys: unknown[];
}

/** Pending inserts beyond this many are sorted and merged in one pass instead of one by one. */
const MERGE_THRESHOLD = 32;

export class OrderedIndex {
  readonly order: string[];
  private readonly dirs: number[];
  private built = false;
  private readonly buckets = new Map<string, Entry[]>();
  /** Inserted since the last read, per bucket: merged in when the bucket is next read. */
  private readonly pending = new Map<string, Map<Slot, Entry>>();
  /**
   * Documents whose prefix value is an array: equality matches them through any element, which a
   * single bucket cannot express, so the index declines every query while there are any.
   */
  private multikey = 0;
  /**
   * Entries with an array or NaN among their sort keys: mingo compares arrays by their elements
   * and NaN equal to everything, which is no total order to keep a sorted array by, so the index
   * declines every query while there are any.
   */
  private irregular = 0;

  constructor(
    readonly prefix: string[],
    sort: Sort,
  ) {
    this.order = Object.keys(sort);
    this.dirs = this.order.map((f) => (sort[f] === -1 ? -1 : 1));
  }

  /**
   * How many leading fields of `sort` this index's order follows (same fields, same directions).
   * When that is all of both, a walk in index order is the sort, ties included; when it is fewer,
   * a walk yields groups in sort order, each still to be sorted by the rest.
   */
  servedFields(sort: Sort): number {
    const fields = Object.keys(sort);
    let n = 0;
    while (n < fields.length && n < this.order.length && fields[n] === this.order[n] && (sort[fields[n] as string] === -1 ? -1 : 1) === this.dirs[n]) n++;
    return n;
  }

  /**
   * The documents of the bucket the pinned prefix values name, in sort order, or null when the
   * index cannot answer (a prefix field not pinned to one plain value, or multikey documents).
   */
  walk(pinned: Map<string, unknown[]>, all: Iterable<Slot>): readonly Entry[] | null {
    const key = this.pinnedKey(pinned);
    if (key === undefined) return null;
    if (!this.built) this.build(all);
    if (this.multikey > 0 || this.irregular > 0) return null;
    this.flush(key);
    return this.buckets.get(key) ?? [];
  }

  get isBuilt(): boolean {
    return this.built;
  }

  /**
   * True when `filter` is exactly the prefix pinned to one value per field: then every entry of
   * the bucket matches it (bucket keys are equality, and multikey documents disable the index).
   */
  isExactly(filter: Record<string, unknown>, pinned: Map<string, unknown[]>): boolean {
    const fields = Object.keys(filter);
    return fields.length === this.prefix.length && fields.every((f) => this.prefix.includes(f) && isPureEquality(filter[f])) && this.pins(pinned);
  }

  /** True when the filter pins every prefix field to one value (so `walk` can be asked). */
  pins(pinned: Map<string, unknown[]>): boolean {
    return this.pinnedKey(pinned) !== undefined;
  }

  /**
   * The part [from, to) of a walked bucket whose first sort key lies within `range`: a superset of
   * the entries a range term on that field matches.
   */
  within(bucket: readonly Entry[], range: Range): [number, number] {
    const dir = this.dirs[0] as number;
    // In descending order the upper bound comes first.
    const first = dir === 1 ? range.lower : range.upper;
    const last = dir === 1 ? range.upper : range.lower;
    const from = first ? this.boundary(bucket, first.value, first.inclusive ? 'before' : 'after') : 0;
    const to = last ? this.boundary(bucket, last.value, last.inclusive ? 'after' : 'before') : bucket.length;
    return [from, Math.max(from, to)];
  }

  /** The first position whose first key sorts after `value` ('after'), or not before it ('before'). */
  private boundary(bucket: readonly Entry[], value: unknown, side: 'before' | 'after'): number {
    const dir = this.dirs[0] as number;
    let lo = 0;
    let hi = bucket.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const c = compareValues((bucket[mid] as Entry).keys[0], value) * dir;
      if (c < 0 || (c === 0 && side === 'after')) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private pinnedKey(pinned: Map<string, unknown[]>): string | undefined {
    const parts: unknown[] = [];
    for (const field of this.prefix) {
      const values = pinned.get(field);
      if (!values || values.length !== 1) return undefined;
      parts.push(values[0]);
    }
    return bucketKey(parts);
  }

  /** Keeps a built index current: `prev` and `next` are the versions before and after a write. */
  update(slot: Slot, prev: Doc | undefined, next: Doc | undefined): void {
    if (!this.built) return;
    // An update that leaves the bucket and every sort key as they were leaves the entry where it
    // is (its slot holds the new version): most updates change fields this index does not order
    // by, and a remove + add costs a search and a splice of the bucket.
    if (prev && next && this.sameEntry(prev, next)) return;
    if (prev) this.remove(slot, prev);
    if (next) this.add(slot, next);
  }

  /** The entry's sort keys; a missing field sorts as null, as mingo's $sort has it. */
  private sortKeys(doc: Doc): unknown[] {
    return this.order.map((f) => sortKey(doc, f) ?? null);
  }

  private sameEntry(prev: Doc, next: Doc): boolean {
    for (const field of this.prefix) if (!samePlainValue(sortKey(prev, field), sortKey(next, field))) return false;
    for (const field of this.order) if (!samePlainValue(sortKey(prev, field), sortKey(next, field))) return false;
    return true;
  }

  private build(all: Iterable<Slot>): void {
    this.built = true;
    for (const slot of all) this.add(slot, slot.doc);
  }

  private keyOf(doc: Doc): string | undefined | 'multikey' {
    const parts: unknown[] = [];
    for (const field of this.prefix) {
      const value = sortKey(doc, field);
      if (Array.isArray(value)) return 'multikey';
      parts.push(value);
    }
    return bucketKey(parts);
  }

  private add(slot: Slot, doc: Doc): void {
    const key = this.keyOf(doc);
    if (key === 'multikey') this.multikey += 1;
    if (key === undefined || key === 'multikey') return; // no pinned equality can match it
    const entry: Entry = { slot, keys: this.sortKeys(doc) };
    if (entry.keys.some(isIrregular)) this.irregular += 1;
    const waiting = this.pending.get(key);
    if (waiting) waiting.set(slot, entry);
    else this.pending.set(key, new Map([[slot, entry]]));
  }

  private remove(slot: Slot, doc: Doc): void {
    const key = this.keyOf(doc);
    if (key === 'multikey') this.multikey -= 1;
    if (key === undefined || key === 'multikey') return;
    if (this.order.some((f) => isIrregular(sortKey(doc, f)))) this.irregular -= 1;
    // Keyed by slot: a bucket no query reads keeps its inserts pending, and finding one there by
    // a scan cost as much as the bucket's backlog on every update (the webhook queue).
    const waiting = this.pending.get(key);
    if (waiting?.delete(slot)) {
      if (waiting.size === 0) this.pending.delete(key);
      return;
    }
    const bucket = this.buckets.get(key);
    if (!bucket) return;
    const probe: Entry = { slot, keys: this.sortKeys(doc) };
    const i = this.lowerBound(bucket, probe);
    if (bucket[i]?.slot === slot) bucket.splice(i, 1);
    else {
      // Not where its keys say (a document mutated in place): find it the slow way.
      const j = bucket.findIndex((e) => e.slot === slot);
      if (j >= 0) bucket.splice(j, 1);
    }
    if (bucket.length === 0) this.buckets.delete(key);
  }

  private flush(key: string): void {
    const pending = this.pending.get(key);
    if (!pending) return;
    this.pending.delete(key);
    const waiting = [...pending.values()];
    const bucket = this.buckets.get(key) ?? [];
    if (waiting.length < MERGE_THRESHOLD) {
      for (const entry of waiting) bucket.splice(this.lowerBound(bucket, entry), 0, entry);
      this.buckets.set(key, bucket);
      return;
    }
    waiting.sort(this.compare);
    const merged: Entry[] = new Array(bucket.length + waiting.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < bucket.length && j < waiting.length) {
      merged[k++] = this.compare(bucket[i] as Entry, waiting[j] as Entry) <= 0 ? (bucket[i++] as Entry) : (waiting[j++] as Entry);
    }
    while (i < bucket.length) merged[k++] = bucket[i++] as Entry;
    while (j < waiting.length) merged[k++] = waiting[j++] as Entry;
    this.buckets.set(key, merged);
  }

  /** The first position whose entry does not sort before `entry`. */
  private lowerBound(bucket: Entry[], entry: Entry): number {
    let lo = 0;
    let hi = bucket.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.compare(bucket[mid] as Entry, entry) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private readonly compare = (a: Entry, b: Entry): number => {
    for (let i = 0; i < this.dirs.length; i++) {
      const c = compareValues(a.keys[i], b.keys[i]);
      if (c !== 0) return c * (this.dirs[i] as number);
    }
    return a.slot.seq - b.slot.seq;
  };
}

/** `v`, `{ $eq: v }` or `{ $in: [v] }` for a plain value, and nothing else alongside. */
function isPureEquality(term: unknown): boolean {
  if (scalarKey(term) !== undefined) return true;
  if (term === null || typeof term !== 'object' || Object.getPrototypeOf(term) !== Object.prototype) return false;
  const ops = Object.keys(term);
  if (ops.length !== 1) return false;
  const { $eq, $in } = term as { $eq?: unknown; $in?: unknown };
  if (ops[0] === '$eq') return scalarKey($eq) !== undefined;
  return ops[0] === '$in' && Array.isArray($in) && $in.length === 1 && scalarKey($in[0]) !== undefined;
}

const isIrregular = (value: unknown): boolean =>
  Array.isArray(value) || (typeof value === 'number' && Number.isNaN(value)) || (value instanceof Date && Number.isNaN(value.getTime()));

/** Bounds a filter puts on one field, from `$gt`, `$gte`, `$lt`, `$lte` or an equality. */
export interface Range {
  lower?: { value: unknown; inclusive: boolean };
  upper?: { value: unknown; inclusive: boolean };
}

/**
 * Field -> the range its top-level term bounds it to, for bounds of one plain kind (string,
 * number or date; mingo only compares values of the same type). Other operators in the same term
 * are left to the matcher: the range is a superset of what the term matches.
 */
export function rangeTerms(filter: Record<string, unknown>): Map<string, Range> {
  const out = new Map<string, Range>();
  for (const field of Object.keys(filter)) {
    if (field.startsWith('$')) continue;
    const term = filter[field];
    const range: Range = {};
    if (boundKind(term) !== null) {
      range.lower = { value: term, inclusive: true };
      range.upper = { value: term, inclusive: true };
    } else if (term !== null && typeof term === 'object' && Object.getPrototypeOf(term) === Object.prototype) {
      const ops = term as Record<string, unknown>;
      const kinds = new Set<string>();
      for (const [op, side, inclusive] of [
        ['$gt', 'lower', false],
        ['$gte', 'lower', true],
        ['$lt', 'upper', false],
        ['$lte', 'upper', true],
        ['$eq', 'both', true],
      ] as const) {
        if (!(op in ops)) continue;
        const kind = boundKind(ops[op]);
        if (kind === null) continue;
        kinds.add(kind);
        const bound = { value: ops[op], inclusive };
        // Two bounds on one side: keep either; the matcher applies both.
        if (side !== 'upper') range.lower ??= bound;
        if (side !== 'lower') range.upper ??= bound;
      }
      if (kinds.size !== 1) continue;
    }
    if (range.lower || range.upper) out.set(field, range);
  }
  return out;
}

/** The kind of a range bound: a string, number or date (mingo only compares values of one kind). */
function boundKind(value: unknown): string | null {
  const kind = kindOf(value);
  return kind === 'boolean' ? null : kind;
}

/** One bucket per combination of prefix values; undefined when a value cannot be pinned by equality. */
function bucketKey(parts: unknown[]): string | undefined {
  let key = '';
  for (const value of parts) {
    // Null and missing share a bucket: `{ f: null }` matches both (equality-index.ts withNullTerms).
    const part = value === null || value === undefined ? 'N' : scalarKey(value);
    if (part === undefined) return undefined;
    key += `${part}\u0000`;
  }
  return key;
}

/** The ordered indexes a schema index offers: each split into a pinned prefix and a sort. */
export function orderedIndexes(specs: Record<string, unknown>[]): OrderedIndex[] {
  const out: OrderedIndex[] = [];
  const seen = new Set<string>();
  for (const spec of specs) {
    const fields = Object.keys(spec);
    if (!fields.every((f) => spec[f] === 1 || spec[f] === -1) || fields.some((f) => f.includes('$'))) continue;
    for (let k = 1; k < fields.length; k++) {
      const prefix = fields.slice(0, k);
      const sort: Sort = {};
      for (const f of fields.slice(k)) sort[f] = spec[f] as 1 | -1;
      const id = JSON.stringify([prefix, sort]);
      if (seen.has(id)) continue;
      seen.add(id);
      out.push(new OrderedIndex(prefix, sort));
    }
  }
  return out;
}
