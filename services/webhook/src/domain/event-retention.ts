// How long the Events API keeps an event: 30 days by default (WEBHOOK_EVENT_RETENTION_DAYS).
// The minimum exceeds the retry schedule (about three days, domain/retry.ts), so an event is
// never removed while a delivery of it may still be attempted.
import { RETRY_DELAYS_SECONDS } from './retry';

export const DEFAULT_EVENT_RETENTION_DAYS = 30;
export const MIN_EVENT_RETENTION_DAYS = Math.ceil((RETRY_DELAYS_SECONDS.reduce((a, b) => a + b, 0) * 1.2) / 86_400) + 1;

const DAY_MS = 86_400_000;

/** When an event stored at `storedAt` leaves the Events API. */
export function eventExpiresAt(storedAt: Date, retentionDays: number): Date {
  return new Date(storedAt.getTime() + retentionDays * DAY_MS);
}
