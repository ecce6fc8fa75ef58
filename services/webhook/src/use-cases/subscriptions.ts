// Use cases of the public webhook API: subscriptions (create, read, update, delete, rotate the
// secret) and the delivery log with replay. Tenant-scoped throughout: another workspace's id
// is not_found, decided before listing_inactive.
import type { ListingActivityCache } from '@vrp/activity-cache';
import { AppError, newId, sortableId, validationFailed, type AppliedRequests, type DocumentStore, type PageWindow, type RequestKey } from '@vrp/platform';
import type { WebhookClock } from '../clock';
import { newDelivery, replayOrderKey, DELIVERY_STATUSES, type DeliveryRecord, type DeliveryStatus } from '../domain/delivery';
import { normalizeEventTypes } from '../domain/event-types';
import { MAX_DESCRIPTION_LENGTH, newSecret, rotation, rotationGrace, type SubscriptionView } from '../domain/subscription';
import type { KeyMode, TargetPolicy } from '../domain/target';
import { urlRefusal, type Resolver } from '../delivery/address-guard';
import type { DeliveryStore } from '../store/delivery-store';
import type { SubscriptionPatch, SubscriptionStore } from '../store/subscription-store';

export interface SubscriptionInput {
  url?: string | undefined;
  description?: string | undefined;
  eventTypes?: string[] | undefined;
  enabled?: boolean | undefined;
}

export class Webhooks {
  constructor(
    private readonly deps: {
      store: DocumentStore;
      subscriptions: SubscriptionStore;
      deliveries: DeliveryStore;
      cache: ListingActivityCache;
      clock: WebhookClock;
      resolve: Resolver;
      policyOf: (mode: KeyMode) => TargetPolicy;
      /** A replay was queued: send it now. */
      onQueued: () => void;
      /** Idempotency-Keys stored with the writes (service-side idempotency). */
      applied: AppliedRequests;
    },
  ) {}

  /**
   * A key already applied answers the subscription it created (as it is now, with its current
   * secret: the one that signs its deliveries), and no second subscription is created.
   */
  create(workspaceId: string, mode: KeyMode, input: SubscriptionInput & { url: string }, key: RequestKey | null = null): Promise<{ subscription: SubscriptionView; secret: string }> {
    return this.deps.applied.once(key, () => this.createOnce(workspaceId, mode, input, key), (id) => this.withSecret(workspaceId, id));
  }

  private async withSecret(workspaceId: string, id: string): Promise<{ subscription: SubscriptionView; secret: string }> {
    return { subscription: await this.deps.subscriptions.get(workspaceId, id), secret: await this.deps.subscriptions.secretOf(workspaceId, id) };
  }

  private async createOnce(workspaceId: string, mode: KeyMode, input: SubscriptionInput & { url: string }, key: RequestKey | null): Promise<{ subscription: SubscriptionView; secret: string }> {
    const fields = await this.check(mode, input);
    const eventTypes = normalizeEventTypes(input.eventTypes ?? []).types;
    if (Object.keys(fields).length) throw validationFailed(fields);
    const now = this.deps.clock.now();
    const secret = newSecret();
    const record = {
      id: newId('whs'),
      workspaceId,
      url: input.url,
      description: input.description ?? '',
      eventTypes,
      enabled: input.enabled ?? true,
      mode,
      disabledReason: null,
      disabledAt: null,
      previousSecretExpiresAt: null,
      lastSuccessAt: null,
      createdAt: now,
      updatedAt: now,
      secret,
      previousSecret: null,
    };
    const subscription = await this.deps.store.transaction(async (tx) => {
      const inserted = await this.deps.subscriptions.insert(record, tx);
      await this.deps.applied.remember(key, inserted.id, tx);
      return inserted;
    });
    return { subscription, secret };
  }

  /** A key already applied answers the subscription as it is; a later change is not overwritten. */
  update(workspaceId: string, id: string, requestMode: KeyMode, input: SubscriptionInput, key: RequestKey | null = null): Promise<SubscriptionView> {
    return this.deps.applied.once(key, () => this.updateOnce(workspaceId, id, requestMode, input, key), (done) => this.deps.subscriptions.get(workspaceId, done));
  }

  private async updateOnce(workspaceId: string, id: string, requestMode: KeyMode, input: SubscriptionInput, key: RequestKey | null): Promise<SubscriptionView> {
    const current = await this.deps.subscriptions.get(workspaceId, id);
    // A live subscription stays under live rules whatever key edits it; a live key applies them too.
    const mode: KeyMode = current.mode === 'live' || requestMode === 'live' ? 'live' : 'test';
    const fields = await this.check(mode, input);
    if (Object.keys(fields).length) throw validationFailed(fields);
    const patch: SubscriptionPatch = { updatedAt: this.deps.clock.now() };
    if (input.url !== undefined) patch.url = input.url;
    if (input.description !== undefined) patch.description = input.description;
    if (input.eventTypes !== undefined) patch.eventTypes = normalizeEventTypes(input.eventTypes).types;
    if (input.enabled !== undefined) {
      patch.enabled = input.enabled;
      // Re-enabling starts afresh: the reason is cleared and failures before now no longer count.
      if (input.enabled) Object.assign(patch, { disabledReason: null, disabledAt: null, lastSuccessAt: null });
    }
    return this.deps.store.transaction(async (tx) => {
      const updated = await this.deps.subscriptions.update(workspaceId, id, patch, tx);
      await this.deps.applied.remember(key, updated.id, tx);
      return updated;
    });
  }

  get(workspaceId: string, id: string): Promise<SubscriptionView> {
    return this.deps.subscriptions.get(workspaceId, id);
  }

  async page(workspaceId: string, window: PageWindow) {
    return this.deps.subscriptions.page(workspaceId, window);
  }

  /** Deletes the subscription; its pending deliveries are dropped, its log stays readable by nobody. */
  async delete(workspaceId: string, id: string): Promise<void> {
    const now = this.deps.clock.now();
    await this.deps.store.transaction(async (tx) => {
      await this.deps.subscriptions.remove(workspaceId, id, tx);
      await this.deps.deliveries.dropPendingOfSubscription(id, 'subscription_deleted', now, tx);
    });
  }

  /** A key already applied answers the subscription and its current secret; it is not rotated twice. */
  async rotateSecret(workspaceId: string, id: string, graceSeconds: number, key: RequestKey | null = null): Promise<{ subscription: SubscriptionView; secret: string }> {
    const grace = rotationGrace(graceSeconds);
    if ('error' in grace) throw validationFailed({ gracePeriodSeconds: grace.error });
    return this.deps.applied.once(
      key,
      () => {
        const now = this.deps.clock.now();
        return this.deps.store.transaction(async (tx) => {
          const next = rotation({ secret: await this.deps.subscriptions.secretOf(workspaceId, id, tx) }, now, grace.seconds);
          const subscription = await this.deps.subscriptions.update(workspaceId, id, { ...next, updatedAt: now }, tx);
          await this.deps.applied.remember(key, subscription.id, tx);
          return { subscription, secret: next.secret };
        });
      },
      (done) => this.withSecret(workspaceId, done),
    );
  }

  async deliveriesPage(workspaceId: string, subscriptionId: string, status: string, window: PageWindow) {
    if (status && !(DELIVERY_STATUSES as readonly string[]).includes(status)) throw validationFailed({ status: `must be one of ${DELIVERY_STATUSES.join(', ')}` });
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
    if (!subscription.enabled) {
      throw new AppError('conflict', `Webhook subscription '${subscriptionId}' is disabled.`, {}, 'Enable it with PATCH {"enabled": true}, then replay the delivery.');
    }
    const now = this.deps.clock.now();
    const id = sortableId('whd');
    const source = { id: original.eventId, workspaceId, type: original.eventType, listingId: original.listingId, orderKey: replayOrderKey(id) };
    const replay = await this.deps.store.transaction(async (tx) => {
      const queued = await this.deps.deliveries.insertReplay(newDelivery(id, original.subscriptionId, source, now, original.replayOf ?? original.id), tx);
      await this.deps.applied.remember(key, queued.id, tx);
      return queued;
    });
    this.deps.onQueued();
    return replay;
  }

  /** Field errors of a subscription's input (the URL is resolved: no SSRF through it). */
  private async check(mode: KeyMode, input: SubscriptionInput): Promise<Record<string, string>> {
    const fields: Record<string, string> = {};
    if (input.url !== undefined) {
      const refusal = await urlRefusal(input.url, this.deps.policyOf(mode), this.deps.resolve);
      if (refusal) fields.url = refusal;
    }
    if (input.eventTypes !== undefined) Object.assign(fields, normalizeEventTypes(input.eventTypes).errors);
    if (input.description !== undefined && input.description.length > MAX_DESCRIPTION_LENGTH) fields.description = `must be at most ${MAX_DESCRIPTION_LENGTH} characters`;
    return fields;
  }
}
