// Idempotency rules: which keys are acceptable, what counts as "the same request", and how long
// a record lives. Pure: no I/O.
import { createHash } from 'node:crypto';

/** Records are kept this long; a key may be reused for a new request after that. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * A claimed key whose request never completed (the process died mid-request) is taken over
 * after this long, so a crash does not block the key for a whole day.
 */
export const IDEMPOTENCY_LOCK_MS = 60 * 1000;

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** Visible ASCII, 1..255 characters (UUIDs and the like). */
export function isValidIdempotencyKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

/** JSON with object keys sorted, so that key order and whitespace do not make a request "different". */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.keys(value)
    .sort()
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

/** Fingerprint of a request: method, path and body. Same key + other fingerprint = conflict. */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()} ${path}\n${canonicalJson(body ?? null)}`)
    .digest('hex');
}
