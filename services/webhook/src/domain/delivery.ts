// Deliveries: one per (event, subscription), a durable queue entry with its attempt history.
// States: pending -> delivering -> succeeded | pending (retry) | failed; pending -> dropped.
import { DELIVERY_STATUSES, type DeliveryDropReason, type DeliveryStatus } from '@vrp/api-model';
import { MAX_ATTEMPTS, nextRetryAt } from './retry';

export { DELIVERY_STATUSES, type DeliveryStatus };
export type DropReason = DeliveryDropReason;

/** An event as the webhook service stores it: the exact JSON body every delivery of it sends. */
export interface WebhookEvent {
  id: string;
  workspaceId: string;
  type: string;
  /** The listing the event is about; null for events without one (a guest without stays). */
  listingId: string | null;
  /** Deliveries with the same order key (per subscription) go out one after the other. */
  orderKey: string;
  occurredAt: Date;
  /** The body, serialized once so that a retry or a replay sends the same bytes. */
  body: string;
  /** The listings a guest event depends on (the Events API hides it when every one is inactive). */
  listingIds?: string[];
  /** When the Events API stops listing it (and the store removes it). */
  expiresAt?: Date | null;
}

/** The Events API's order: creation time, then id (ISO times of one format sort as text). */
export function eventSortKey(e: Pick<WebhookEvent, 'id' | 'occurredAt'>): string {
  return `${e.occurredAt.toISOString()}|${e.id}`;
}

export interface DeliveryRecord {
  id: string;
  workspaceId: string;
  subscriptionId: string;
  eventId: string;
  eventType: string;
  listingId: string | null;
  orderKey: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: Date | null;
  lastAttemptAt: Date | null;
  responseStatus: number | null;
  responseBody: string | null;
  responseTimeMs: number | null;
  lastError: string | null;
  createdAt: Date;
  completedAt: Date | null;
  droppedReason: DropReason | null;
  replayOf: string | null;
}

/** A new delivery of `event` to a subscription, due at `now`, not attempted yet. */
export function newDelivery(
  id: string,
  subscriptionId: string,
  event: Pick<WebhookEvent, 'id' | 'workspaceId' | 'type' | 'listingId' | 'orderKey'>,
  now: Date,
  replayOf: string | null = null,
): DeliveryRecord {
  return {
    id,
    workspaceId: event.workspaceId,
    subscriptionId,
    eventId: event.id,
    eventType: event.type,
    listingId: event.listingId,
    orderKey: event.orderKey,
    status: 'pending',
    attempts: 0,
    nextAttemptAt: now,
    lastAttemptAt: null,
    responseStatus: null,
    responseBody: null,
    responseTimeMs: null,
    lastError: null,
    createdAt: now,
    completedAt: null,
    droppedReason: null,
    replayOf,
  };
}

/** What one HTTP attempt gave. */
export type AttemptOutcome = { kind: 'response'; status: number; body: string; durationMs: number } | { kind: 'error'; error: string; durationMs: number };

export function isSuccess(outcome: AttemptOutcome): boolean {
  return outcome.kind === 'response' && outcome.status >= 200 && outcome.status < 300;
}

/** The changes to a delivery after an attempt: succeeded, retry later, or failed for good. */
export function afterAttempt(d: Pick<DeliveryRecord, 'attempts'>, outcome: AttemptOutcome, now: Date, random?: () => number): Partial<DeliveryRecord> {
  const attempts = d.attempts + 1;
  const response =
    outcome.kind === 'response'
      ? { responseStatus: outcome.status, responseBody: outcome.body, lastError: null }
      : { responseStatus: null, responseBody: null, lastError: outcome.error };
  const common = { attempts, lastAttemptAt: now, responseTimeMs: outcome.durationMs, ...response };
  if (isSuccess(outcome)) return { ...common, status: 'succeeded', nextAttemptAt: null, completedAt: now };
  const retryAt = attempts < MAX_ATTEMPTS ? nextRetryAt(attempts, now, random) : null;
  if (retryAt) return { ...common, status: 'pending', nextAttemptAt: retryAt };
  return { ...common, status: 'failed', nextAttemptAt: null, completedAt: now };
}

/** The order key of a replay: its own queue, so an old event re-sent does not wait behind (or block) live traffic. */
export const replayOrderKey = (deliveryId: string) => `replay:${deliveryId}`;
