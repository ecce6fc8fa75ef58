// How the embedded store evaluates MongoDB filters, updates and projections: through mingo, which
// defines what they mean, with the compiled filters cached and the common simple cases (plain
// field updates, plain inclusion projections, simple terms: fast-match.ts) done natively where
// mingo's answer is known.
import { LRUCache } from 'lru-cache';
import { Context, Query, update as applyModifierFull } from 'mingo';
import type { Doc, Filter } from '@vrp/platform/store';
import { deepClone, isPlainObject, scalarKey } from '../shared';
import { compileFastTerm } from './fast-match';

// mingo's package entry builds a fresh operator context (a copy of every operator table) for each
// Query and update call, which costs more than evaluating a small filter. Its sub-modules take a
// context prepared once instead. They are only reachable through the package's "exports" map,
// which this repository's TypeScript resolution (node10) does not read, hence require() with the
// types taken from the declaration files.
/* eslint-disable @typescript-eslint/no-require-imports */
const { Query: QueryCore } = require('mingo/query') as typeof import('mingo/types/query');
const { update: applyModifierLean } = require('mingo/updater') as typeof import('mingo/types/updater');
const queryOperators = require('mingo/operators/query') as NonNullable<Parameters<typeof Context.init>[0]>['query'];
const { isEqual: mingoIsEqual, cloneDeep: mingoCloneDeep, isNumber: mingoIsNumber } = require('mingo/util') as typeof import('mingo/types/util');
/* eslint-enable @typescript-eslint/no-require-imports */

export type AnyObject = Record<string, unknown>;

/**
 * The query operators only: enough for any filter without `$expr` (aggregation expressions are
 * the only thing query operators hand to other operator tables). Created once; mingo copies it
 * into each compiled Query, which is cheap for this small table.
 */
const LEAN_QUERY_OPTIONS = { context: Context.init({ query: queryOperators }) };

/** A matcher for a filter: mingo predicates that must all hold (mingo ANDs top-level fields too). */
export type Matcher = (doc: Doc) => boolean;

export const MATCH_ALL: Matcher = () => true;

/**
 * Compiled mingo queries, shared by the collections of a store. A filter is compiled per top-level
 * field, exactly as mingo's Query compiles it (one predicate per field, all ANDed), so the parts
 * that repeat across calls (`{ workspaceId }`, an `$expr` guard) are compiled once even when the
 * other parts (`{ _id }`) change on every call.
 */
export class QueryCache {
  /**
   * Least recently used goes first. lru-cache, not a Map whose hits are deleted and set again:
   * that reordering cost about 250 ns a hit, several times a query ; lru-cache's ~40.
   */
  private readonly entries: LRUCache<string, Compiled>;

  constructor(capacity: number) {
    this.entries = new LRUCache({ max: capacity });
  }

  matcher(filter: Filter): Matcher {
    if (!isPlainObject(filter)) {
      const query = compileFull(filter); // mingo reports what is wrong with it
      return (doc) => query.test(doc);
    }
    const fields = Object.keys(filter);
    if (fields.length === 0) return MATCH_ALL;
    if (fields.length === 1) {
      const only = this.part(filter);
      return (doc) => only.test(doc);
    }
    const parts = fields.map((field) => this.part({ [field]: filter[field] }));
    return (doc) => {
      for (const part of parts) if (!part.test(doc)) return false;
      return true;
    };
  }

  /** The compiled query of a one-field filter, from the cache when it is safe to reuse. */
  private part(condition: Filter): Compiled {
    // `{ _id: value }` rarely repeats: compiling it is cheap, caching it would evict useful parts.
    if (scalarKey(condition._id) !== undefined) return compilePart(condition);
    const info = { expr: false };
    const key = plainStringKey(condition) ?? cacheKey(condition, info);
    if (key === null) return compileFull(condition); // functions, $$NOW, stateful regexps: never reused
    const hit = this.entries.get(key);
    if (hit) return hit;
    const compiled: Compiled = info.expr ? compileFull(condition) : (this.logical(condition) ?? compilePart(condition));
    if (key.length <= MAX_CACHED_KEY_LENGTH) this.entries.set(key, compiled);
    return compiled;
  }

  /**
   * `{ $or: [...] }` / `{ $and: [...] }` of plain clauses, as mingo evaluates them (some / every
   * clause, each a query of its own), with each clause's parts from this cache: a clause that
   * repeats (`{ lastSuccessAt: null }`) is compiled once even when another (`{ lastSuccessAt:
   * { $lt: now } }`) changes on every call (otherwise mingo compiles the whole `$or` of every
   * webhook delivery's subscription write again). Null for any other shape, which mingo compiles (and
   * reports when it is invalid).
   */
  private logical(condition: Filter): Compiled | null {
    const ops = Object.keys(condition);
    const op = ops[0];
    if (ops.length !== 1 || (op !== '$or' && op !== '$and')) return null;
    const clauses = condition[op];
    if (!Array.isArray(clauses) || clauses.length === 0 || !clauses.every((clause) => isPlainObject(clause))) return null;
    const matchers = clauses.map((clause: Filter) => this.matcher(clause));
    return op === '$or' ? { test: (doc) => matchers.some((m) => m(doc)) } : { test: (doc) => matchers.every((m) => m(doc)) };
  }
}

interface Compiled {
  test(doc: Doc): boolean;
}

const MAX_CACHED_KEY_LENGTH = 4096;

/**
 * A one-field filter without `$expr`: evaluated natively where fast-match knows mingo's answer,
 * by mingo's query core otherwise.
 */
function compilePart(condition: Filter): Compiled {
  const [field] = Object.keys(condition) as [string];
  const core = (): Compiled['test'] => {
    const query = new QueryCore<Doc>(condition, LEAN_QUERY_OPTIONS);
    return (doc) => query.test(doc);
  };
  const fast = compileFastTerm(field, condition[field], core);
  return fast ? { test: fast } : new QueryCore<Doc>(condition, LEAN_QUERY_OPTIONS);
}

/** mingo's public Query: every operator table, as mingo uses by default. */
export function compileFull(condition: Filter): Query<Doc> {
  return new Query<Doc>(condition);
}

/**
 * A string that identifies a filter part by value and type, or null when a compiled query for it
 * must not be reused: functions ($where), `$$NOW` (mingo caches the clock in a compiled query),
 * regexps with the stateful g / y flags, and values that are not plain data.
 */
function cacheKey(value: unknown, info: { expr: boolean }): string | null {
  switch (typeof value) {
    case 'string':
      return value.startsWith('$$NOW') ? null : JSON.stringify(value);
    case 'number':
      return Object.is(value, -0) ? 'n-0' : `n${value}`;
    case 'boolean':
      return value ? 'T' : 'F';
    case 'undefined':
      return 'u';
    case 'bigint':
      return `g${value}`;
    case 'object':
      break;
    default:
      return null;
  }
  if (value === null) return 'z';
  if (value instanceof Date) return `d${value.getTime()}`;
  if (value instanceof RegExp) return /[gy]/.test(value.flags) ? null : `r${JSON.stringify(value.source)}/${value.flags}`;
  if (Array.isArray(value)) {
    let out = '[';
    for (const item of value) {
      const key = cacheKey(item, info);
      if (key === null) return null;
      out += `${key},`;
    }
    return `${out}]`;
  }
  if (!isPlainObject(value)) return null;
  let out = '{';
  for (const field of Object.keys(value)) {
    if (field === '$expr') info.expr = true;
    const key = cacheKey(value[field], info);
    if (key === null) return null;
    out += `${JSON.stringify(field)}:${key},`;
  }
  return `${out}}`;
}

/**
 * The cache key of the commonest part, a field equal to a string (`{ subscriptionId: 'whs_..' }`),
 * made without cacheKey's JSON: it cannot equal one of cacheKey's, which start with `{` (field
 * names hold no NUL). Null for anything else.
 */
function plainStringKey(condition: Filter): string | null {
  let key: string | null = null;
  for (const field in condition) {
    const value = condition[field];
    if (key !== null || typeof value !== 'string' || field.startsWith('$') || value.startsWith('$$NOW')) return null;
    key = `s\u0000${field}\u0000${value}`;
  }
  return key;
}

/** True when an update (or its condition) holds an `$expr`, which needs mingo's full operator set. */
function containsExpr(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(containsExpr);
  if (!isPlainObject(value)) return false;
  return Object.keys(value).some((key) => key === '$expr' || containsExpr(value[key]));
}

/** A top-level field name that mingo's `$set` writes as `obj[name]` (no path, positional or prototype key). */
const PLAIN_FIELD = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const isPlainField = (field: string): boolean => PLAIN_FIELD.test(field) && !PROTOTYPE_KEYS.has(field);

/**
 * mingo's `$set` and/or `$inc` of top-level fields, without mingo: the most common updates of all
 * (status changes, timestamps, counters, a record saved with its version bumped). Each update call
 * of mingo's updater builds its operator context (a copy of every operator table: about 30 %
 * of an update's CPU on the webhook delivery path, and the guest upsert of every reservation
 * write); this does what those two operators do for such fields, with mingo's own helpers: `$set`
 * gives a field whose value is not equal (isEqual) a deep copy; `$inc` adds to a number or a
 * missing field and leaves anything else; the changed fields are returned sorted. Null when it
 * does not apply (other operators, paths, a non-numeric `$inc`, a field named by both).
 */
function applyPlainUpdate(obj: AnyObject, modifier: AnyObject): string[] | null {
  const ops = Object.keys(modifier);
  if (ops.length === 0 || ops.length > 2) return null;
  let set: AnyObject | undefined;
  let inc: AnyObject | undefined;
  for (const op of ops) {
    if (op === '$set') set = modifier.$set as AnyObject;
    else if (op === '$inc') inc = modifier.$inc as AnyObject;
    else return null;
  }
  if ((set && !isPlainObject(set)) || (inc && !isPlainObject(inc))) return null;
  const setFields = set ? Object.keys(set) : [];
  const incFields = inc ? Object.keys(inc) : [];
  if (!setFields.every(isPlainField) || !incFields.every(isPlainField)) return null;
  if (!incFields.every((f) => mingoIsNumber(inc![f]))) return null; // mingo refuses it
  // A field named by both is a conflict MongoDB refuses: mingo's path reports it.
  if (set && inc && incFields.some((f) => Object.hasOwn(set!, f))) return null;
  const changed: string[] = [];
  for (const field of setFields) {
    if (mingoIsEqual(obj[field], set![field])) continue;
    obj[field] = mingoCloneDeep(set![field]);
    changed.push(field);
  }
  for (const field of incFields) {
    const previous = obj[field];
    if (!mingoIsNumber(previous) && previous !== undefined) continue;
    obj[field] = ((previous as number | undefined) || 0) + (inc![field] as number);
    if (obj[field] !== previous) changed.push(field);
  }
  return changed.sort();
}

/**
 * An inclusion projection of top-level fields (`{ a: 1, b: true }`, `_id` in or out), which
 * needs no mingo query (building one for `{ _id: 1 }` would be most of the outbox's
 * per-write read): the fields it names, and `_id` unless it says `_id: 0`. Null for anything
 * else (exclusions, paths, operators, other values), which mingo projects.
 */
export function plainInclusion(projection: AnyObject, fields: string[]): { fields: string[]; id: boolean } | null {
  const included: string[] = [];
  let id = true;
  for (const field of fields) {
    const value = projection[field];
    if (!isPlainField(field)) return null;
    if (field === '_id') {
      if (value === 0 || value === false) id = false;
      else if (value !== 1 && value !== true) return null;
      continue;
    }
    if (value !== 1 && value !== true) return null;
    included.push(field);
  }
  // `{ _id: 0 }` alone is an exclusion projection.
  if (included.length === 0 && !id) return null;
  return { fields: included, id };
}

/** What mingo gives for a plain inclusion: only the named fields that hold a value (not undefined). */
export function includeFields(doc: Doc, plain: { fields: string[]; id: boolean }): Doc {
  const out: AnyObject = {};
  if (plain.id && doc._id !== undefined) out._id = doc._id;
  for (const field of plain.fields) {
    const value = Object.hasOwn(doc, field) ? (doc as AnyObject)[field] : undefined;
    if (value !== undefined) out[field] = value;
  }
  return out as Doc;
}

/** mingo's update; the lean variant lets mingo build its small update context. */
export function applyModifier(obj: AnyObject, modifier: AnyObject, condition?: Filter): string[] {
  if (condition === undefined) {
    const plain = applyPlainUpdate(obj, modifier);
    if (plain) return plain;
  }
  return applyMingoModifier(obj, modifier, condition);
}

/**
 * A stored version with the update applied, and the fields it changed; the stored version itself
 * is left as it is. A plain update (top-level `$set`/`$inc`) replaces whole fields with copies of
 * the new values, so it works on a shallow copy: the fields it keeps are shared with the stored
 * version, which is never changed in place (rather than copying every field of a delivery twice per
 * attempt). mingo changes nested values in place, so anything else works on a deep copy.
 */
export function updatedCopy(target: Doc, modifier: AnyObject, condition?: Filter): { working: AnyObject; changed: string[] } {
  if (condition === undefined) {
    const working: AnyObject = { ...target };
    const changed = applyPlainUpdate(working, modifier);
    if (changed) return { working, changed };
  }
  const working: AnyObject = deepClone(target);
  return { working, changed: applyMingoModifier(working, modifier, condition) };
}

function applyMingoModifier(obj: AnyObject, modifier: AnyObject, condition?: Filter): string[] {
  const options = { cloneMode: 'deep' as const };
  if (containsExpr(modifier) || (condition !== undefined && containsExpr(condition))) {
    return applyModifierFull(obj, modifier, undefined, condition, options);
  }
  return applyModifierLean(obj, modifier, undefined, condition, options);
}
