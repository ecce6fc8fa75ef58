// The embedded engine: in-process collections that evaluate the same MongoDB filter / update /
// sort / projection documents through mingo, and cast + validate through the mongoose schema.
//
// mingo defines what filters and updates mean. To stay fast on large collections the engine
// evaluates simple terms natively where mingo's answer is known (fast-match.ts) and reads the
// schema's indexes the way MongoDB does: `_id` lookups use the primary map; equality on the
// leading field(s) of an index uses an in-memory equality index (a superset of the matches,
// which the filter then checks); an index whose prefix the filter pins serves sorted pages and
// ranges in order (ordered-index.ts); other sorted pages select the top `skip + limit` matches
// with mingo's own comparator instead of sorting (and copying) everything.
//
// Persistence (DATA_DIR, store/persistence.ts): at each commit (commitDurably) the final state of
// every document the transaction or lone write touched goes to LMDB in one write, awaited before
// the commit is acknowledged and queued in commit order; the writer keeps owning those documents
// until then. Without persistence nothing of this runs.
import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import type { Schema } from 'mongoose';
import { LRUCache } from 'lru-cache';
import { Context, Query, update as applyModifierFull } from 'mingo';
import {
  DocumentValidationError,
  DuplicateKeyError,
  isTransientStoreError,
  StoreUnavailableError,
  TransactionAbortedError,
  WriteConflictError,
  type Collection,
  type CollectionSpec,
  type Doc,
  type DocumentStore,
  type Filter,
  type FindOneAndUpdateOptions,
  type FindOptions,
  type Sort,
  type Tx,
  type Update,
  type UpdateOptions,
  type UpdateResult,
  type WriteOptions,
} from './port';
import { currentTransactions, runWithTransactions } from '../context';
import { compileFastCaster, type FastCaster } from './fast-cast';
import { compileFastTerm } from './fast-match';
import type { PersistedDoc, StoreChange, StorePersistence } from './persistence';
import { compareValues, orderedIndexes, rangeTerms, sortKey, type Entry, type OrderedIndex, type Slot } from './ordered-index';
import {
  deepClone,
  DEFAULT_STORE_TIMEOUT_MS,
  isPlainObject,
  normalizeUpdate,
  prepareSchema,
  samePlainFields,
  scalarKey,
  settleWithin,
  sleep,
  timestampFields,
  transactionBackoffMs,
  upsertSeedFields,
  validationFields,
} from './shared';

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

type AnyObject = Record<string, unknown>;

/**
 * The query operators only: enough for any filter without `$expr` (aggregation expressions are
 * the only thing query operators hand to other operator tables). Created once; mingo copies it
 * into each compiled Query, which is cheap for this small table.
 */
const LEAN_QUERY_OPTIONS = { context: Context.init({ query: queryOperators }) };

/** A matcher for a filter: mingo predicates that must all hold (mingo ANDs top-level fields too). */
type Matcher = (doc: Doc) => boolean;

const MATCH_ALL: Matcher = () => true;

/**
 * Compiled mingo queries, shared by the collections of a store. A filter is compiled per top-level
 * field, exactly as mingo's Query compiles it (one predicate per field, all ANDed), so the parts
 * that repeat across calls (`{ workspaceId }`, an `$expr` guard) are compiled once even when the
 * other parts (`{ _id }`) change on every call.
 */
class QueryCache {
  /**
   * Least recently used goes first. lru-cache, not a Map whose hits are deleted and set again:
   * that reordering cost about 250 ns a hit, several times a query (issue 17); lru-cache's ~40.
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
   * { $lt: now } }`) changes on every call (issue 17: mingo compiled the whole `$or` of every
   * webhook delivery's subscription write). Null for any other shape, which mingo compiles (and
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
function compileFull(condition: Filter): Query<Doc> {
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
 * of mingo's updater builds its operator context (a copy of every operator table, issue 17: ~30 %
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
 * needs no mingo query (issue 17: building one for `{ _id: 1 }` was most of the outbox's
 * per-write read): the fields it names, and `_id` unless it says `_id: 0`. Null for anything
 * else (exclusions, paths, operators, other values), which mingo projects.
 */
function plainInclusion(projection: AnyObject, fields: string[]): { fields: string[]; id: boolean } | null {
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
function includeFields(doc: Doc, plain: { fields: string[]; id: boolean }): Doc {
  const out: AnyObject = {};
  if (plain.id && doc._id !== undefined) out._id = doc._id;
  for (const field of plain.fields) {
    const value = Object.hasOwn(doc, field) ? (doc as AnyObject)[field] : undefined;
    if (value !== undefined) out[field] = value;
  }
  return out as Doc;
}

/** mingo's update; the lean variant lets mingo build its small update context. */
function applyModifier(obj: AnyObject, modifier: AnyObject, condition?: Filter): string[] {
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
 * version, which is never changed in place (issue 17: copying every field of a delivery twice per
 * attempt). mingo changes nested values in place, so anything else works on a deep copy.
 */
function updatedCopy(target: Doc, modifier: AnyObject, condition?: Filter): { working: AnyObject; changed: string[] } {
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

/** One in-place change: the version it replaced (undefined: the document did not exist). */
interface UndoEntry {
  coll: MemoryCollection<Doc>;
  id: string;
  prev: Doc | undefined;
  /** Commit number of `prev`. */
  prevVersion: number;
}

/**
 * A transaction. Its writes are made in place at once and journaled; every document it writes is
 * "dirty" (owned by it) until it ends, which makes the document a conflict for every other writer
 * and makes every other reader see the journaled pre-image instead.
 */
interface MemoryTx extends Tx {
  readonly journal: UndoEntry[];
  state: 'active' | 'aborted' | 'ended';
  /** The error that aborted it (state 'aborted'). */
  abortReason: unknown;
  /** The store's commit number when it began: a document committed after that is a conflict. */
  readonly snapshot: number;
  /** Documents it made dirty, to release at the end. */
  readonly touched: Array<{ coll: MemoryCollection<Doc>; id: string }>;
  /** Unique keys of the pre-images of its dirty documents, held until it ends. */
  readonly reserved: Array<{ index: UniqueIndex; key: string }>;
  /** Resolves when it ends (commit or abort): what waiting writers wait for. */
  readonly ended: Promise<void>;
  readonly end: () => void;
}

/** A document written in place by an open transaction, and what others see instead. */
interface DirtyEntry {
  tx: MemoryTx;
  /** The last committed version (undefined: the transaction inserted it). */
  pre: Doc | undefined;
  preSeq: number;
  preVersion: number;
}

/** Who writes: a transaction, or a lone operation with its own journal (undone when it must wait). */
interface Writer {
  tx: MemoryTx | undefined;
  journal: UndoEntry[];
}

/** A lone write met a document or key an open transaction holds: it waits for that transaction. */
class Blocked extends Error {
  constructor(
    readonly holder: MemoryTx,
    readonly collection: string,
    readonly detail: string,
  ) {
    super(`${collection}: ${detail} is held by an open transaction`);
  }
}

interface UniqueIndex {
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

function indexKeys(index: UniqueIndex, doc: Doc): string[] {
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
 * already, and neither checking nor moving them is needed (issue 17: a webhook delivery's every
 * status change computed its unique key four times).
 */
function sameUniqueKeys(index: UniqueIndex, prev: Doc, next: Doc): boolean {
  return !index.partial && samePlainFields(index.fields, prev, next);
}

function uniqueIndexes(schema: Schema): UniqueIndex[] {
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

// ---- equality indexes (candidate narrowing only) ----

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
function equalityTerms(filter: Filter, out: Map<string, unknown[]> = new Map()): Map<string, unknown[]> {
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
function withNullTerms(filter: Filter, terms: Map<string, unknown[]>): Map<string, unknown[]> {
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

class EqualityIndex {
  readonly fields: string[];
  private readonly parts: string[][];
  private readonly buckets = new Map<string, Bucket>();

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

  /** Keys a lookup reads, or null when the filter does not pin every field of this index. */
  lookupKeys(terms: Map<string, unknown[]>): string[] | null {
    let keys: string[] = [''];
    for (let f = 0; f < this.fields.length; f++) {
      const values = terms.get(this.fields[f] as string);
      if (!values) return null;
      const encoded = [...new Set(values.map((v) => scalarKey(v) as string))];
      keys = f === 0 ? encoded : keys.flatMap((k) => encoded.map((v) => `${k}\u0000${v}`));
    }
    return keys;
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
    if (prev && next && this.unchanged(prev, next)) return;
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
   * skips computing them twice (issue 17). Anything else is compared by its keys.
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
function equalityIndexes(schema: Schema): EqualityIndex[] {
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

// ---- sorting ----

/**
 * The documents at [skip, skip + limit) in `sort` order, ties in insertion order (as mingo's
 * stable sort over the collection leaves them). Keys are resolved and compared with mingo's own
 * resolve / compare (what its $sort uses). Only the `skip + limit` best are kept (a bounded
 * buffer pruned by quickselect), so a page costs about one comparison per matching document.
 */
function sortedPage(slots: Slot[], sort: Sort, skip: number, limit: number): Slot[] {
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

const bySeq = (a: Slot, b: Slot): number => a.seq - b.seq;

/** Documents that may match a filter, from an index lookup, and how many. */
interface Candidates {
  slots: Iterable<Slot>;
  size: number;
}

/**
 * Entries [from, to) of an ordered index whose order is the sort's first `served` fields; full:
 * its order is the whole sort; exact: every entry matches the filter.
 */
interface Walk {
  entries: readonly Entry[];
  from: number;
  to: number;
  served: number;
  full: boolean;
  exact: boolean;
}

function sameLeadingKeys(a: Entry, b: Entry, count: number): boolean {
  for (let i = 0; i < count; i++) if (compareValues(a.keys[i], b.keys[i]) !== 0) return false;
  return true;
}

interface Plan {
  best: Candidates & { natural: boolean };
  walk: Walk | null;
  /** Set when the filter is exactly an ordered index's pinned prefix: the matching entries. */
  exact: readonly Entry[] | null;
}

function* slotsIn(entries: readonly Entry[], from: number, to: number): Iterable<Slot> {
  for (let i = from; i < to; i++) yield (entries[i] as Entry).slot;
}

/**
 * Up to this many candidates from an equality index are sorted directly; above it, a sorted page
 * is read from an ordered index when one serves the sort (see ordered-index.ts).
 */
const SORT_IN_MEMORY_MAX = 8_192;

// Mongoose's update validators cover these operators only ($inc & co. are cast, not validated).
const VALIDATED_UPDATE_OPS = ['$set', '$unset', '$push', '$addToSet', '$pull', '$pullAll', '$setOnInsert'];

/** Schema paths an update's validators run on; positional segments cut the path short. */
function validatedPaths(modifier: Record<string, Record<string, unknown>>): string[] {
  const paths = new Set<string>();
  for (const op of VALIDATED_UPDATE_OPS) {
    const fields = modifier[op];
    if (fields === undefined) continue;
    for (const path of Object.keys(fields)) {
      if (!path.includes('.') && !path.startsWith('$')) {
        paths.add(path);
        continue;
      }
      const parts = path.split('.');
      const cut = parts.findIndex((p) => p.startsWith('$'));
      paths.add((cut === -1 ? parts : parts.slice(0, cut)).join('.'));
    }
  }
  return [...paths].filter((p) => p !== '');
}

function hasPositionalPath(modifier: Record<string, Record<string, unknown>>): boolean {
  return Object.values(modifier).some((fields) => Object.keys(fields).some((p) => p.includes('$') && /(^|\.)\$(\.|$)/.test(p)));
}

const TO_OBJECT = { depopulate: true, versionKey: false, flattenMaps: true } as const;

interface UpdateOutcome {
  matchedCount: number;
  modifiedCount: number;
  upsertedId: string | null;
  before: Doc | null;
  after: Doc | null;
}

/**
 * Where a stored document lives, from its insert to its delete: an update swaps `doc` (stored
 * documents themselves are never mutated). `seq` is the insertion rank, the natural order.
 */
class MemoryCollection<T extends Doc> implements Collection<T> {
  /** _id -> slot; the Map's iteration order is the natural order (ascending seq). */
  private readonly docs = new Map<string, Slot>();
  /** Documents written in place by open transactions (empty most of the time). */
  readonly dirty = new Map<string, DirtyEntry>();
  private nextSeq = 0;
  private readonly uniques: UniqueIndex[];
  private readonly equalities: EqualityIndex[];
  private readonly ordered: OrderedIndex[];
  private readonly model: mongoose.Model<Record<string, unknown>>;
  /** Casts without mongoose the documents it is sure of (fast-cast.ts); null: mongoose for all. */
  private readonly fastCast: FastCaster | null;
  private readonly timestamps: { createdAt?: string; updatedAt?: string };

  constructor(
    readonly name: string,
    schema: Schema,
    base: mongoose.Mongoose,
    private readonly store: MemoryStore,
  ) {
    const prepared = prepareSchema(schema);
    this.model = base.model<Record<string, unknown>>(name, prepared, name);
    this.fastCast = compileFastCaster(prepared);
    this.uniques = uniqueIndexes(prepared);
    this.equalities = equalityIndexes(prepared);
    this.ordered = orderedIndexes(prepared.indexes().map(([spec]) => spec as Record<string, unknown>));
    this.timestamps = timestampFields(prepared);
  }

  // ---- reads: the last committed state, plus the reader's own uncommitted writes ----

  async findOne(filter: Filter, opts: FindOptions & WriteOptions = {}): Promise<T | null> {
    const [first] = await this.find(filter, { ...opts, limit: 1 });
    return first ?? null;
  }

  async find(filter: Filter, opts: FindOptions & WriteOptions = {}): Promise<T[]> {
    const reader = this.store.answering() ? this.store.checkTx(opts.tx) : await this.store.reader(opts.tx);
    const page = this.select(filter, opts.sort, opts.skip ?? 0, opts.limit ?? 0, reader);
    let docs = page.map((slot) => slot.doc);
    const projected = opts.projection ? Object.keys(opts.projection) : [];
    if (opts.projection && projected.length > 0) {
      const plain = plainInclusion(opts.projection as AnyObject, projected);
      if (plain) docs = docs.map((doc) => includeFields(doc, plain));
      else {
        // mingo projects the page. A positional projection (`a.$`) reads the filter, and a query
        // with the filter tests the documents again, so it is only given the filter then.
        const positional = projected.some((path) => path.endsWith('.$'));
        docs = compileFull(positional ? filter : {})
          .find<Doc>(docs, opts.projection)
          .all();
      }
    }
    // Projected results can share nested objects with stored ones, so copy them all.
    return docs.map((d) => deepClone(d) as T);
  }

  async countDocuments(filter: Filter, opts: WriteOptions = {}): Promise<number> {
    const reader = this.store.answering() ? this.store.checkTx(opts.tx) : await this.store.reader(opts.tx);
    const match = this.store.queries.matcher(filter);
    let n = 0;
    const { best, exact } = this.plan(filter, undefined, 0, true);
    if (exact) n = exact.length;
    else for (const slot of best.slots) if (match(slot.doc)) n++;
    // Documents of other open transactions count as their committed versions.
    const others = this.othersDirty(reader, filter, match);
    if (others) {
      for (const [id, entry] of others) {
        const current = this.docs.get(id);
        if (current && match(current.doc)) n--;
        if (entry.pre && match(entry.pre)) n++;
      }
    }
    return n;
  }

  // ---- writes ----

  insertOne(doc: T, opts: WriteOptions = {}): Promise<T> {
    return this.store.write(opts.tx, (w) => {
      const next = this.cast(this.stamp(doc, true));
      this.checkInsert(next, w);
      this.commit(next._id, undefined, next, w);
      return deepClone(next) as T;
    });
  }

  insertMany(docs: T[], opts: WriteOptions = {}): Promise<T[]> {
    return this.store.write(opts.tx, (w) => {
      // Like an ordered insertMany: nothing is written if any document is invalid, and a
      // duplicate stops the batch with the earlier documents inserted.
      const prepared = docs.map((d) => this.cast(this.stamp(d, true)));
      for (const next of prepared) {
        this.checkInsert(next, w);
        this.commit(next._id, undefined, next, w);
      }
      return prepared.map((d) => deepClone(d) as T);
    });
  }

  async updateOne(filter: Filter, update: Update, opts: UpdateOptions = {}): Promise<UpdateResult> {
    const r = await this.store.write(opts.tx, (w) => this.runUpdate(filter, update, { many: false, upsert: opts.upsert === true }, w));
    return { matchedCount: r.matchedCount, modifiedCount: r.modifiedCount, upsertedId: r.upsertedId };
  }

  async updateMany(filter: Filter, update: Update, opts: UpdateOptions = {}): Promise<UpdateResult> {
    const r = await this.store.write(opts.tx, (w) => this.runUpdate(filter, update, { many: true, upsert: opts.upsert === true }, w));
    return { matchedCount: r.matchedCount, modifiedCount: r.modifiedCount, upsertedId: r.upsertedId };
  }

  async findOneAndUpdate(filter: Filter, update: Update, opts: FindOneAndUpdateOptions = {}): Promise<T | null> {
    const r = await this.store.write(opts.tx, (w) => this.runUpdate(filter, update, { many: false, upsert: opts.upsert === true, sort: opts.sort }, w));
    const doc = opts.returnDocument === 'before' ? r.before : r.after;
    return doc ? (deepClone(doc) as T) : null;
  }

  deleteOne(filter: Filter, opts: WriteOptions = {}): Promise<{ deletedCount: number }> {
    return this.store.write(opts.tx, (w) => this.runDelete(filter, 1, w));
  }

  deleteMany(filter: Filter, opts: WriteOptions = {}): Promise<{ deletedCount: number }> {
    return this.store.write(opts.tx, (w) => this.runDelete(filter, 0, w));
  }

  /** Puts back a journaled version; the state it restores was consistent, so no checks. */
  restore(entry: UndoEntry): void {
    this.commit(entry.id, this.docs.get(entry.id)?.doc, entry.prev, undefined);
    const slot = this.docs.get(entry.id);
    if (slot) slot.version = entry.prevVersion;
  }

  /** Marks the current versions of documents as committed under commit number `version`. */
  stampCommitted(id: string, version: number): void {
    const slot = this.docs.get(id);
    if (slot) slot.version = version;
  }

  /** Releases a document a transaction made dirty (at its commit or after its rollback). */
  release(id: string, tx: MemoryTx): void {
    if (this.dirty.get(id)?.tx === tx) this.dirty.delete(id);
  }

  /** Loads the documents read from disk at start (validated when they were written). */
  loadPersisted(entries: PersistedDoc[]): void {
    for (const { seq, doc } of entries) {
      // In ascending seq order: the slot takes the rank it had, and the next insert goes after.
      this.nextSeq = Math.max(this.nextSeq, seq);
      this.commit(doc._id, undefined, doc, undefined);
    }
  }

  /**
   * The state of a document to write to disk: its insertion rank and content, or deleted. Read
   * while the writer still owns the document, so it is the writer's final state.
   */
  persistedState(id: string): StoreChange {
    const slot = this.docs.get(id);
    return { collection: this.name, id, seq: slot?.seq ?? -1, doc: slot?.doc };
  }

  // ---- internals (all synchronous: a write is atomic between two awaits) ----

  /**
   * Documents dirty in open transactions other than the reader's that can change what `filter`
   * selects for it, or null when there are none: those whose pre-image or current version
   * matches. One that matches in neither is absent from the reader's answer whichever version it
   * sees, so it is left out (issue 17: with many transactions open at once, every read tested and
   * re-sorted all of their documents). A filter that pins `_id` only needs those ids looked up.
   */
  private othersDirty(reader: MemoryTx | undefined, filter: Filter, match: Matcher): Map<string, DirtyEntry> | null {
    if (this.dirty.size === 0) return null;
    let others: Map<string, DirtyEntry> | null = null;
    const consider = (id: string, entry: DirtyEntry): void => {
      if (entry.tx === reader) return;
      const current = this.docs.get(id)?.doc;
      if (!(entry.pre && match(entry.pre)) && !(current && match(current))) return;
      others ??= new Map();
      others.set(id, entry);
    };
    const ids = isPlainObject(filter) ? equalityTerms(filter).get('_id') : undefined;
    if (ids && ids.every((id) => typeof id === 'string')) {
      for (const id of ids as string[]) {
        const entry = this.dirty.get(id);
        if (entry) consider(id, entry);
      }
    } else for (const [id, entry] of this.dirty) consider(id, entry);
    return others;
  }

  /**
   * What `reader` sees: the page of matches where documents dirty in other open transactions
   * count as their pre-images. Without such documents (the common case) it is selectRaw itself;
   * otherwise the page is read wider by their number, they are swapped for their matching
   * pre-images, and the result is sorted and paged again.
   */
  private select(filter: Filter, sort: Sort | undefined, skip: number, limit: number, reader: MemoryTx | undefined): Slot[] {
    if (this.dirty.size === 0) return this.selectRaw(filter, sort, skip, limit);
    const match = this.store.queries.matcher(filter);
    const others = this.othersDirty(reader, filter, match);
    if (!others) return this.selectRaw(filter, sort, skip, limit, match);
    skip = Math.max(0, skip);
    limit = Math.max(0, limit);
    const wide = this.selectRaw(filter, sort, 0, limit > 0 ? skip + limit + others.size : 0, match);
    const seen: Slot[] = wide.filter((slot) => !others.has(slot.doc._id));
    for (const entry of others.values()) {
      if (entry.pre && match(entry.pre)) seen.push({ doc: entry.pre, seq: entry.preSeq, version: entry.preVersion });
    }
    if (sort !== undefined && Object.keys(sort).length > 0) return sortedPage(seen, sort, skip, limit);
    seen.sort(bySeq);
    return skip > 0 || limit > 0 ? seen.slice(skip, limit > 0 ? skip + limit : undefined) : seen;
  }

  /**
   * The documents that can match, in no particular order, or null for "scan them all": the `_id`
   * lookup when the filter pins `_id`, else the smallest equality-index lookup the filter allows,
   * unless that still holds most of the collection (a scan of the primary map is then cheaper,
   * and in natural order). Always a superset of the matches: mingo evaluates the filter after.
   */
  private candidates(filter: Filter, terms = isPlainObject(filter) ? equalityTerms(filter) : null): Candidates | null {
    if (!terms || terms.size === 0) return null;
    const ids = terms.get('_id');
    if (ids) {
      const found = new Set<Slot>();
      for (const id of ids) {
        const slot = typeof id === 'string' ? this.docs.get(id) : undefined; // _ids are strings
        if (slot) found.add(slot);
      }
      return { slots: found, size: found.size };
    }
    let best: { index: EqualityIndex; keys: string[]; size: number } | null = null;
    for (const index of this.equalities) {
      const keys = index.lookupKeys(terms);
      if (!keys) continue;
      let size = 0;
      for (const key of keys) size += index.size(key);
      if (!best || size < best.size) best = { index, keys, size };
      if (size === 0) break;
    }
    if (!best || best.size * 2 > this.docs.size) return null;
    if (best.keys.length === 1) return { slots: best.index.slots(best.keys[0] as string), size: best.size };
    const union = new Set<Slot>(); // a multikey document can sit under several keys
    for (const key of best.keys) for (const slot of best.index.slots(key)) union.add(slot);
    return { slots: union, size: union.size };
  }

  /**
   * The cheapest way to the documents a filter can match: the smallest candidate set (an `_id` or
   * equality-index lookup, a range of an ordered index, or every document), and, for a sorted page,
   * the ordered index (and range of it) whose order is the sort, if one is pinned by the filter.
   * For a count, also the bucket that is exactly the answer, when there is one.
   */
  private plan(filter: Filter, sort?: Sort, limit = 0, counting = false): Plan {
    const equal = isPlainObject(filter) ? equalityTerms(filter) : null;
    // Ordered indexes also keep null and missing values (one bucket), so `{ f: null }` pins them.
    const terms = equal && withNullTerms(filter, equal);
    const sortFields = sort && limit > 0 ? Object.keys(sort).length : 0;
    const sorted = sortFields > 0;
    if (terms && sorted && !counting) {
      // A page of an index whose prefix is exactly the filter and whose order is exactly the sort
      // is a slice of its bucket: no other plan can beat it, so none is looked for (issue 17: the
      // webhook queue heads, three such reads per delivery).
      const exact = this.exactWalk(filter, terms, sort as Sort, sortFields);
      if (exact) return { best: { slots: [], size: 0, natural: false }, walk: exact, exact: null };
    }
    const narrowed = this.candidates(filter, equal);
    let best = narrowed ? { ...narrowed, natural: false } : { slots: this.docs.values(), size: this.docs.size, natural: true };
    let walk: Walk | null = null;
    // No index walk or range beats one candidate or none (an `_id` lookup), nor has a count to add.
    if (!terms || terms.size === 0 || (narrowed && narrowed.size <= 1)) return { best, walk, exact: null };
    const ranges = rangeTerms(filter);
    if (counting) {
      // A filter that is exactly an index's pinned prefix: its bucket's size is the count.
      const exact = this.ordered.filter((index) => index.isExactly(filter, terms)).sort((a, b) => Number(b.isBuilt) - Number(a.isBuilt))[0];
      const entries = exact?.walk(terms, this.docs.values());
      if (entries) return { best, walk, exact: entries };
    }
    for (const index of this.ordered) {
      if (!index.pins(terms)) continue;
      const range = ranges.get(index.order[0] as string);
      const served = sort && sorted ? index.servedFields(sort) : 0;
      const servesSort = served > 0;
      if (!range && !servesSort) continue;
      const entries = index.walk(terms, this.docs.values());
      if (!entries) continue;
      const [from, to] = range ? index.within(entries, range) : [0, entries.length];
      if (servesSort) {
        const full = served === sortFields && served === index.order.length;
        // The shortest walk; of equal ones, one in the exact sort order.
        if (!walk || to - from < walk.to - walk.from || (to - from === walk.to - walk.from && full && !walk.full)) {
          walk = { entries, from, to, full, served, exact: full && !range && index.isExactly(filter, terms) };
        }
      } else if (to - from < best.size) {
        best = { slots: slotsIn(entries, from, to), size: to - from, natural: false };
      }
    }
    return { best, walk, exact: null };
  }

  /** The walk of an index whose pinned prefix is exactly `filter` and whose order is exactly `sort`. */
  private exactWalk(filter: Filter, terms: Map<string, unknown[]>, sort: Sort, sortFields: number): Walk | null {
    for (const index of this.ordered) {
      if (index.order.length !== sortFields || index.servedFields(sort) !== sortFields || !index.isExactly(filter, terms)) continue;
      const entries = index.walk(terms, this.docs.values());
      if (entries) return { entries, from: 0, to: entries.length, full: true, served: sortFields, exact: true };
    }
    return null;
  }

  /**
   * The matching documents at [skip, skip + limit) (limit 0: all), in `sort` order, else in
   * natural order. Nothing is copied. The plan's candidates are not read when its walk is exact,
   * and then no matcher is made either: the filter is the index's pinned equalities, nothing a
   * matcher could refuse (issue 17: the webhook queue's head reads are such walks).
   */
  private selectRaw(filter: Filter, sort: Sort | undefined, skip: number, limit: number, given?: Matcher): Slot[] {
    const sorted = sort !== undefined && Object.keys(sort).length > 0;
    skip = Math.max(0, skip);
    limit = Math.max(0, limit);
    const { best, walk } = this.plan(filter, sort, limit);
    // A walk stops at the page; sorting costs every candidate. Sort only small candidate sets.
    if (walk?.exact) {
      // Every entry matches: the page is a slice.
      const from = Math.min(walk.to, walk.from + skip);
      return walk.entries.slice(from, Math.min(walk.to, from + limit)).map((e) => e.slot);
    }
    const match = given ?? this.store.queries.matcher(filter);
    if (walk && (walk.to - walk.from <= best.size || best.size > SORT_IN_MEMORY_MAX)) {
      if (walk.full) {
        const page: Slot[] = [];
        let skipped = 0;
        for (let i = walk.from; i < walk.to; i++) {
          const slot = (walk.entries[i] as Entry).slot;
          if (!match(slot.doc)) continue;
          if (skipped < skip) skipped += 1;
          else if (page.push(slot) >= limit) break;
        }
        return page;
      }
      // The index orders by the leading sort fields only: collect matches up to the page, and on
      // to the end of the group of equal leading keys the page ends in; then sort those.
      const collected: Slot[] = [];
      let last: Entry | null = null;
      for (let i = walk.from; i < walk.to; i++) {
        const entry = walk.entries[i] as Entry;
        if (!match(entry.slot.doc)) continue;
        if (last && collected.length >= skip + limit && !sameLeadingKeys(entry, last, walk.served)) break;
        collected.push(entry.slot);
        last = entry;
      }
      return sortedPage(collected, sort as Sort, skip, limit);
    }
    const matched: Slot[] = [];
    // Natural order already: an unsorted page can stop early.
    const enough = best.natural && !sorted && limit > 0 ? skip + limit : Infinity;
    for (const slot of best.slots) if (match(slot.doc) && matched.push(slot) >= enough) break;
    if (!sorted && !best.natural) matched.sort(bySeq);
    if (sorted) return sortedPage(matched, sort, skip, limit);
    return skip > 0 || limit > 0 ? matched.slice(skip, limit > 0 ? skip + limit : undefined) : matched;
  }

  /**
   * Applies the schema: casting, defaults, unknown fields dropped, validation. Cast errors are
   * always reported; validators run on all paths, or only on `paths` (what an update touched).
   */
  private cast(input: Record<string, unknown>, paths?: string[]): Doc {
    // The fast caster validates every path, so a document it accepts passes `paths` too; one it
    // is not sure of (anything to convert, or to reject) goes to mongoose.
    const fast = this.fastCast?.(input);
    if (fast) return this.checkId(fast);
    const doc = new this.model(input);
    const err = doc.validateSync(paths);
    if (err) throw new DocumentValidationError(this.name, validationFields(err) ?? { '(document)': err.message });
    return this.checkId(deepClone(doc.toObject(TO_OBJECT) as Record<string, unknown>));
  }

  private checkId(out: Record<string, unknown>): Doc {
    const id = out._id;
    if (typeof id !== 'string' || id === '') {
      throw new DocumentValidationError(this.name, { _id: 'must be a non-empty string' });
    }
    return out as Doc;
  }

  /** Mongoose's `timestamps` behaviour for a document about to be inserted. */
  private stamp(doc: Record<string, unknown>, inserting: boolean): Record<string, unknown> {
    const { createdAt, updatedAt } = this.timestamps;
    if (!createdAt && !updatedAt) return doc;
    const now = new Date();
    const out = { ...doc };
    if (inserting && createdAt && out[createdAt] === undefined) out[createdAt] = now;
    if (updatedAt && out[updatedAt] === undefined) out[updatedAt] = (createdAt ? out[createdAt] : undefined) ?? now;
    return out;
  }

  /**
   * May `w` write the document `id`? Not while another open transaction holds it (a conflict
   * for a transaction, a wait for a lone write), nor, for a transaction, when its committed
   * version is newer than the transaction's snapshot.
   */
  private checkWritable(id: string, w: Writer, what = `document ${JSON.stringify(id)}`): void {
    const entry = this.dirty.get(id);
    if (entry && entry.tx !== w.tx) throw new Blocked(entry.tx, this.name, what);
    if (!entry && w.tx) {
      const slot = this.docs.get(id);
      if (slot && slot.version > w.tx.snapshot) {
        throw new WriteConflictError(this.name, `${what} was committed by another writer after this transaction began`);
      }
    }
  }

  private checkInsert(next: Doc, w: Writer): void {
    this.checkWritable(next._id, w);
    if (this.docs.has(next._id)) throw new DuplicateKeyError(this.name, { _id: 1 });
    this.checkUnique(next._id, next, w);
  }

  /** `prev`: the version an update replaces (its keys are this document's already). */
  private checkUnique(id: string, next: Doc, w: Writer, prev?: Doc): void {
    for (const index of this.uniques) {
      if (prev && sameUniqueKeys(index, prev, next)) continue;
      for (const key of indexKeys(index, next)) {
        const owner = index.owners.get(key);
        if (owner !== undefined && owner !== id) {
          this.checkWritable(owner, w, `a key of unique index ${JSON.stringify(index.keyPattern)}`);
          throw new DuplicateKeyError(this.name, index.keyPattern);
        }
        // A key the committed version of another transaction's document holds is still taken.
        const holder = index.reserved.get(key);
        if (holder !== undefined && holder !== w.tx && holder.state === 'active') {
          throw new Blocked(holder, this.name, `a key of unique index ${JSON.stringify(index.keyPattern)}`);
        }
      }
    }
  }

  /** The single place state changes: map, unique and equality indexes, dirty marks, journals. */
  private commit(id: string, prev: Doc | undefined, next: Doc | undefined, w: Writer | undefined): void {
    const before = this.docs.get(id);
    if (w) {
      w.journal.push({ coll: this as unknown as MemoryCollection<Doc>, id, prev, prevVersion: before?.version ?? 0 });
      if (w.tx && !this.dirty.has(id)) this.markDirty(id, prev, before, w.tx);
    }
    for (const index of this.uniques) {
      if (prev && next && sameUniqueKeys(index, prev, next)) continue;
      if (prev) for (const key of indexKeys(index, prev)) if (index.owners.get(key) === id) index.owners.delete(key);
      if (next) for (const key of indexKeys(index, next)) index.owners.set(key, id);
    }
    // An update keeps the document's slot, so its place in the natural order; an insert, or a
    // rollback putting a deleted document back, goes last (as a Map re-insertion would).
    let slot = before;
    if (!slot && next) {
      slot = { doc: next, seq: this.nextSeq++, version: 0 };
      this.docs.set(id, slot);
    }
    if (slot) for (const index of this.equalities) index.update(slot, prev, next);
    if (slot) for (const index of this.ordered) index.update(slot, prev, next);
    if (slot && next) slot.doc = next;
    else this.docs.delete(id);
  }

  /** First write of a transaction to a document: others now see `prev`, and its keys stay taken. */
  private markDirty(id: string, prev: Doc | undefined, slot: Slot | undefined, tx: MemoryTx): void {
    this.dirty.set(id, { tx, pre: prev, preSeq: slot?.seq ?? -1, preVersion: slot?.version ?? 0 });
    tx.touched.push({ coll: this as unknown as MemoryCollection<Doc>, id });
    if (!prev) return;
    for (const index of this.uniques) {
      for (const key of indexKeys(index, prev)) {
        index.reserved.set(key, tx);
        tx.reserved.push({ index, key });
      }
    }
  }

  private runUpdate(filter: Filter, update: Update, o: { many: boolean; upsert: boolean; sort?: Record<string, 1 | -1> }, w: Writer): UpdateOutcome {
    const { $setOnInsert, ...modifier } = normalizeUpdate(update);
    const { updatedAt } = this.timestamps;
    if (updatedAt && !Object.values(modifier).some((fields) => updatedAt in fields)) {
      modifier.$set = { ...modifier.$set, [updatedAt]: new Date() };
    }
    const targets = this.select(filter, o.sort, 0, o.many ? 0 : 1, w.tx).map((slot) => slot.doc);
    for (const target of targets) this.checkWritable(target._id, w); // before anything is written

    if (targets.length === 0) {
      if (!o.upsert) return { matchedCount: 0, modifiedCount: 0, upsertedId: null, before: null, after: null };
      // mingo refuses to write `_id` at all, so it is taken out and set directly.
      const { _id: filterId, ...seedFields } = upsertSeedFields(filter);
      const { _id: setId, ...set } = modifier.$set ?? {};
      const { _id: insertId, ...onInsert } = $setOnInsert ?? {};
      const seed: AnyObject = {};
      if (Object.keys(seedFields).length > 0) applyModifier(seed, { $set: deepClone(seedFields) });
      const onCreate = { ...modifier, ...(modifier.$set ? { $set: set } : {}) };
      if (Object.keys(onCreate).length > 0) applyModifier(seed, deepClone(onCreate));
      if (Object.keys(onInsert).length > 0) applyModifier(seed, { $set: deepClone(onInsert) });
      seed._id = filterId ?? setId ?? insertId ?? randomUUID(); // the mongo engine also picks a string
      // Like mongoose's upsert: defaults applied, validators only on the update's own paths.
      const next = this.cast(this.stamp(seed, true), validatedPaths({ ...modifier, $setOnInsert: $setOnInsert ?? {} }));
      this.checkInsert(next, w);
      this.commit(next._id, undefined, next, w);
      return { matchedCount: 0, modifiedCount: 0, upsertedId: next._id, before: null, after: next };
    }

    // The filter is only needed again to resolve positional `$` paths.
    const condition = hasPositionalPath(modifier) ? filter : undefined;
    const paths = validatedPaths(modifier);
    let modifiedCount = 0;
    let before: Doc | null = null;
    let after: Doc | null = null;
    for (const target of targets) {
      const { working, changed } = updatedCopy(target, modifier, condition);
      let next = target;
      if (changed.length > 0) {
        if (working._id !== target._id) throw new Error(`${this.name}: the _id field is immutable`);
        next = this.cast(working, paths);
        this.checkUnique(target._id, next, w, target);
        this.commit(target._id, target, next, w);
        modifiedCount++;
      }
      before ??= target;
      after ??= next;
    }
    return { matchedCount: targets.length, modifiedCount, upsertedId: null, before, after };
  }

  private runDelete(filter: Filter, limit: number, w: Writer): { deletedCount: number } {
    const targets = this.select(filter, undefined, 0, limit, w.tx);
    for (const target of targets) this.checkWritable(target.doc._id, w);
    for (const target of targets) this.commit(target.doc._id, target.doc, undefined, w);
    return { deletedCount: targets.length };
  }
}

export interface MemoryStoreOptions {
  /**
   * Time limit of every wait, as STORE_TIMEOUT_MS on MongoDB: a lone write waiting for a
   * transaction, any call while frozen, and the retries of a transaction. Default 2000 ms.
   */
  timeoutMs?: number;
  /** Where committed changes are written and read back at start (DATA_DIR); default: nowhere. */
  persistence?: StorePersistence;
}

/** The embedded engine, with its test-only fault hook. */
export interface MemoryDocumentStore extends DocumentStore {
  readonly engine: 'memory';
  /**
   * Test fault: from now on every call hangs, as against a frozen database, and fails with
   * StoreUnavailableError after the time limit; ready() is false. Calls waiting when thaw() is
   * called go on normally.
   */
  freeze(): void;
  thaw(): void;
}

/** Resolves when `promise` does or after `ms` (whichever first), true when the promise won. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return (await settleWithin(promise, ms)) !== null;
}

/**
 * The transactions the current async context runs inside, innermost first, one list for every
 * memory store of the process, carried by the process's one AsyncLocalStorage (context.ts): each
 * instance adds work to every promise and callback the process creates, so the embedded stack's
 * six stores and the request context share one.
 */
interface OpenTransaction {
  readonly store: MemoryStore;
  readonly tx: MemoryTx;
  readonly outer: OpenTransaction | undefined;
}

class MemoryStore implements MemoryDocumentStore {
  readonly engine = 'memory' as const;
  /** Compiled filters, reused across calls and collections of this store. */
  readonly queries = new QueryCache(2048);
  private readonly base = new mongoose.Mongoose();
  private readonly collections = new Map<string, MemoryCollection<Doc>>();
  private readonly txs = new WeakSet<MemoryTx>();
  /** Commit number of the last commit (lone writes and transactions alike). */
  private clock = 0;
  private closed = false;
  private frozen: { thawed: Promise<void>; thaw: () => void } | null = null;
  readonly timeoutMs: number;
  private readonly persistence: StorePersistence | undefined;

  constructor(opts: MemoryStoreOptions = {}) {
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
    this.persistence = opts.persistence;
  }

  collection<T extends Doc>(spec: CollectionSpec): Collection<T> {
    let coll = this.collections.get(spec.name);
    if (!coll) {
      coll = new MemoryCollection<Doc>(spec.name, spec.schema, this.base, this);
      this.collections.set(spec.name, coll);
      if (this.persistence) coll.loadPersisted(this.persistence.load(spec.name));
    }
    return coll as unknown as Collection<T>;
  }

  /** Collections and their indexes exist from registration on; init only checks the store answers. */
  async init(): Promise<void> {
    await this.gate(Date.now() + this.timeoutMs);
  }

  async transaction<R>(work: (tx: Tx) => Promise<R>): Promise<R> {
    const open = currentTransactions<OpenTransaction>();
    for (let t = open; t; t = t.outer) {
      if (t.store === this && t.tx.state === 'active') throw new Error('memory store: nested transactions are not supported');
    }
    const deadline = Date.now() + this.timeoutMs;
    for (let attempt = 1; ; attempt++) {
      if (!this.answering()) await this.gate(deadline);
      const tx = this.begin();
      try {
        const result = await runWithTransactions<OpenTransaction, Promise<R>>({ store: this, tx, outer: open }, () => work(tx));
        if (tx.state === 'aborted') throw new TransactionAbortedError(tx.abortReason);
        if (!this.answering()) await this.gate(deadline); // the commit waits for a frozen store too
        await this.commitDurably(tx);
        return result;
      } catch (err) {
        if (tx.state === 'active') this.abort(tx, err);
        if (err instanceof StoreUnavailableError) throw err; // a closed store or a refused disk: no retry
        const transient = isTransientStoreError(err) || isTransientStoreError(tx.abortReason);
        const pause = transactionBackoffMs(attempt);
        if (!transient || Date.now() + pause >= deadline) throw err;
        await sleep(pause);
      }
    }
  }

  async ready(): Promise<boolean> {
    return !this.closed && !this.frozen;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.thaw(); // waiting calls fail as closed instead of hanging
    // Commits already queued for the disk reach it first.
    await this.persistence?.close();
  }

  freeze(): void {
    if (this.frozen) return;
    let thaw: () => void = () => undefined;
    const thawed = new Promise<void>((resolve) => (thaw = resolve));
    this.frozen = { thawed, thaw };
  }

  thaw(): void {
    const frozen = this.frozen;
    this.frozen = null;
    frozen?.thaw();
  }

  /** Waits while frozen, up to the deadline; fails when closed or still frozen then. */
  private async gate(deadline: number): Promise<void> {
    if (this.frozen) await within(this.frozen.thawed, deadline - Date.now());
    if (this.closed) throw new StoreUnavailableError('memory store: closed');
    if (this.frozen) throw new StoreUnavailableError(`memory store: no answer within ${this.timeoutMs} ms (frozen)`);
  }

  private begin(): MemoryTx {
    let end: () => void = () => undefined;
    const ended = new Promise<void>((resolve) => (end = resolve));
    const tx: MemoryTx = {
      id: randomUUID(),
      journal: [],
      state: 'active',
      abortReason: undefined,
      snapshot: this.clock,
      touched: [],
      reserved: [],
      ended,
      end,
    };
    this.txs.add(tx);
    return tx;
  }

  /** Rolls a transaction back at once (its documents are free for others) and remembers why. */
  private abort(tx: MemoryTx, reason: unknown): void {
    for (let i = tx.journal.length - 1; i >= 0; i--) {
      const entry = tx.journal[i];
      if (entry) entry.coll.restore(entry);
    }
    tx.abortReason = reason;
    this.finish(tx, false);
  }

  /** Ends a transaction: committed versions get a commit number; dirty marks and keys are released. */
  private finish(tx: MemoryTx, committed: boolean): void {
    const version = committed ? ++this.clock : 0;
    for (const { coll, id } of tx.touched) {
      if (committed) coll.stampCommitted(id, version);
      coll.release(id, tx);
    }
    for (const { index, key } of tx.reserved) if (index.reserved.get(key) === tx) index.reserved.delete(key);
    tx.journal.length = 0;
    tx.state = committed ? 'ended' : 'aborted';
    tx.end();
  }

  /** Neither frozen nor closed: a read can run at once (no await on the common path). */
  answering(): boolean {
    return !this.frozen && !this.closed;
  }

  checkTx(tx: Tx | undefined): MemoryTx | undefined {
    if (tx === undefined) return undefined;
    if (!this.txs.has(tx as MemoryTx)) throw new Error('memory store: tx does not belong to this store');
    const memTx = tx as MemoryTx;
    if (memTx.state === 'aborted') throw new TransactionAbortedError(memTx.abortReason);
    if (memTx.state !== 'active') throw new Error('memory store: transaction is no longer active');
    return memTx;
  }

  /** The transaction a read runs in (checked), after waiting out a freeze. */
  async reader(tx: Tx | undefined): Promise<MemoryTx | undefined> {
    await this.gate(Date.now() + this.timeoutMs);
    return this.checkTx(tx);
  }

  /**
   * Runs a synchronous write. In a transaction it runs at once; any error aborts the
   * transaction (a conflict with another open transaction is a WriteConflictError). A lone write
   * that meets a document or key an open transaction holds undoes what it did, waits for that
   * transaction to end (up to the time limit) and runs again, as MongoDB does; it gets its
   * commit number when it succeeds (or stops part way, as an ordered insertMany does).
   */
  async write<R>(tx: Tx | undefined, fn: (w: Writer) => R): Promise<R> {
    const deadline = Date.now() + this.timeoutMs;
    // No wait on the common path (neither frozen nor closed), as for reads.
    if (!this.answering()) await this.gate(deadline);
    const memTx = this.checkTx(tx);
    if (memTx) {
      try {
        return fn({ tx: memTx, journal: memTx.journal });
      } catch (err) {
        const reason = err instanceof Blocked ? new WriteConflictError(err.collection, `${err.detail} is written by another open transaction`) : err;
        this.abort(memTx, reason);
        throw reason;
      }
    }
    for (;;) {
      // With persistence, a lone write owns what it writes (as a transaction does) until it is
      // on disk: other writers wait for it and readers see the versions before it.
      const owner = this.persistence ? this.begin() : undefined;
      const w: Writer = { tx: owner, journal: owner ? owner.journal : [] };
      let outcome: { ok: true; value: R } | { ok: false; error: unknown };
      try {
        outcome = { ok: true, value: fn(w) };
      } catch (err) {
        if (err instanceof Blocked) {
          if (owner) this.abort(owner, err);
          else {
            for (let i = w.journal.length - 1; i >= 0; i--) {
              const entry = w.journal[i];
              if (entry) entry.coll.restore(entry);
            }
          }
          if (!(await within(err.holder.ended, deadline - Date.now()))) {
            throw new StoreUnavailableError(`memory store: ${err.message}; no answer within ${this.timeoutMs} ms`);
          }
          await this.gate(deadline);
          continue;
        }
        // What it changed before the error (an ordered insertMany stops at a duplicate) stays.
        outcome = { ok: false, error: err };
      }
      if (owner) await this.commitDurably(owner);
      else this.stampLone(w);
      if (!outcome.ok) throw outcome.error;
      return outcome.value;
    }
  }

  /**
   * Commits a transaction (or a lone write's owner). With persistence, the final state of every
   * document it touched is written in ONE LMDB write, awaited before the commit is acknowledged;
   * the documents stay owned by it until then, so no other writer changes them in between and
   * no reader sees them before they are on disk. The write is queued synchronously here, in
   * commit order, and the disk queue (DurableEnv) commits its batches in queue order: the disk
   * sees commits in the order they were made, and they become visible in that same order. On a
   * failure the in-memory changes are undone and the commit fails with StoreUnavailableError.
   */
  private async commitDurably(tx: MemoryTx): Promise<void> {
    const persistence = this.persistence;
    if (!persistence || tx.touched.length === 0) {
      this.finish(tx, true);
      return;
    }
    const changes = tx.touched.map(({ coll, id }) => coll.persistedState(id));
    try {
      await persistence.write(changes);
    } catch (err) {
      const error =
        err instanceof StoreUnavailableError
          ? err
          : new StoreUnavailableError(`memory store: the write did not reach the disk (${String(err)})`, { cause: err });
      if (tx.state === 'active') this.abort(tx, error);
      throw error;
    }
    this.finish(tx, true);
  }

  private stampLone(w: Writer): void {
    if (w.journal.length === 0) return;
    const version = ++this.clock;
    for (const { coll, id } of w.journal) coll.stampCommitted(id, version);
  }
}

export function createMemoryStore(opts: MemoryStoreOptions = {}): MemoryDocumentStore {
  return new MemoryStore(opts);
}
