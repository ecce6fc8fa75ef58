// Ingest: domain events from the bus become stored webhook events and one pending delivery per
// matching subscription, in one transaction. An event about an inactive listing (per the
// activity cache, at this moment) is dropped here, neither stored nor queued: activation
// resumes delivery from that moment, with no backlog.
import type { ListingActivityCache } from '@vrp/activity-cache';
import { sortableId, type DocumentStore, type EventBus, type Logger, type Subscription } from '@vrp/platform';
import { newDelivery, type DeliveryRecord } from '../domain/delivery';
import { isActivityEvent, subscribesTo } from '../domain/event-types';
import type { ListingLookup } from '../ports/listings';
import type { DeliveryStore } from '../store/delivery-store';
import type { SubscriptionStore } from '../store/subscription-store';
import { eventBody, SOURCE_TOPICS, toIncomingEvent, type IncomingEvent } from './render';

/** The consumer group of ingest; new groups start at the end of each topic (no history replay). */
export const INGEST_GROUP = 'webhook-ingest';

export type IngestResult = 'queued' | 'duplicate' | 'no_subscriber' | 'listing_inactive';

export class EventIngest {
  private subscription: Subscription | null = null;

  constructor(
    private readonly deps: {
      store: DocumentStore;
      bus: EventBus;
      subscriptions: SubscriptionStore;
      deliveries: DeliveryStore;
      cache: ListingActivityCache;
      listings: ListingLookup;
      logger: Logger;
      now: () => Date;
      /** Told after each commit that queued deliveries (the scheduler sends them at once). */
      onQueued: () => void;
    },
  ) {}

  async start(): Promise<void> {
    await this.deps.bus.ensureTopics(SOURCE_TOPICS);
    this.subscription = await this.deps.bus.subscribe({
      groupId: INGEST_GROUP,
      topics: SOURCE_TOPICS.map((t) => t.name),
      // A subscription receives what happens after it exists; committed offsets make restarts resume exactly.
      fromBeginning: false,
      handler: async (message) => {
        const event = await toIncomingEvent(message.topic, message.value, this.deps.listings);
        if (event) await this.accept(event);
      },
    });
    await this.subscription.ready;
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
    this.subscription = null;
  }

  /** Idempotent: a redelivered message finds its event stored and queues nothing. */
  async accept(event: IncomingEvent): Promise<IngestResult> {
    const { cache, subscriptions, deliveries, store } = this.deps;
    // The ingest consumer may see an activity change before the cache's own consumer does;
    // applying it here (versioned, idempotent) keeps suppression exact for what follows.
    if (event.activity) await cache.apply(event.activity);
    if (this.suppressed(event)) return 'listing_inactive';
    const now = this.deps.now();
    const result = await store.transaction(async (tx): Promise<IngestResult> => {
      const targets = (await subscriptions.enabledOf(event.workspaceId, tx)).filter((s) => subscribesTo(s.eventTypes, event.type));
      if (targets.length === 0) return 'no_subscriber';
      const queued: DeliveryRecord[] = targets.map((s) => newDelivery(sortableId('whd'), s.id, event, now));
      const stored = await deliveries.enqueue(
        { id: event.id, workspaceId: event.workspaceId, type: event.type, listingId: event.listingId, orderKey: event.orderKey, occurredAt: event.occurredAt, body: eventBody(event) },
        queued,
        tx,
      );
      return stored ? 'queued' : 'duplicate';
    });
    if (result === 'queued') this.deps.onQueued();
    return result;
  }

  private suppressed(event: IncomingEvent): boolean {
    if (isActivityEvent(event.type)) return false;
    const { cache } = this.deps;
    if (event.listingId) return !cache.isActive(event.workspaceId, event.listingId);
    // A guest is left out when every reservation of theirs is on an inactive listing (spec 2.2).
    return event.listingIds.length > 0 && event.listingIds.every((id) => !cache.isActive(event.workspaceId, id));
  }
}
