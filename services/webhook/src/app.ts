// Wiring of the webhook service: store and bus engines in, gRPC + ops servers out. Ingest
// consumes every domain event topic, the scheduler delivers from the durable queue, and the
// local activity cache decides suppression and the replay 403.
import { ListingActivityCache } from '@vrp/activity-cache';
import { listing } from '@vrp/contracts';
import { AppliedRequests } from '@vrp/platform/applied-requests';
import { createUpstream } from '@vrp/platform/grpc';
import { perInstanceGroup, startServiceBase, type RunningService, type ServiceDeps } from '@vrp/platform/service';
import { systemClock, type WebhookClock } from './ports/clock';
import { DEFAULT_ACTIVITY_WINDOWS, type ActivityWindows } from './domain/activity-decision';
import type { KeyMode, TargetPolicy } from './domain/target';
import { systemResolver, type Resolver } from './ports/address-guard';
import { createHttpSender, DEFAULT_SEND_LIMITS, type Sender, type SendLimits } from './ports/http-sender';
import { DEFAULT_SCHEDULER_OPTIONS, DeliveryScheduler, type SchedulerOptions } from './use-cases/delivery-scheduler';
import { EventIntake } from './use-cases/intake';
import { startIngestConsumer } from './consumers/ingest';
import { webhookHandlers } from './grpc/handlers';
import { grpcListingLookup, type ListingLookup } from './ports/listings';
import { DeliveryStore } from './store/delivery-store';
import { HeldEventStore } from './store/held-event-store';
import { SubscriptionStore } from './store/subscription-store';
import type { WebhookDeps } from './use-cases/deps';
import { Events } from './use-cases/events';
import { EventLog } from './store/event-log';
import { DEFAULT_EVENT_RETENTION_DAYS } from './domain/event-retention';

export { ManualClock, systemClock, type WebhookClock } from './ports/clock';
export { verifySignature, signatureHeader, SIGNATURE_HEADER, DEFAULT_TOLERANCE_SECONDS } from './domain/signature';
export { EVENT_TYPES, type EventType } from './domain/event-types';
export { RETRY_DELAYS_SECONDS, MAX_ATTEMPTS } from './domain/retry';
export { DEFAULT_ACTIVITY_WINDOWS, type ActivityWindows } from './domain/activity-decision';

/** The activity cache's consumer group (replays listing.activity.v1 from the start). */
export const ACTIVITY_CACHE_GROUP = 'webhook-listing-activity';

export interface WebhookServiceDeps extends ServiceDeps {
  /** Scheduling clock of deliveries; tests pass a ManualClock. Default: the system clock. */
  clock?: WebhookClock;
  /**
   * Test-mode subscriptions may target loopback receivers (http://127.0.0.1:port). The
   * embedded stack turns it on for local development; the service's own process reads
   * WEBHOOK_TEST_MODE_ALLOW_LOOPBACK (default false). Live mode never allows it.
   */
  allowLoopbackInTest?: boolean;
  /** DNS resolution of endpoint hosts (tests simulate answers, e.g. a rebinding host). */
  resolve?: Resolver;
  sender?: Sender;
  sendLimits?: Partial<SendLimits>;
  scheduler?: Partial<SchedulerOptions>;
  /** How listing payloads are read; default: the listing service over gRPC. */
  listings?: ListingLookup;
  /**
   * How long an event whose listing activity is not settled waits for a late activity change
   * (WEBHOOK_ACTIVITY_SETTLE_MS / WEBHOOK_ACTIVITY_HOLD_MS; docs/webhooks.md).
   */
  activityWindows?: Partial<ActivityWindows>;
  /** The clock of those windows; tests pass a ManualClock. Default: the system clock. */
  activityClock?: WebhookClock;
  /** How long the Events API keeps an event (WEBHOOK_EVENT_RETENTION_DAYS, default 30). */
  eventRetentionDays?: number;
}

export async function startWebhookService(given: WebhookServiceDeps): Promise<RunningService> {
  const listingUpstream = given.listings ? null : createUpstream(listing.ListingServiceClient, { name: 'listing', address: given.addresses.listing });
  const listings = given.listings ?? grpcListingLookup(listingUpstream!);
  // The service publishes nothing of its own; its outbox carries the dead letters of its consumers.
  const { deps, consumers, outbox, serve } = await startServiceBase('webhook', given);
  const clock = deps.clock ?? systemClock;
  const resolve = deps.resolve ?? systemResolver;
  const policyOf = (mode: KeyMode): TargetPolicy => ({ mode, allowLoopbackInTest: deps.allowLoopbackInTest ?? false });
  const subscriptions = new SubscriptionStore(deps.store);
  const deliveries = new DeliveryStore(deps.store);

  const cache = new ListingActivityCache({ store: deps.store, consumers, groupId: perInstanceGroup(ACTIVITY_CACHE_GROUP, deps), logger: deps.logger });
  await cache.start();

  const scheduler = new DeliveryScheduler({
    deliveries,
    subscriptions,
    cache,
    clock,
    sender: deps.sender ?? createHttpSender(resolve, { ...DEFAULT_SEND_LIMITS, ...deps.sendLimits }),
    policyOf,
    logger: deps.logger,
    options: { ...DEFAULT_SCHEDULER_OPTIONS, ...deps.scheduler },
  });
  // A listing that became inactive: its pending deliveries and retries are dropped now, not at
  // their next attempt (the scheduler re-checks anyway, for changes it hears of late).
  const stopWatching = cache.onChange((activity) => {
    if (activity.active) return;
    deliveries
      .dropPendingOfListing(activity.workspaceId, activity.listingId, clock.now())
      .catch((err: unknown) =>
        deps.logger.warn({ err, listingId: activity.listingId }, 'could not drop deliveries of an inactive listing; the scheduler drops them before sending'),
      );
  });

  const wake = () => void scheduler.wake();
  const intake = new EventIntake({
    store: deps.store,
    subscriptions,
    deliveries,
    held: new HeldEventStore(deps.store),
    cache,
    listings,
    logger: deps.logger,
    now: () => clock.now(),
    activityClock: deps.activityClock ?? systemClock,
    windows: { ...DEFAULT_ACTIVITY_WINDOWS, ...deps.activityWindows },
    retentionDays: deps.eventRetentionDays ?? DEFAULT_EVENT_RETENTION_DAYS,
    // New queue heads are claimed in the enqueue's own transaction and handed to the scheduler.
    claimTerms: () => scheduler.claimTerms(),
    onQueued: (claimed) => (claimed ? scheduler.offer(claimed.deliveries, claimed.leaseUntil) : wake()),
  });
  intake.start();
  const ingest = await startIngestConsumer(consumers, intake, listings);
  scheduler.start();

  const events = new Events({ log: new EventLog(deliveries), cache, listings, clock, logger: deps.logger, purgeExpired: deps.store.engine === 'memory' });
  events.start();

  const useCases: WebhookDeps = {
    store: deps.store,
    subscriptions,
    deliveries,
    cache,
    clock,
    resolve,
    policyOf,
    applied: new AppliedRequests(deps.store),
    onQueued: wake,
  };
  return serve({
    services: [webhookHandlers(useCases, events)],
    onStop: async () => {
      // Intake first, then the attempts in flight settle, then the cache.
      await ingest.stop();
      await intake.stop();
      await scheduler.stop();
      events.stop();
      stopWatching();
      await cache.stop();
      await outbox.stop();
      listingUpstream?.close();
    },
  });
}
