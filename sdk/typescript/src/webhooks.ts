// Verification of webhook deliveries (docs/webhooks.md, "Verifying signatures"): the
// `Vrp-Signature` header is `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, one v1
// per valid secret while a rotated secret is in its grace period. The timestamp is signed, so
// refusing one outside the tolerance refuses a captured delivery replayed later.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { components } from './generated/api';

type Schemas = components['schemas'];
/** The body of a delivery: one of the event schemas of the OpenAPI document's `webhooks`. */
export type WebhookEvent =
  Schemas['ListingEvent'] | Schemas['ReservationEvent'] | Schemas['GuestEvent'] | Schemas['MessageEvent'] | Schemas['ReviewEvent'] | Schemas['RequestEvent'];

export const SIGNATURE_HEADER = 'vrp-signature';
/** Default tolerance between the signed timestamp and the receiver's clock. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type WebhookVerificationFailure = 'missing_header' | 'malformed_header' | 'timestamp_outside_tolerance' | 'no_matching_signature' | 'invalid_json';

export class WebhookVerificationError extends Error {
  constructor(readonly reason: WebhookVerificationFailure) {
    super(`webhook verification failed: ${reason}`);
    this.name = 'WebhookVerificationError';
  }
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function headerOf(headers: HeaderBag, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : headers[key];
  return Array.isArray(value) ? value.join(',') : value;
}

export interface VerifyOptions {
  toleranceSeconds?: number;
  /** The receiver's clock, in milliseconds (tests). */
  now?: () => number;
}

/**
 * Checks a delivery and returns its event. `body` is the raw body as received (before any JSON
 * parsing), `headers` the request's headers, `secret` the subscription's signing secret (or
 * several, e.g. the old and the new one around a rotation). Throws WebhookVerificationError.
 */
export function verify(body: string | Uint8Array, headers: HeaderBag, secret: string | readonly string[], opts: VerifyOptions = {}): WebhookEvent {
  const header = headerOf(headers, SIGNATURE_HEADER);
  if (!header) throw new WebhookVerificationError('missing_header');
  const items = header.split(',').map((part) => {
    const at = part.indexOf('=');
    return at < 0 ? ['', ''] : [part.slice(0, at).trim(), part.slice(at + 1).trim()];
  });
  const tText = items.find(([k]) => k === 't')?.[1] ?? '';
  const candidates = items.filter(([k, v]) => k === 'v1' && /^[0-9a-f]{64}$/i.test(v ?? '')).map(([, v]) => Buffer.from(v!, 'hex'));
  if (!/^\d+$/.test(tText) || candidates.length === 0) throw new WebhookVerificationError('malformed_header');
  const t = Number(tText);
  const nowSeconds = (opts.now ?? Date.now)() / 1000;
  if (Math.abs(nowSeconds - t) > (opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) throw new WebhookVerificationError('timestamp_outside_tolerance');
  const raw = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
  const secrets = typeof secret === 'string' ? [secret] : secret;
  const signed = Buffer.concat([Buffer.from(`${t}.`, 'utf8'), raw]);
  const matches = secrets.some((s) => {
    const expected = createHmac('sha256', s).update(signed).digest();
    return candidates.some((c) => timingSafeEqual(c, expected));
  });
  if (!matches) throw new WebhookVerificationError('no_matching_signature');
  try {
    return JSON.parse(raw.toString('utf8')) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('invalid_json');
  }
}
