// The delivery log of a subscription and the replay of one delivery. Tenant-scoped: another
// workspace's id is not_found, decided before listing_inactive.
import type { ListingActivityCache } from '@vrp/activity-cache';
import { AppError, notFound, validationFailed } from '@vrp/platform/errors';
import { isDryRun } from '@vrp/platform/context';
import { sortableId } from '@vrp/platform/ids';
import { type AppliedRequests, type RequestKey } from '@vrp/platform/applied-requests';
import { type DocumentStore } from '@vrp/platform/store';
import { type PageWindow } from '@vrp/platform/paging';
import type { WebhookClock } from '../ports/clock';
import { DELIVERY_STATUSES, newDelivery, replayOrderKey, type DeliveryRecord, type DeliveryStatus } from '../domain/delivery';
import type { DeliveryStore } from '../store/delivery-store';
import type { SubscriptionStore } from '../store/subscription-store';

export class Deliveries {
  constructor(
    private readonly deps: {
      store: DocumentStore;
      subscriptions: SubscriptionStore;
      deliveries: DeliveryStore;
      cache: ListingActivityCache;
      clock: WebhookClock;
      /** A replay was queued: send it now. */
      onQueued: () => void;
      /** Idempotency-Keys stored with the writes (service-side idempotency). */
      applied: AppliedRequests;
    },
  ) {}

  async page(workspaceId: string, subscriptionId: string, status: string, window: PageWindow) {
    if (status && !(DELIVERY_STATUSES as readonly string[]).includes(status))
      throw validationFailed({ status: `must be one of ${DELIVERY_STATUSES.join(', ')}` });
    await this.deps.subscriptions.get(workspaceId, subscriptionId);
    return this.deps.deliveries.page(workspaceId, subscriptionId, (status || null) as DeliveryStatus | null, window);
  }

  /**
   * Sends an old delivery's event again, as a new delivery (same event id and body, so a
   * receiver that de-duplicates ignores it unless it forgot it). 404 before 403: an unknown
   * subscription or delivery is not_found; a listing that is inactive now is listing_inactive.
   */
  replay(workspaceId: string, subscriptionId: string, deliveryId: string, key: RequestKey | null = null): Promise<DeliveryRecord> {
    // A key already applied answers the delivery it queued: the event is not sent a third time.
    return this.deps.applied.once(
      key,
      () => this.replayOnce(workspaceId, subscriptionId, deliveryId, key),
      (queued) => this.deps.deliveries.get(workspaceId, subscriptionId, queued),
    );
  }

  private async replayOnce(workspaceId: string, subscriptionId: string, deliveryId: string, key: RequestKey | null): Promise<DeliveryRecord> {
    const subscription = await this.deps.subscriptions.get(workspaceId, subscriptionId);
    const original = await this.deps.deliveries.get(workspaceId, subscriptionId, deliveryId);
    if (original.listingId) this.deps.cache.assertActive(workspaceId, [original.listingId]);
    // Past its retention (docs/events.md) the event is gone: there is nothing left to send.
    if (!(await this.deps.deliveries.event(original.eventId))) throw notFound('event', original.eventId);
    if (!subscription.enabled) {
      throw new AppError(
        'conflict',
        `Webhook subscription '${subscriptionId}' is disabled.`,
        {},
        'Enable it with PATCH {"enabled": true}, then replay the delivery.',
      );
    }
    const now = this.deps.clock.now();
    const id = sortableId('whd');
    const source = { id: original.eventId, workspaceId, type: original.eventType, listingId: original.listingId, orderKey: replayOrderKey(id) };
    const replay = await this.deps.store.transaction(async (tx) => {
      const queued = await this.deps.deliveries.insertReplay(newDelivery(id, original.subscriptionId, source, now, original.replayOf ?? original.id), tx);
      await this.deps.applied.remember(key, queued.id, tx);
      return queued;
    });
    // A dry run queued nothing (its transaction was rolled back): no scheduler pass in its context.
    if (!isDryRun()) this.deps.onQueued();
    return replay;
  }
}
