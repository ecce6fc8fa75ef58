// Unique indexes of the embedded store, as MongoDB enforces them: compound, multikey (every array
// element is a key), sparse and partial (partialFilterExpression), each key owned by one
// document; a key an open transaction's dirty document held stays reserved until it ends.
import type { Schema } from 'mongoose';
import type { Doc } from '@vrp/platform/store';
import { isPlainObject, samePlainFields } from '../shared';
import { compileFull, type Matcher } from './evaluation';
import type { MemoryTx } from './transactions';

export interface UniqueIndex {
  fields: string[][];
  keyPattern: Record<string, unknown>;
  sparse: boolean;
  partial: Matcher | null;
  /** index key -> _id of the document holding it */
  owners: Map<string, string>;
  /** index key -> open transaction whose dirty document held it when last committed */
  reserved: Map<string, MemoryTx>;
}

// Not a general BSON encoder: only needs equal values to map to equal strings, as a unique index does.
function encodeKey(value: unknown): string {
  if (value === undefined) return 'u';
  if (value === null) return 'n';
  switch (typeof value) {
    case 'string':
      return `s${JSON.stringify(value)}`;
    case 'number':
      return `d${value === 0 ? 0 : value}`;
    case 'bigint':
      return `d${value}`;
    case 'boolean':
      return value ? 'T' : 'F';
    default:
      break;
  }
  if (value instanceof Date) return `t${value.getTime()}`;
  if (Array.isArray(value)) return `[${value.map(encodeKey).join(',')}]`;
  if (isPlainObject(value)) {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${encodeKey(v)}`)
      .join(',')}}`;
  }
  return `o${String(value)}`;
}

/** The values a (possibly dotted) path contributes to an index: arrays are multikey. */
function indexValues(value: unknown, parts: readonly string[]): unknown[] {
  const [head, ...rest] = parts;
  if (head === undefined) {
    if (Array.isArray(value)) return value.length === 0 ? [undefined] : value;
    return [value === undefined ? null : value];
  }
  if (Array.isArray(value)) {
    if (/^\d+$/.test(head)) return indexValues(value[Number(head)], rest);
    return value.length === 0 ? [null] : value.flatMap((el) => indexValues(el, parts));
  }
  if (!isPlainObject(value)) return [null];
  return indexValues(value[head], rest);
}

export function indexKeys(index: UniqueIndex, doc: Doc): string[] {
  if (index.partial && !index.partial(doc)) return [];
  const perField = index.fields.map((parts) => indexValues(doc, parts));
  if (index.sparse && perField.every((vals) => vals.every((v) => v === null || v === undefined))) return [];
  let keys = [''];
  for (const vals of perField) {
    const encoded = [...new Set(vals.map(encodeKey))];
    keys = keys.flatMap((k) => encoded.map((e) => `${k}\u0001${e}`));
  }
  return keys;
}

/**
 * True when an update leaves an index's keys as they were: every field of the index is a top-level
 * field holding the same plain value in both versions, and no partial filter (which may read other
 * fields) decides whether the document is in the index. Then the keys are owned by the document
 * already, and neither checking nor moving them is needed (a webhook delivery's every status change would
 * otherwise compute its unique key four times).
 */
export function sameUniqueKeys(index: UniqueIndex, prev: Doc, next: Doc): boolean {
  return !index.partial && samePlainFields(index.fields, prev, next);
}

export function uniqueIndexes(schema: Schema): UniqueIndex[] {
  const out: UniqueIndex[] = [];
  for (const [fields, options] of schema.indexes()) {
    const opts: Record<string, unknown> = isPlainObject(options) ? options : {};
    if (opts.unique !== true) continue;
    const paths = Object.keys(fields);
    if (paths.length === 1 && paths[0] === '_id') continue; // the Map key already is this index
    const partial = opts.partialFilterExpression;
    let partialMatcher: Matcher | null = null;
    if (isPlainObject(partial)) {
      const query = compileFull(partial);
      partialMatcher = (doc) => query.test(doc);
    }
    out.push({
      fields: paths.map((p) => p.split('.')),
      keyPattern: { ...fields },
      sparse: opts.sparse === true,
      partial: partialMatcher,
      owners: new Map(),
      reserved: new Map(),
    });
  }
  return out;
}
