// Domain <-> proto for the webhook service.
import { webhook as pb } from '@vrp/contracts';
import { validationFailed } from '@vrp/platform/errors';
import type { DeliveryRecord, WebhookEvent } from '../domain/delivery';
import type { SubscriptionView } from '../domain/subscription';
import type { KeyMode } from '../domain/target';

const orUndefined = (d: Date | null) => d ?? undefined;

export function toProtoSubscription(s: SubscriptionView): pb.Subscription {
  return pb.Subscription.create({
    id: s.id,
    workspaceId: s.workspaceId,
    url: s.url,
    description: s.description,
    eventTypes: [...s.eventTypes],
    enabled: s.enabled,
    mode: s.mode,
    disabledReason: s.disabledReason ?? '',
    disabledAt: orUndefined(s.disabledAt),
    previousSecretExpiresAt: orUndefined(s.previousSecretExpiresAt),
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  });
}

export function toProtoDelivery(d: DeliveryRecord): pb.Delivery {
  return pb.Delivery.create({
    id: d.id,
    subscriptionId: d.subscriptionId,
    eventId: d.eventId,
    eventType: d.eventType,
    listingId: d.listingId ?? '',
    status: d.status,
    attempts: d.attempts,
    nextAttemptAt: orUndefined(d.nextAttemptAt),
    lastAttemptAt: orUndefined(d.lastAttemptAt),
    responseStatus: d.responseStatus ?? 0,
    responseBody: d.responseBody ?? '',
    responseTimeMs: d.responseTimeMs ?? 0,
    lastError: d.lastError ?? '',
    createdAt: d.createdAt,
    completedAt: orUndefined(d.completedAt),
    droppedReason: d.droppedReason ?? '',
    replayOf: d.replayOf ?? '',
  });
}

/** The caller's key mode; a request that does not say is a caller bug, refused rather than guessed. */
export function fromProtoMode(mode: pb.KeyMode): KeyMode {
  if (mode === pb.KeyMode.KEY_MODE_LIVE) return 'live';
  if (mode === pb.KeyMode.KEY_MODE_TEST) return 'test';
  throw validationFailed({ mode: 'is required (test or live)' });
}

/** A stored event: its body exactly as every delivery sends it. */
export function toProtoEvent(e: WebhookEvent): pb.StoredEvent {
  return { id: e.id, bodyJson: e.body };
}
