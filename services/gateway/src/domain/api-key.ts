// API keys: `sk_<mode>_<secret>`. The secret is random (crypto.randomBytes through base58, so
// no ambiguous 0/O/I/l characters), shown once on creation and stored only as an
// HMAC-SHA256 under a server-side pepper. A pepper (unlike a per-key salt) keeps the hash
// deterministic, so a key is found with one indexed equality lookup, while a leaked key table
// is useless without the gateway's secret. Pure functions: no I/O.
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { MODES } from '@vrp/api-model';
import { randomBase58 } from '@vrp/platform';

export const API_KEY_MODES = MODES;
export type ApiKeyMode = (typeof API_KEY_MODES)[number];

/** Length of a generated secret: 40 base58 characters, about 234 bits. */
export const GENERATED_SECRET_LENGTH = 40;
/** Characters of the secret kept for display (`sk_test_abcd…`). */
export const DISPLAY_SECRET_CHARS = 4;

// Accepts base62 secrets (a superset of base58) so operators can pin a stable demo key; the
// minimum keeps even hand-picked keys long enough to resist guessing.
const API_KEY_PATTERN = /^sk_(test|live)_([A-Za-z0-9]{32,128})$/;

export interface ParsedApiKey {
  readonly raw: string;
  readonly mode: ApiKeyMode;
  readonly secret: string;
}

/** The key's parts, or null when it is not a well-formed key. */
export function parseApiKey(raw: string): ParsedApiKey | null {
  const match = API_KEY_PATTERN.exec(raw);
  if (!match) return null;
  return { raw, mode: match[1] as ApiKeyMode, secret: match[2]! };
}

export function generateApiKey(mode: ApiKeyMode): string {
  return `sk_${mode}_${randomBase58(GENERATED_SECRET_LENGTH)}`;
}

/**
 * The pepper as a KeyObject, made once per pepper: createHmac with a string key imports the key
 * again on every call (about 1 of its 4 µs, on every API request).
 */
const pepperKeys = new Map<string, KeyObject>();

/** Hex HMAC-SHA256 of the whole key (mode prefix included) under the pepper. */
export function hashApiKey(raw: string, pepper: string): string {
  let key = pepperKeys.get(pepper);
  if (!key) pepperKeys.set(pepper, (key = createSecretKey(Buffer.from(pepper, 'utf8'))));
  return createHmac('sha256', key).update(raw, 'utf8').digest('hex');
}

/** Constant-time comparison of a presented key against a stored hash. */
export function apiKeyMatchesHash(raw: string, pepper: string, storedHash: string): boolean {
  return hashesMatch(hashApiKey(raw, pepper), storedHash);
}

/** Constant-time comparison of the hash of a presented key (already computed) with a stored hash. */
export function hashesMatch(presentedHash: string, storedHash: string): boolean {
  const presented = Buffer.from(presentedHash, 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

/** Short, non-secret identification of a key: its mode prefix plus the first secret characters. */
export function displayPrefix(key: ParsedApiKey): string {
  return `sk_${key.mode}_${key.secret.slice(0, DISPLAY_SECRET_CHARS)}`;
}

/** What a listing of keys shows instead of the key: `sk_test_abcd…`. */
export function maskedKey(prefix: string): string {
  return `${prefix}…`;
}
