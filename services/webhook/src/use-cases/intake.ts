// Intake: domain events from the bus (consumed by consumers/ingest.ts) become stored
// webhook events and one pending delivery per matching subscription, in one transaction. An
// event about a listing that was inactive when it happened is dropped here, neither stored nor
// queued: activation resumes delivery for events from that moment on, with no backlog.
//
// "When it happened", not "when its message arrived": listing.activity.v1 and the domain topics
// are separate topics with no order between them, so the decision compares the event's
// occurred_at with the listing's activity history (activity cache), and holds the event while
// that answer is not settled (domain/activity-decision.ts, store/held-event-store.ts): a late
// activation releases an event that happened after it, a late deactivation drops one. Nothing
// blocks the partition: a held event is stored and its message committed; it is decided when
// its listing's next activity change arrives, at the latest when its window ends.
//
// Before holding, the intake asks the listing service for the listing's activity version
// (GetListing): when the cache holds that version, it has every change committed before the
// question, so an event that happened before it is decided at once (the common case pays no
// settle window). No answer, or a version the cache does not hold yet: held as above.
// Every event is decided and stored, whether or not a subscription wants it (no_subscriber: stored,
// nothing queued): the Events API (GET /v1/events) lists what the webhooks would deliver.
import type { ListingActivityCache } from '@vrp/activity-cache';
import { sortableId } from '@vrp/platform/ids';
import { KeyedOrder } from '@vrp/platform/keyed-order';
import { type DocumentStore, type Tx } from '@vrp/platform/store';
import { type Logger } from '@vrp/platform/logging';
import { LRUCache } from 'lru-cache';
import type { WebhookClock } from '../ports/clock';
import {
  confirms,
  decideBy,
  decideByActivity,
  finalDecision,
  type ActivityConfirmation,
  type ActivityDecision,
  type ActivityKnowledge,
  type ActivityWindows,
} from '../domain/activity-decision';
import { newDelivery, type DeliveryRecord } from '../domain/delivery';
import { eventExpiresAt } from '../domain/event-retention';
import { isActivityEvent, subscribesTo } from '../domain/event-types';
import type { ListingLookup } from '../ports/listings';
import type { DeliveryStore, NextClaim } from '../store/delivery-store';
import type { DecidableEvent, HeldEvent, HeldEventStore } from '../store/held-event-store';
import type { SubscriptionStore } from '../store/subscription-store';
import { eventBody, type IncomingEvent } from '../domain/webhook-event';

export type IngestResult = 'queued' | 'duplicate' | 'no_subscriber' | 'listing_inactive' | 'held';

/** Held events decided per sweep. */
const SWEEP_BATCH = 100;
/** Safety net between sweeps (held events of other replicas, missed timers). */
const SWEEP_POLL_MS = 1_000;
/** Listings whose last confirmation is kept (least recently asked first out). */
const CONFIRMATIONS_KEPT = 10_000;
/**
 * Time limit of asking the listing service for a confirmation: a listing's decisions run one at a
 * time, so a slow listing service must not hold that listing's events for the upstream's full
 * deadline; past it the event is held and the windows decide.
 */
const CONFIRM_DEADLINE_MS = 500;

export class EventIntake {
  /**
   * The order of decisions in this process (@vrp/platform/keyed-order), by listing: incoming
   * events and re-decisions after an activity change one at a time per listing, sweeps alone. An
   * event decided at once then never overtakes an earlier held event of its listing that the same
   * activity change settles, and events of other listings are decided meanwhile.
   */
  private readonly order = new KeyedOrder();
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Infinity;
  private poll: NodeJS.Timeout | null = null;
  private stopped = true;
  private readonly unsubscribe: (() => void)[] = [];
  /** The listing service's last answer per listing (`workspace/listing`). */
  private readonly confirmations = new LRUCache<string, ActivityConfirmation>({ max: CONFIRMATIONS_KEPT });

  constructor(
    private readonly deps: {
      store: DocumentStore;
      subscriptions: SubscriptionStore;
      deliveries: DeliveryStore;
      held: HeldEventStore;
      cache: ListingActivityCache;
      listings: ListingLookup;
      logger: Logger;
      now: () => Date;
      /** The clock of the activity windows (held events); tests move it by hand. */
      activityClock: WebhookClock;
      /** Real time, compared with the events' occurred_at (stamped by the producers' clocks). */
      wallClock?: () => Date;
      windows: ActivityWindows;
      /** How long the Events API keeps an event (domain/event-retention.ts). */
      retentionDays: number;
      /**
       * The terms on which an enqueue claims the queue heads it creates for this process's
       * scheduler (see DeliveryStore.enqueue), or null to leave them to the scheduler's scan.
       */
      claimTerms?: () => NextClaim | null;
      /**
       * Told after each commit that queued deliveries (the scheduler sends them at once), with the
       * heads claimed for it: it attempts them or gives them back.
       */
      onQueued: (claimed?: { deliveries: DeliveryRecord[]; leaseUntil: Date }) => void;
    },
  ) {}

  /** Starts deciding held events (activity changes, the clock, the sweep); the consumer (consumers/ingest.ts) feeds accept(). */
  start(): void {
    this.stopped = false;
    const { cache, activityClock } = this.deps;
    // An activity change may settle held events of its listing.
    this.unsubscribe.push(
      cache.onChange(
        (a) =>
          void this.background(
            this.order.about([listingKey(a.workspaceId, a.listingId)], () => this.unlessStopped(() => this.redecide(a.workspaceId, a.listingId))),
          ),
      ),
    );
    this.unsubscribe.push(activityClock.onAdvance(() => void this.sweepSoon()));
    this.poll = setInterval(() => void this.sweepSoon(), SWEEP_POLL_MS);
    this.poll.unref();
    void this.sweepSoon();
  }

  /** Call after the consumer stopped: decisions in progress finish, none start. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const off of this.unsubscribe.splice(0)) off();
    if (this.poll) clearInterval(this.poll);
    if (this.timer) clearTimeout(this.timer);
    this.poll = this.timer = null;
    this.timerAt = Infinity;
    await this.order.idle();
  }

  /**
   * Idempotent: a redelivered message finds its event stored (or held) and queues nothing. The
   * events of one listing that arrive while its decisions wait for their turn are decided together,
   * in the order they came, and those to deliver are stored in one transaction (`acceptBatch`).
   */
  accept(incoming: IncomingEvent): Promise<IngestResult> {
    const event = decidable(incoming);
    const keys = event.listingIds.map((id) => listingKey(event.workspaceId, id));
    if (keys.length === 1) return this.order.batched(keys[0]!, { incoming, event }, (items) => this.acceptBatch(items));
    return this.order.about(keys, async () => {
      const decided = await this.decideIncoming(incoming, event);
      return decided === 'deliver' ? this.enqueue(event) : decided;
    });
  }

  /** Decides events in order; consecutive ones to deliver are stored together, before any other write. */
  private async acceptBatch(items: { incoming: IncomingEvent; event: DecidableEvent }[]): Promise<IngestResult[]> {
    const results: IngestResult[] = new Array<IngestResult>(items.length);
    let toDeliver: number[] = [];
    const store = async () => {
      if (toDeliver.length === 0) return;
      const stored = await this.enqueueAll(toDeliver.map((i) => items[i]!.event));
      toDeliver.forEach((i, n) => (results[i] = stored[n]!));
      toDeliver = [];
    };
    for (const [i, { incoming, event }] of items.entries()) {
      const decided = await this.decideIncoming(incoming, event, store);
      if (decided === 'deliver') toDeliver.push(i);
      else results[i] = decided;
    }
    await store();
    return results;
  }

  /**
   * Decides an incoming event: 'deliver' for the caller to store, or what became of it (dropped,
   * held). `beforeWrite` runs before this writes anything (a hold).
   */
  private async decideIncoming(incoming: IncomingEvent, event: DecidableEvent, beforeWrite?: () => Promise<void>): Promise<'deliver' | IngestResult> {
    // The ingest consumer may see an activity change before the cache's own consumer does;
    // applying it here (versioned, idempotent) keeps the history complete for what follows.
    if (incoming.activity) await this.deps.cache.apply(incoming.activity);
    if (isActivityEvent(event.type)) return 'deliver';
    let decision = this.byCache(event);
    // Decided for every event, wanted by a subscription or not: the Events API lists it.
    if (decision.kind === 'hold') decision = await this.confirmed(event);
    switch (decision.kind) {
      case 'deliver':
        return 'deliver';
      case 'drop':
        return 'listing_inactive';
      case 'hold': {
        await beforeWrite?.();
        const heldAt = this.deps.activityClock.now();
        const decideAt = decideBy(heldAt, decision.likely, this.deps.windows);
        await this.deps.held.hold(event, heldAt, decideAt);
        this.armTimer(decideAt);
        return 'held';
      }
    }
  }

  /** By the cache; when that would hold the event, by the cache confirmed by the listing service. */
  private async decide(event: DecidableEvent): Promise<ActivityDecision> {
    const decision = this.byCache(event);
    return decision.kind === 'hold' ? this.confirmed(event) : decision;
  }

  /** The cache's activity knowledge of the event's listings at the time it happened. */
  private known(event: DecidableEvent): ActivityKnowledge[] {
    return event.listingIds.map((id) => this.deps.cache.activityAt(event.workspaceId, id, event.occurredAt));
  }

  /** By the cache alone. */
  private byCache(event: DecidableEvent): ActivityDecision {
    return decideByActivity(this.known(event), this.deps.windows);
  }

  /** By the cache, confirmed by the listing service for each listing whose answer is not settled. */
  private async confirmed(event: DecidableEvent): Promise<ActivityDecision> {
    const before = this.known(event);
    const asked = await Promise.all(event.listingIds.map((id, i) => (before[i]!.settled ? null : this.confirm(event.workspaceId, id, event.occurredAt))));
    // The cache may have moved during the calls: judge by what it holds now.
    const knowledge: ActivityKnowledge[] = this.known(event).map((k, i) => {
      const id = event.listingIds[i]!;
      return k.settled
        ? k
        : { active: k.active, settled: asked[i] !== null && confirms(asked[i], this.deps.cache.get(event.workspaceId, id)?.version ?? 0, event.occurredAt) };
    });
    return decideByActivity(knowledge, this.deps.windows);
  }

  /**
   * The listing service's activity version of a listing, asked at or after `occurredAt` (a
   * previous answer is reused while it still covers the event and the cache's version); null
   * when it cannot tell (unavailable, deleted listing): the windows decide then.
   */
  private async confirm(workspaceId: string, listingId: string, occurredAt: Date): Promise<ActivityConfirmation | null> {
    const key = listingKey(workspaceId, listingId);
    const previous = this.confirmations.get(key);
    if (previous && confirms(previous, this.deps.cache.get(workspaceId, listingId)?.version ?? 0, occurredAt)) return previous;
    const at = (this.deps.wallClock ?? (() => new Date()))();
    const listing = await this.deps.listings.get(workspaceId, listingId, { deadlineMs: CONFIRM_DEADLINE_MS }).catch((err: unknown) => {
      this.deps.logger.debug({ err, listingId }, 'listing activity not confirmed; the event waits for its window');
      return null;
    });
    if (!listing) return null;
    const confirmation = { version: listing.activityVersion, at };
    this.confirmations.set(key, confirmation);
    return confirmation;
  }

  /** Stores the event and its deliveries (one per matching subscription); `before` runs in the same transaction. */
  private async enqueue(event: DecidableEvent, before?: (tx: Tx) => Promise<boolean>): Promise<IngestResult> {
    const [result] = await this.enqueueAll([event], before);
    return result!;
  }

  /** Stores events and their deliveries in one transaction, in order; `before` runs first in it. */
  private async enqueueAll(events: readonly DecidableEvent[], before?: (tx: Tx) => Promise<boolean>): Promise<IngestResult[]> {
    const { subscriptions, deliveries, store } = this.deps;
    const now = this.deps.now();
    const claim = this.deps.claimTerms?.() ?? undefined;
    let claimed: DeliveryRecord[] = [];
    const results = await store.transaction(async (tx): Promise<IngestResult[]> => {
      claimed = []; // only the attempt that commits counts (a conflict runs the transaction again)
      if (before && !(await before(tx))) return events.map(() => 'duplicate');
      const out: IngestResult[] = [];
      for (const event of events) {
        // Stored whether or not a subscription wants it: the Events API lists every event.
        const targets = (await subscriptions.enabledOf(event.workspaceId, tx)).filter((s) => subscribesTo(s.eventTypes, event.type));
        const queued: DeliveryRecord[] = targets.map((s) => newDelivery(sortableId('whd'), s.id, event, now));
        const heads = await deliveries.enqueue({ ...event, expiresAt: eventExpiresAt(now, this.deps.retentionDays) }, queued, tx, claim);
        if (heads === false) out.push('duplicate');
        else {
          claimed.push(...heads);
          out.push(targets.length === 0 ? 'no_subscriber' : 'queued');
        }
      }
      return out;
    });
    if (results.includes('queued')) this.deps.onQueued(claim && claimed.length > 0 ? { deliveries: claimed, leaseUntil: claim.leaseUntil } : undefined);
    return results;
  }

  /** Re-decides the held events of a listing whose activity changed, in the order they were held. */
  private async redecide(workspaceId: string, listingId: string): Promise<void> {
    for (const held of await this.deps.held.ofListing(workspaceId, listingId)) {
      const decision = await this.decide(held.event);
      if (decision.kind === 'hold') {
        const decideAt = decideBy(held.heldAt, decision.likely, this.deps.windows);
        if (decideAt.getTime() !== held.decideAt.getTime()) await this.deps.held.reschedule(held.event.id, decideAt);
        this.armTimer(decideAt);
      } else await this.conclude(held, decision.kind);
    }
  }

  /** Decides the held events whose window has ended, with what is known now. */
  private async sweep(): Promise<void> {
    const { held, activityClock, cache } = this.deps;
    for (;;) {
      const due = await held.due(activityClock.now(), SWEEP_BATCH);
      for (const h of due) {
        const knowledge = h.event.listingIds.map((id) => cache.activityAt(h.event.workspaceId, id, h.event.occurredAt));
        await this.conclude(h, finalDecision(knowledge));
      }
      if (due.length < SWEEP_BATCH) break;
    }
    const next = await held.nextDecideAt();
    if (next) this.armTimer(next);
  }

  private async conclude(h: HeldEvent, outcome: 'deliver' | 'drop'): Promise<void> {
    if (outcome === 'deliver') {
      // Taking the held row in the delivery's transaction: another replica releasing it too gets nothing.
      await this.enqueue(h.event, (tx) => this.deps.held.take(h.event.id, tx));
      return;
    }
    if (await this.deps.held.take(h.event.id))
      this.deps.logger.debug({ eventId: h.event.id, listingIds: h.event.listingIds }, 'webhook event dropped: its listing was inactive when it happened');
  }

  /** A wall-clock timer for the next end of a window (the activity clock says how far away it is). */
  private armTimer(at: Date): void {
    if (this.stopped || at.getTime() >= this.timerAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at.getTime();
    const delay = Math.max(0, at.getTime() - this.deps.activityClock.now().getTime());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.timerAt = Infinity;
      void this.sweepSoon();
    }, delay);
    this.timer.unref();
  }

  /** A sweep after every decision queued before it (background: see `background`). */
  private sweepSoon(): Promise<void> {
    return this.background(this.order.overAll(() => this.unlessStopped(() => this.sweep())));
  }

  private unlessStopped(step: () => Promise<void>): Promise<void> {
    return this.stopped ? Promise.resolve() : step();
  }

  /** A background decision pass: its failure is logged, and the next pass (poll, timer) retries. */
  private background(pass: Promise<void>): Promise<void> {
    return pass.catch((err: unknown) => this.deps.logger.warn({ err }, 'held webhook events: decision pass failed; the next pass retries'));
  }
}

/** A listing's key in the decision order. */
const listingKey = (workspaceId: string, listingId: string) => `${workspaceId}/${listingId}`;

/** The stored form of an incoming event, with the listings its delivery depends on. */
function decidable(e: IncomingEvent): DecidableEvent {
  return {
    id: e.id,
    workspaceId: e.workspaceId,
    type: e.type,
    listingId: e.listingId,
    listingIds: e.listingId ? [e.listingId] : e.listingIds,
    orderKey: e.orderKey,
    occurredAt: e.occurredAt,
    body: eventBody(e),
  };
}
