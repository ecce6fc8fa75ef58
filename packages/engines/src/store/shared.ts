// Helpers both engines share, so they agree on schema shape, update shape and error mapping.
import mongoose, { Schema } from 'mongoose';
import type { Filter, Update } from '@vrp/platform/store';

/**
 * Copy of the caller's schema as both engines use it: `_id` is a caller-chosen string and there
 * is no version key (lean reads would otherwise return `__v` on mongo only).
 */
export function prepareSchema(schema: Schema): Schema {
  const prepared = schema.clone();
  if (prepared.path('_id')?.instance !== 'String') prepared.add({ _id: { type: String, required: true } });
  prepared.set('versionKey', false);
  return prepared;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function isOperatorObject(value: unknown): value is Record<string, unknown> {
  return isPlainObject(value) && Object.keys(value).some((k) => k.startsWith('$'));
}

/**
 * Mongoose's rule for update documents: top-level keys without `$` are folded into `$set`
 * (updateOne never replaces a whole document).
 */
export function normalizeUpdate(update: Update): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  const plain: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(update)) {
    if (key.startsWith('$')) {
      if (!isPlainObject(value)) throw new TypeError(`update operator ${key} needs an object`);
      out[key] = { ...value };
    } else {
      plain[key] = value;
    }
  }
  if (Object.keys(plain).length > 0) out.$set = { ...plain, ...out.$set };
  return out;
}

/**
 * The equality fields of a filter, which MongoDB copies into a document created by an upsert
 * (top level and inside `$and`; `{ f: { $eq: v } }` counts as equality). Keys may be dotted.
 */
export function upsertSeedFields(filter: Filter): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(value)) {
      for (const part of value) if (isPlainObject(part)) Object.assign(out, upsertSeedFields(part));
    } else if (key.startsWith('$') || value instanceof RegExp) {
      continue;
    } else if (isOperatorObject(value)) {
      if ('$eq' in value && Object.keys(value).length === 1) out[key] = value.$eq;
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** True when an upsert of (filter, update) determines the new document's `_id`. */
export function upsertDeterminesId(filter: Filter, update: Update): boolean {
  if ('_id' in upsertSeedFields(filter)) return true;
  const normalized = normalizeUpdate(update);
  return normalized.$set?._id !== undefined || normalized.$setOnInsert?._id !== undefined;
}

/** The field names a schema's `timestamps` option maintains (mongoose's rules). */
export function timestampFields(schema: Schema): { createdAt?: string; updatedAt?: string } {
  const option: unknown = schema.get('timestamps');
  if (option === true) return { createdAt: 'createdAt', updatedAt: 'updatedAt' };
  if (!isPlainObject(option)) return {};
  const pick = (value: unknown, fallback: string): string | undefined => (typeof value === 'string' ? value : value === false ? undefined : fallback);
  const out: { createdAt?: string; updatedAt?: string } = {};
  const createdAt = pick(option.createdAt, 'createdAt');
  const updatedAt = pick(option.updatedAt, 'updatedAt');
  if (createdAt) out.createdAt = createdAt;
  if (updatedAt) out.updatedAt = updatedAt;
  return out;
}

/** path -> message from a mongoose ValidationError or CastError; null for any other error. */
export function validationFields(err: unknown): Record<string, string> | null {
  if (!(err instanceof mongoose.Error)) return null;
  const e = err as Error & { errors?: unknown; path?: unknown };
  if (e.name === 'ValidationError' && isPlainObject(e.errors)) {
    const fields: Record<string, string> = {};
    for (const [path, inner] of Object.entries(e.errors)) {
      fields[path] = inner instanceof Error ? inner.message : String(inner);
    }
    return fields;
  }
  if (e.name === 'CastError' || e.name === 'StrictModeError') {
    return { [typeof e.path === 'string' ? e.path : '(document)']: e.message };
  }
  return null;
}

/**
 * Deep copy for documents crossing the store boundary. Plain objects, arrays, dates and byte
 * arrays are copied; other class instances (bson ObjectId, Decimal128) are immutable values and
 * kept, which structuredClone would turn into plain objects.
 */
export function deepClone<T>(value: T): T {
  return cloneValue(value) as T;
}

function cloneValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(cloneValue);
  if (value instanceof Date) return new Date(value.getTime());
  if (Buffer.isBuffer(value)) return Buffer.from(value);
  if (value instanceof Uint8Array) return value.slice();
  if (value instanceof RegExp) return new RegExp(value.source, value.flags);
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) out[key] = cloneValue(value[key]);
    return out;
  }
  return value;
}

/**
 * Index key of one scalar, or undefined for values an equality lookup is never built from (null,
 * objects, arrays...). Equal values under mingo's equality always get equal keys; different values
 * may share a key (that only widens the candidate set). Dates use their time value.
 */
export function scalarKey(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return `s${value}`;
    case 'number':
      return `n${value}`; // `${-0}` is "0": mingo treats 0 and -0 as equal too
    case 'boolean':
      return value ? 'T' : 'F';
    case 'object':
      return value instanceof Date ? `d${value.getTime()}` : undefined;
    default:
      return undefined;
  }
}

/**
 * The same index key for certain: one string, number, boolean, null or undefined, or two valid
 * dates of one time. Anything else (objects, arrays, NaN) counts as changed, so an index that
 * keeps it recomputes its keys (and the ordered indexes their multikey and irregular counts).
 */
export function samePlainValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date) return b instanceof Date && a.getTime() === b.getTime() && !Number.isNaN(a.getTime());
  if (a !== null && typeof a === 'object') return false;
  return a === b;
}

/**
 * True when every path is one top-level field holding the same plain value (samePlainValue) in
 * both versions: an index over those fields has the same keys for both. False for any dotted
 * path, which is compared by its keys.
 */
export function samePlainFields(paths: readonly (readonly string[])[], prev: Record<string, unknown>, next: Record<string, unknown>): boolean {
  for (const parts of paths) {
    if (parts.length !== 1) return false;
    const field = parts[0] as string;
    if (!samePlainValue(prev[field], next[field])) return false;
  }
  return true;
}

/**
 * Waits for `promise` at most `ms` milliseconds: its value, or null when the time ran out first
 * (the promise itself is not cancelled). The timer never outlives the wait.
 */
export async function settleWithin<T>(promise: Promise<T>, ms: number): Promise<{ value: T } | null> {
  if (ms <= 0) return null;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  try {
    return await Promise.race([promise.then((value) => ({ value })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Backoff before attempt `attempt + 1` of a transaction: 5, 10, 20... up to 100 ms, jittered (half to full). */
export function transactionBackoffMs(attempt: number): number {
  const ceiling = Math.min(100, 5 * 2 ** Math.max(0, attempt - 1));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Default time limit of every store call (STORE_TIMEOUT_MS): below the gateway's upstream deadline (UPSTREAM_DEADLINE_MS, 3 s by default). */
export const DEFAULT_STORE_TIMEOUT_MS = 2000;
