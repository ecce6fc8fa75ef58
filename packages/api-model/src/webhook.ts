// The API's JSON of a webhook subscription and of a delivery, from the webhook service's proto
// messages; the types are the schemas' (./schemas/webhook.ts).
import type { z } from 'zod';
import type { webhook as pb } from '@vrp/contracts';
import type { webhookDeliverySchema, webhookSubscriptionSchema } from './schemas/webhook';
import { DELIVERY_DROP_REASONS, DELIVERY_STATUSES, isOneOf } from './vocabulary';

export type ApiWebhookSubscription = z.infer<typeof webhookSubscriptionSchema>;
export type ApiWebhookDelivery = z.infer<typeof webhookDeliverySchema>;

const iso = (d: Date | undefined) => (d ? d.toISOString() : null);
const orNull = (v: string) => (v === '' ? null : v);

export function toApiSubscription(s: pb.Subscription | undefined): ApiWebhookSubscription {
  if (!s) throw new Error('webhook service answered without a subscription');
  return {
    id: s.id,
    url: s.url,
    description: s.description,
    eventTypes: [...s.eventTypes],
    enabled: s.enabled,
    mode: s.mode === 'live' ? 'live' : 'test',
    disabledReason: orNull(s.disabledReason),
    disabledAt: iso(s.disabledAt),
    previousSecretExpiresAt: iso(s.previousSecretExpiresAt),
    createdAt: iso(s.createdAt) ?? new Date(0).toISOString(),
    updatedAt: iso(s.updatedAt ?? s.createdAt) ?? new Date(0).toISOString(),
  };
}

export function toApiDelivery(d: pb.Delivery | undefined): ApiWebhookDelivery {
  if (!d) throw new Error('webhook service answered without a delivery');
  return {
    id: d.id,
    subscriptionId: d.subscriptionId,
    eventId: d.eventId,
    eventType: d.eventType,
    listingId: orNull(d.listingId),
    status: isOneOf(DELIVERY_STATUSES, d.status) ? d.status : 'pending',
    attempts: d.attempts,
    nextAttemptAt: iso(d.nextAttemptAt),
    lastAttemptAt: iso(d.lastAttemptAt),
    responseStatus: d.responseStatus || null,
    responseBody: d.attempts > 0 && d.responseStatus ? d.responseBody : null,
    responseTimeMs: d.attempts > 0 ? d.responseTimeMs : null,
    lastError: orNull(d.lastError),
    droppedReason: isOneOf(DELIVERY_DROP_REASONS, d.droppedReason) ? d.droppedReason : null,
    replayOf: orNull(d.replayOf),
    createdAt: iso(d.createdAt) ?? new Date(0).toISOString(),
    completedAt: iso(d.completedAt),
  };
}
