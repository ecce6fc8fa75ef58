// The delivery log of a subscription and the replay of one delivery. Tenant-scoped: another
// workspace's id is not_found, decided before listing_inactive.
import { AppError, notFound, validationFailed } from '@vrp/platform/errors';
import { isDryRun } from '@vrp/platform/context';
import { sortableId } from '@vrp/platform/ids';
import { type PageWindow } from '@vrp/platform/paging';
import { type RequestKey } from '@vrp/platform/applied-requests';
import { DELIVERY_STATUSES, newDelivery, replayOrderKey, type DeliveryRecord, type DeliveryStatus } from '../domain/delivery';
import type { WebhookDeps } from './deps';

export type DeliveriesDeps = Pick<WebhookDeps, 'store' | 'subscriptions' | 'deliveries' | 'cache' | 'clock' | 'onQueued' | 'applied'>;

export async function deliveryPage(deps: DeliveriesDeps, workspaceId: string, subscriptionId: string, status: string, window: PageWindow) {
  if (status && !(DELIVERY_STATUSES as readonly string[]).includes(status))
    throw validationFailed({ status: `must be one of ${DELIVERY_STATUSES.join(', ')}` });
  await deps.subscriptions.get(workspaceId, subscriptionId);
  return deps.deliveries.page(workspaceId, subscriptionId, (status || null) as DeliveryStatus | null, window);
}

/**
 * Sends an old delivery's event again, as a new delivery (same event id and body, so a
 * receiver that de-duplicates ignores it unless it forgot it). 404 before 403: an unknown
 * subscription or delivery is not_found; a listing that is inactive now is listing_inactive.
 */
export function replayDelivery(
  deps: DeliveriesDeps,
  workspaceId: string,
  subscriptionId: string,
  deliveryId: string,
  key: RequestKey | null = null,
): Promise<DeliveryRecord> {
  // A key already applied answers the delivery it queued: the event is not sent a third time.
  return deps.applied.once(
    key,
    () => replayOnce(deps, workspaceId, subscriptionId, deliveryId, key),
    (queued) => deps.deliveries.get(workspaceId, subscriptionId, queued),
  );
}

async function replayOnce(
  deps: DeliveriesDeps,
  workspaceId: string,
  subscriptionId: string,
  deliveryId: string,
  key: RequestKey | null,
): Promise<DeliveryRecord> {
  const subscription = await deps.subscriptions.get(workspaceId, subscriptionId);
  const original = await deps.deliveries.get(workspaceId, subscriptionId, deliveryId);
  if (original.listingId) deps.cache.assertActive(workspaceId, [original.listingId]);
  // Past its retention (docs/events.md) the event is gone: there is nothing left to send.
  if (!(await deps.deliveries.event(original.eventId))) throw notFound('event', original.eventId);
  if (!subscription.enabled) {
    throw new AppError(
      'conflict',
      `Webhook subscription '${subscriptionId}' is disabled.`,
      {},
      'Enable it with PATCH {"enabled": true}, then replay the delivery.',
    );
  }
  const now = deps.clock.now();
  const id = sortableId('whd');
  const source = { id: original.eventId, workspaceId, type: original.eventType, listingId: original.listingId, orderKey: replayOrderKey(id) };
  const replay = await deps.store.transaction(async (tx) => {
    const queued = await deps.deliveries.insertReplay(newDelivery(id, original.subscriptionId, source, now, original.replayOf ?? original.id), tx);
    await deps.applied.remember(key, queued.id, tx);
    return queued;
  });
  // A dry run queued nothing (its transaction was rolled back): no scheduler pass in its context.
  if (!isDryRun()) deps.onQueued();
  return replay;
}
