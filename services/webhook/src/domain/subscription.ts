// Webhook subscriptions: where a workspace's events are delivered, with what secret, and
// whether the service has given up on the endpoint. No I/O here.
import { DEFAULT_ROTATION_GRACE_SECONDS, MAX_ROTATION_GRACE_SECONDS, MAX_WEBHOOK_DESCRIPTION_LENGTH } from '@vrp/api-model';
import { newId, randomBase58 } from '@vrp/platform/ids';
import type { KeyMode } from './target';

/** A subscription as read back by the API: everything except the signing secrets. */
export interface SubscriptionView {
  id: string;
  workspaceId: string;
  /** Delivery endpoint. */
  url: string;
  description: string;
  /** Event types delivered; empty means every type. */
  eventTypes: string[];
  enabled: boolean;
  /** The mode of the key that created it: live enforces https and public addresses. */
  mode: KeyMode;
  /** Set when the service disabled the endpoint after persistent failures. */
  disabledReason: string | null;
  disabledAt: Date | null;
  /** While set and in the future, the previous secret still signs deliveries. */
  previousSecretExpiresAt: Date | null;
  /**
   * Last acknowledged delivery, to within SUCCESS_RECORD_WINDOW_MS (a success is written only when
   * the stored one is older than that): a failure after it does not disable the endpoint.
   */
  lastSuccessAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * The stored subscription. The secret signs deliveries (HMAC), so it must be kept in a form the
 * service can sign with; it is shown once at creation (and rotation) and never read back, which
 * is why reads return SubscriptionView and not this type.
 */
export interface SubscriptionRecord extends SubscriptionView {
  secret: string;
  previousSecret: string | null;
}

// The limits are the API's vocabulary (@vrp/api-model), which the gateway checks too.
export { DEFAULT_ROTATION_GRACE_SECONDS, MAX_ROTATION_GRACE_SECONDS };
export const MAX_DESCRIPTION_LENGTH = MAX_WEBHOOK_DESCRIPTION_LENGTH;

export function newSecret(): string {
  return `whsec_${randomBase58(32)}`;
}

/** A new subscription with a fresh secret, as the API creates it (enabled unless told otherwise). */
export function newSubscription(
  workspaceId: string,
  mode: KeyMode,
  input: { url: string; description: string; eventTypes: string[]; enabled: boolean },
  now: Date,
): SubscriptionRecord {
  return {
    id: newId('whs'),
    workspaceId,
    ...input,
    mode,
    disabledReason: null,
    disabledAt: null,
    previousSecretExpiresAt: null,
    lastSuccessAt: null,
    createdAt: now,
    updatedAt: now,
    secret: newSecret(),
    previousSecret: null,
  };
}

/** The secrets that sign a delivery now: the current one, and the previous one in its grace period. */
export function signingSecrets(s: Pick<SubscriptionRecord, 'secret' | 'previousSecret' | 'previousSecretExpiresAt'>, now: Date): string[] {
  const out = [s.secret];
  if (s.previousSecret && s.previousSecretExpiresAt && s.previousSecretExpiresAt > now) out.push(s.previousSecret);
  return out;
}

/** A rotation: the new secret signs from now on; the old one keeps signing until the grace ends. */
export function rotation(s: Pick<SubscriptionRecord, 'secret'>, now: Date, graceSeconds: number) {
  const secret = newSecret();
  return {
    secret,
    previousSecret: graceSeconds > 0 ? s.secret : null,
    previousSecretExpiresAt: graceSeconds > 0 ? new Date(now.getTime() + graceSeconds * 1000) : null,
  };
}

export function rotationGrace(requested: number): { seconds: number } | { error: string } {
  if (requested === 0) return { seconds: DEFAULT_ROTATION_GRACE_SECONDS };
  if (!Number.isInteger(requested) || requested < 0 || requested > MAX_ROTATION_GRACE_SECONDS) {
    return { error: `must be an integer between 0 and ${MAX_ROTATION_GRACE_SECONDS}` };
  }
  return { seconds: requested };
}

/**
 * How stale `lastSuccessAt` may be. An acknowledged delivery writes its time only when the stored
 * one is older than this (under load an endpoint acknowledges hundreds of deliveries a second,
 * and writing each one would be a tenth of a delivery's CPU on the embedded engine), so the
 * stored time is at most this much before the latest success. persistentFailure allows for it.
 */
export const SUCCESS_RECORD_WINDOW_MS = 1000;

/**
 * Whether an acknowledged delivery at `at` has to write its time, given the last success as the
 * delivery's attempt read it with the subscription: only when that is absent or older than the
 * window (the store's write is guarded the same way against a concurrent one). The stored time
 * only moves forward, except that re-enabling an endpoint clears it; an attempt that read the
 * subscription before such a re-enabling and skips its write began before it, and successes of
 * attempts begun before a re-enabling do not count for the endpoint after it.
 */
export function successRecordDue(lastSuccessAt: Date | null, at: Date): boolean {
  return lastSuccessAt === null || lastSuccessAt.getTime() < at.getTime() - SUCCESS_RECORD_WINDOW_MS;
}

/**
 * A delivery just exhausted its retries. The endpoint is disabled when nothing it received
 * since that delivery was first attempted succeeded: it has failed persistently for the whole
 * retry schedule (about three days), not merely for one bad event.
 */
export function persistentFailure(
  s: Pick<SubscriptionView, 'lastSuccessAt' | 'enabled'>,
  failed: { createdAt: Date; responseStatus: number | null; lastError: string | null },
  now: Date,
): { disabledReason: string; disabledAt: Date } | null {
  if (!s.enabled) return null;
  // A stored success up to the window before the delivery began may stand for one after it began
  // (see SUCCESS_RECORD_WINDOW_MS): never disable on it. The next delivery to exhaust its retries
  // disables the endpoint if it really failed throughout.
  if (s.lastSuccessAt && s.lastSuccessAt.getTime() >= failed.createdAt.getTime() - SUCCESS_RECORD_WINDOW_MS) return null;
  const last = failed.responseStatus ? `HTTP ${failed.responseStatus}` : (failed.lastError ?? 'no response');
  return {
    disabledReason: `Every delivery since ${failed.createdAt.toISOString()} failed through the whole retry schedule (last attempt: ${last}). Fix the endpoint, then re-enable it with PATCH {"enabled": true}.`,
    disabledAt: now,
  };
}
