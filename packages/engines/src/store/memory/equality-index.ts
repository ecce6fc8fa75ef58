// Equality indexes of the embedded store (candidate narrowing only): for the leading field(s) of
// each schema index, the documents per scalar value, so a filter that pins those fields reads a
// superset of its matches, which the filter then checks.
import type { Schema } from 'mongoose';
import type { Doc, Filter } from '@vrp/platform/store';
import { isPlainObject, samePlainFields, scalarKey } from '../shared';
import type { AnyObject } from './evaluation';
import type { Slot } from './ordered-index';

/**
 * How many leading fields of each schema index get an equality index. The first field is the
 * index's natural lookup; the second matters when every index leads with the same field (a
 * tenant id), where the first field alone narrows nothing inside one tenant.
 */
const EQUALITY_PREFIX_FIELDS = 2;

/** Adds the scalar keys at `parts` (from `i`) under `value`: arrays at any depth are multikey. */
function collectScalarKeys(value: unknown, parts: readonly string[], i: number, out: string[]): void {
  if (Array.isArray(value)) {
    for (const item of value) collectScalarKeys(item, parts, i, out);
    return;
  }
  if (i === parts.length) {
    const key = scalarKey(value);
    if (key !== undefined) out.push(key);
    return;
  }
  if (value === null || typeof value !== 'object' || value instanceof Date) return;
  collectScalarKeys((value as AnyObject)[parts[i] as string], parts, i + 1, out);
}

/** Values a filter term pins a field to, when they are all scalars: `v`, `{ $eq: v }`, `{ $in: [...] }`. */
function equalityValues(term: unknown): unknown[] | null {
  if (scalarKey(term) !== undefined) return [term];
  if (!isPlainObject(term)) return null;
  const ops = Object.keys(term);
  if (ops.length === 0 || !ops.every((op) => op.startsWith('$'))) return null; // a literal sub-document
  if ('$eq' in term && scalarKey(term.$eq) !== undefined) return [term.$eq];
  const list = term.$in;
  if (Array.isArray(list) && list.every((v) => scalarKey(v) !== undefined)) return list;
  return null;
}

/** Field -> pinned values, from the top level of a filter and from its `$and` clauses. */
export function equalityTerms(filter: Filter, out: Map<string, unknown[]> = new Map()): Map<string, unknown[]> {
  for (const field of Object.keys(filter)) {
    const term = filter[field];
    if (field === '$and') {
      if (Array.isArray(term)) for (const clause of term) if (isPlainObject(clause)) equalityTerms(clause, out);
      continue;
    }
    if (field.startsWith('$') || out.has(field)) continue;
    const values = equalityValues(term);
    if (values) out.set(field, values);
  }
  return out;
}

/**
 * `terms` plus the top-level fields `filter` pins to null (`{ f: null }`, `{ f: { $eq: null } }`),
 * which match a null or a missing field (or an array holding null: ordered indexes decline while
 * they hold arrays). Only ordered indexes read these; equality indexes keep scalars only.
 */
export function withNullTerms(filter: Filter, terms: Map<string, unknown[]>): Map<string, unknown[]> {
  let out = terms;
  for (const field of Object.keys(filter)) {
    if (field.startsWith('$') || terms.has(field)) continue;
    const term = filter[field];
    const isNull = term === null || (isPlainObject(term) && Object.keys(term).length === 1 && term.$eq === null);
    if (!isNull) continue;
    if (out === terms) out = new Map(terms);
    out.set(field, [null]);
  }
  return out;
}

/** Documents per key; a key held by one document stores its slot alone (most keys of a selective index). */
type Bucket = Slot | Set<Slot>;

/**
 * Built on the first lookup that can use it, from the collection's documents at that moment, and
 * kept up to date from then on: an index no filter pins costs neither memory nor time on writes
 * and on a reload (a collection's schema indexes lead to one such index per leading-field list,
 * most of which serve ranges and sorts, not equality lookups).
 */
export class EqualityIndex {
  readonly fields: string[];
  private readonly parts: string[][];
  private readonly buckets = new Map<string, Bucket>();
  private built = false;

  constructor(fields: string[]) {
    this.fields = fields;
    this.parts = fields.map((f) => f.split('.'));
  }

  /** Keys of a document: one per combination of its (multikey) values; none if a field has none. */
  keysOf(doc: Doc): string[] {
    let keys: string[] = [];
    for (let f = 0; f < this.parts.length; f++) {
      let values: string[] = [];
      collectScalarKeys(doc, this.parts[f] as string[], 0, values);
      if (values.length === 0) return [];
      if (values.length > 1) values = [...new Set(values)];
      keys = f === 0 ? values : keys.flatMap((k) => values.map((v) => `${k}\u0000${v}`));
    }
    return keys;
  }

  /**
   * Keys a lookup reads, or null when the filter does not pin every field of this index. The
   * index is built first (from `all`, the collection's documents) when it is not yet.
   */
  lookupKeys(terms: Map<string, unknown[]>, all: Iterable<Slot>): string[] | null {
    let keys: string[] = [''];
    for (let f = 0; f < this.fields.length; f++) {
      const values = terms.get(this.fields[f] as string);
      if (!values) return null;
      const encoded = [...new Set(values.map((v) => scalarKey(v) as string))];
      keys = f === 0 ? encoded : keys.flatMap((k) => encoded.map((v) => `${k}\u0000${v}`));
    }
    if (!this.built) this.build(all);
    return keys;
  }

  private build(all: Iterable<Slot>): void {
    this.built = true;
    for (const slot of all) for (const key of this.keysOf(slot.doc)) this.add(key, slot);
  }

  size(key: string): number {
    const bucket = this.buckets.get(key);
    return bucket === undefined ? 0 : bucket instanceof Set ? bucket.size : 1;
  }

  slots(key: string): Iterable<Slot> {
    const bucket = this.buckets.get(key);
    return bucket === undefined ? [] : bucket instanceof Set ? bucket : [bucket];
  }

  update(slot: Slot, prev: Doc | undefined, next: Doc | undefined): void {
    if (!this.built || (prev && next && this.unchanged(prev, next))) return;
    const before = prev ? this.keysOf(prev) : [];
    const after = next ? this.keysOf(next) : [];
    if (before.length === 0 || after.length === 0) {
      for (const key of before) this.remove(key, slot);
      for (const key of after) this.add(key, slot);
      return;
    }
    if (before.length === 1 && after.length === 1) {
      if (before[0] !== after[0]) {
        this.remove(before[0] as string, slot);
        this.add(after[0] as string, slot);
      }
      return;
    }
    const kept = new Set(after);
    const had = new Set(before);
    for (const key of before) if (!kept.has(key)) this.remove(key, slot);
    for (const key of after) if (!had.has(key)) this.add(key, slot);
  }

  /**
   * True when every field of the index is a top-level field holding the same plain value in both
   * versions (samePlainValue): their keys are the same, so an update that leaves them (most do)
   * skips computing them twice. Anything else is compared by its keys.
   */
  private unchanged(prev: Doc, next: Doc): boolean {
    return samePlainFields(this.parts, prev, next);
  }

  private add(key: string, slot: Slot): void {
    const bucket = this.buckets.get(key);
    if (bucket === undefined) this.buckets.set(key, slot);
    else if (bucket instanceof Set) bucket.add(slot);
    else if (bucket !== slot) this.buckets.set(key, new Set([bucket, slot]));
  }

  private remove(key: string, slot: Slot): void {
    const bucket = this.buckets.get(key);
    if (bucket === undefined) return;
    if (!(bucket instanceof Set)) {
      if (bucket === slot) this.buckets.delete(key);
      return;
    }
    bucket.delete(slot);
    if (bucket.size === 1) this.buckets.set(key, bucket.values().next().value as Slot);
    else if (bucket.size === 0) this.buckets.delete(key);
  }
}

/** One equality index per distinct leading-field list of the schema's indexes. */
export function equalityIndexes(schema: Schema): EqualityIndex[] {
  const byFields = new Map<string, EqualityIndex>();
  for (const [spec] of schema.indexes()) {
    const paths = Object.keys(spec);
    for (let n = 1; n <= Math.min(EQUALITY_PREFIX_FIELDS, paths.length); n++) {
      const fields = paths.slice(0, n);
      // `_id` lookups use the primary map; `$**`, numeric segments: not plain field paths.
      if (fields.some((f) => f === '_id' || f.includes('$') || f.split('.').some((p) => p === '' || /^\d+$/.test(p)))) break;
      const id = fields.join('\u0000');
      if (!byFields.has(id)) byFields.set(id, new EqualityIndex(fields));
    }
  }
  return [...byFields.values()];
}
