// Signing of webhook deliveries: HMAC-SHA256 over `<timestamp>.<raw body>` with the
// subscription's secret, sent as `Vrp-Signature: t=<unix seconds>,v1=<hex>` (one v1 per valid
// secret while a rotated secret is in its grace period). The timestamp is signed, so a receiver
// that checks it against a tolerance refuses a captured request replayed later.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'Vrp-Signature';
/** Default tolerance of a receiver between the signed timestamp and its own clock. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export function sign(secret: string, timestampSeconds: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex');
}

/** The header value: the timestamp and one signature per secret. */
export function signatureHeader(secrets: readonly string[], timestampSeconds: number, body: string): string {
  return [`t=${timestampSeconds}`, ...secrets.map((s) => `v1=${sign(s, timestampSeconds, body)}`)].join(',');
}

export type VerifyResult = { ok: true } | { ok: false; reason: 'malformed' | 'timestamp_outside_tolerance' | 'no_matching_signature' };

/**
 * What a receiver does (documented in docs/webhooks.md): parse the header, check the timestamp
 * is within the tolerance, and compare the expected signature in constant time with every v1.
 */
export function verifySignature(opts: { header: string; secret: string; body: string; nowSeconds: number; toleranceSeconds?: number }): VerifyResult {
  const parts = opts.header.split(',').map((p) => p.trim().split('=') as [string, string | undefined]);
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  const candidates = parts.filter(([k, v]) => k === 'v1' && v).map(([, v]) => v!);
  if (!Number.isInteger(t) || candidates.length === 0) return { ok: false, reason: 'malformed' };
  if (Math.abs(opts.nowSeconds - t) > (opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) return { ok: false, reason: 'timestamp_outside_tolerance' };
  const expected = Buffer.from(sign(opts.secret, t, opts.body), 'hex');
  const match = candidates.some((c) => {
    const given = Buffer.from(c, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return match ? { ok: true } : { ok: false, reason: 'no_matching_signature' };
}
