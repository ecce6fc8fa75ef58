// Subscriptions of the public webhook API: create, read, update, delete, rotate the secret.
// Tenant-scoped throughout: another workspace's id is not_found. The delivery log and replay
// are in deliveries.ts.
import { validationFailed } from '@vrp/platform/errors';
import type { AppliedRequests, RequestKey } from '@vrp/platform/applied-requests';
import type { DocumentStore } from '@vrp/platform/store';
import type { PageWindow } from '@vrp/platform/paging';
import type { WebhookClock } from '../ports/clock';
import { normalizeEventTypes } from '../domain/event-types';
import { MAX_DESCRIPTION_LENGTH, newSubscription, rotation, rotationGrace, type SubscriptionView } from '../domain/subscription';
import type { KeyMode, TargetPolicy } from '../domain/target';
import { urlRefusal, type Resolver } from '../ports/address-guard';
import type { DeliveryStore } from '../store/delivery-store';
import type { SubscriptionPatch, SubscriptionStore } from '../store/subscription-store';

export interface SubscriptionInput {
  url?: string | undefined;
  description?: string | undefined;
  eventTypes?: string[] | undefined;
  enabled?: boolean | undefined;
}

export class Subscriptions {
  constructor(
    private readonly deps: {
      store: DocumentStore;
      subscriptions: SubscriptionStore;
      deliveries: DeliveryStore;
      clock: WebhookClock;
      resolve: Resolver;
      policyOf: (mode: KeyMode) => TargetPolicy;
      /** Idempotency-Keys stored with the writes (service-side idempotency). */
      applied: AppliedRequests;
    },
  ) {}

  /**
   * A key already applied answers the subscription it created (as it is now, with its current
   * secret: the one that signs its deliveries), and no second subscription is created.
   */
  create(
    workspaceId: string,
    mode: KeyMode,
    input: SubscriptionInput & { url: string },
    key: RequestKey | null = null,
  ): Promise<{ subscription: SubscriptionView; secret: string }> {
    return this.deps.applied.once(
      key,
      () => this.createOnce(workspaceId, mode, input, key),
      (id) => this.withSecret(workspaceId, id),
    );
  }

  private async withSecret(workspaceId: string, id: string): Promise<{ subscription: SubscriptionView; secret: string }> {
    return { subscription: await this.deps.subscriptions.get(workspaceId, id), secret: await this.deps.subscriptions.secretOf(workspaceId, id) };
  }

  private async createOnce(
    workspaceId: string,
    mode: KeyMode,
    input: SubscriptionInput & { url: string },
    key: RequestKey | null,
  ): Promise<{ subscription: SubscriptionView; secret: string }> {
    const fields = await this.check(mode, input);
    const eventTypes = normalizeEventTypes(input.eventTypes ?? []).types;
    if (Object.keys(fields).length) throw validationFailed(fields);
    const record = newSubscription(
      workspaceId,
      mode,
      { url: input.url, description: input.description ?? '', eventTypes, enabled: input.enabled ?? true },
      this.deps.clock.now(),
    );
    const subscription = await this.deps.store.transaction(async (tx) => {
      const inserted = await this.deps.subscriptions.insert(record, tx);
      await this.deps.applied.remember(key, inserted.id, tx);
      return inserted;
    });
    return { subscription, secret: record.secret };
  }

  /** A key already applied answers the subscription as it is; a later change is not overwritten. */
  update(workspaceId: string, id: string, requestMode: KeyMode, input: SubscriptionInput, key: RequestKey | null = null): Promise<SubscriptionView> {
    return this.deps.applied.once(
      key,
      () => this.updateOnce(workspaceId, id, requestMode, input, key),
      (done) => this.deps.subscriptions.get(workspaceId, done),
    );
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
  async rotateSecret(
    workspaceId: string,
    id: string,
    graceSeconds: number,
    key: RequestKey | null = null,
  ): Promise<{ subscription: SubscriptionView; secret: string }> {
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

  /** Field errors of a subscription's input (the URL is resolved: no SSRF through it). */
  private async check(mode: KeyMode, input: SubscriptionInput): Promise<Record<string, string>> {
    const fields: Record<string, string> = {};
    if (input.url !== undefined) {
      const refusal = await urlRefusal(input.url, this.deps.policyOf(mode), this.deps.resolve);
      if (refusal) fields.url = refusal;
    }
    if (input.eventTypes !== undefined) Object.assign(fields, normalizeEventTypes(input.eventTypes).errors);
    if (input.description !== undefined && input.description.length > MAX_DESCRIPTION_LENGTH)
      fields.description = `must be at most ${MAX_DESCRIPTION_LENGTH} characters`;
    return fields;
  }
}
