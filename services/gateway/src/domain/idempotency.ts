// Idempotency rules: which keys are acceptable, what counts as "the same request", and how long
// a record lives. Pure: no I/O.
import { createHash } from 'node:crypto';

/** Records are kept this long; a key may be reused for a new request after that. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * The lease of a claimed key: the request that claimed it renews it every
 * IDEMPOTENCY_RENEW_MS while it runs, so a key whose request died with its process is free to
 * a retry this long after the last renewal (not a day, not a minute).
 */
export const IDEMPOTENCY_LEASE_MS = 3_000;
/** How often a running request renews the lease on its key (well inside IDEMPOTENCY_LEASE_MS). */
export const IDEMPOTENCY_RENEW_MS = 1_000;
/** A request still running after this long stops renewing (every upstream call has a deadline far below it). */
export const IDEMPOTENCY_RENEW_MAX_MS = 120_000;

/** Whole seconds a retry waits for a lease that runs until `until` (at least 1). */
export function secondsUntil(until: Date, now: Date): number {
  return Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
}

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
