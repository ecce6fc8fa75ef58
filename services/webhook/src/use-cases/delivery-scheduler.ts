// The delivery scheduler: picks due deliveries from the durable queue and sends them.
// - Order: deliveries of one subscription + order key (a listing) go one at a time, oldest
//   first; a later event waits until the earlier one is acknowledged, failed or dropped. Once
//   it is, the queue's next head (if due) joins the end of the current scan's work at once
//   (round robin over the queues), instead of waiting for the next scan: a scan is no longer a
//   barrier that the slowest queue holds up for all.
// - Suppression: right before sending, a delivery about a listing that is inactive now is
//   dropped (the activity cache's onChange drops them eagerly too; see app.ts).
// - Durability: a delivery is claimed (status delivering, with a wall-clock lease) before the
//   request and settled after it. A graceful stop waits for in-flight attempts; after a crash,
//   expired claims go back to pending and are sent again (at-least-once; receivers
//   de-duplicate by event id). An acknowledged delivery is never sent again.
// - Isolation: one opossum breaker per endpoint; while open, attempts to it fail at once
//   (recorded as failed attempts on the normal schedule) instead of holding a worker.
import CircuitBreaker from 'opossum';
import type { ListingActivityCache } from '@vrp/activity-cache';
import type { Logger } from '@vrp/platform/logging';
import type { WebhookClock } from '../ports/clock';
import { afterAttempt, isSuccess, type AttemptOutcome, type DeliveryRecord, type DropReason } from '../domain/delivery';
import { isActivityEvent } from '../domain/event-types';
import { SIGNATURE_HEADER, signatureHeader } from '../domain/signature';
import { persistentFailure, signingSecrets, successRecordDue, type SubscriptionRecord } from '../domain/subscription';
import type { TargetPolicy, KeyMode } from '../domain/target';
import type { DeliveryStore, NextClaim } from '../store/delivery-store';
import type { SubscriptionStore } from '../store/subscription-store';
import type { Sender } from '../ports/http-sender';

export interface SchedulerOptions {
  /** Due deliveries read per scan. */
  batchSize: number;
  /**
   * Attempts in flight at once (different queues). 64 rather than 32: every hop of an
   * attempt waits for a turn of the event loop, so a slot is held for many milliseconds under
   * load; with 32 slots for the benchmark's 40 busy queues, 8 queues always waited for one, and
   * the deliveries fell behind the writes (live: 662 and 775 -> 854 and 845 deliveries/s,
   * write -> arrival p99 1.81 and 1.76 -> 1.29 and 1.27 s, A/B alternately).
   */
  concurrency: number;
  /** Longest wait between scans (safety net for other replicas' work and missed wake-ups). */
  pollIntervalMs: number;
  /** Wall-clock lease of a claim; must exceed the send timeout. */
  leaseMs: number;
  /**
   * How often, at most, a scan looks for claims whose lease ran out (a crashed sender's). A lease
   * lasts a minute, so once a second is soon enough; every scan (several a second under load)
   * would be a store write.
   */
  expiredClaimsCheckMs: number;
  breaker: { errorThresholdPercentage: number; volumeThreshold: number; resetTimeoutMs: number; rollingCountTimeoutMs: number };
  /** Jitter source of the retry schedule. */
  random: () => number;
}

export const DEFAULT_SCHEDULER_OPTIONS: SchedulerOptions = {
  batchSize: 200,
  concurrency: 64,
  pollIntervalMs: 1000,
  leaseMs: 60_000,
  expiredClaimsCheckMs: 1000,
  breaker: { errorThresholdPercentage: 50, volumeThreshold: 5, resetTimeoutMs: 30_000, rollingCountTimeoutMs: 60_000 },
  random: Math.random,
};

/**
 * A queue head to attempt. `lease` set: the settlement of the delivery before it claimed it for
 * this scheduler (until then, wall clock), which attempts it or gives the claim back.
 */
interface Turn {
  d: DeliveryRecord;
  lease: Date | null;
}

const unclaimed = (d: DeliveryRecord | null): Turn | null => (d ? { d, lease: null } : null);

class AttemptFailed extends Error {
  constructor(readonly outcome: AttemptOutcome) {
    super('delivery attempt failed');
  }
}

export class DeliveryScheduler {
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = true;
  private timer: NodeJS.Timeout | null = null;
  private unsubscribeClock: (() => void) | null = null;
  private readonly breakers = new Map<string, CircuitBreaker<[Parameters<Sender>[0]], AttemptOutcome>>();
  /** Wall-clock time of the last look for expired claims (see scanOnce). */
  private releasedAt = -Infinity;
  /** Queue heads claimed for this scheduler by the intake's enqueue (see offer): attempted next. */
  private offered: Turn[] = [];

  constructor(
    private readonly deps: {
      deliveries: DeliveryStore;
      subscriptions: SubscriptionStore;
      cache: ListingActivityCache;
      clock: WebhookClock;
      sender: Sender;
      policyOf: (mode: KeyMode) => TargetPolicy;
      logger: Logger;
      options: SchedulerOptions;
    },
  ) {}

  start(): void {
    this.stopped = false;
    this.unsubscribeClock = this.deps.clock.onAdvance(() => this.wake());
    // Fire-and-forget: a scan catches and logs its own errors and re-arms the timer (wake()).
    void this.wake();
  }

  /**
   * The terms on which an enqueue may claim new queue heads for this scheduler (due by now on the
   * scheduling clock, a lease of leaseMs of wall-clock time), or null while it is stopped: then
   * they stay pending for a scan.
   */
  claimTerms(): NextClaim | null {
    if (this.stopped) return null;
    return { dueBy: this.deps.clock.now(), leaseUntil: new Date(Date.now() + this.deps.options.leaseMs) };
  }

  /**
   * Takes queue heads claimed for this scheduler (DeliveryStore.enqueue with claimTerms()): they
   * are attempted next, without a claim of their own, or given back if it stopped.
   */
  offer(claimed: DeliveryRecord[], leaseUntil: Date): void {
    const turns = claimed.map((d) => ({ d, lease: leaseUntil }));
    if (this.stopped) {
      void this.release(turns);
      return;
    }
    this.offered.push(...turns);
    void this.wake();
  }

  /** Stops scanning and waits for the attempts in flight to be settled in the store. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribeClock?.();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
    // Claims offered and not attempted go back to pending at once instead of waiting for their lease.
    await this.release(this.offered.splice(0));
    for (const breaker of this.breakers.values()) breaker.shutdown();
    this.breakers.clear();
  }

  /** Runs a scan now (coalesced with one in progress). Resolves when the queue has nothing due. */
  wake(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          while (!this.stopped && (await this.scanOnce()) > 0);
        } while (this.again && !this.stopped);
      } catch (err) {
        this.deps.logger.error({ err }, 'webhook scheduler scan failed; will retry');
      } finally {
        this.running = null;
        await this.arm();
      }
    })();
    return this.running;
  }

  /** Arms the timer for the next due delivery (capped by the poll interval). */
  private async arm(): Promise<void> {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    const next = await this.deps.deliveries.nextDueAt().catch(() => null);
    const delay = next
      ? Math.max(0, Math.min(next.getTime() - this.deps.clock.now().getTime(), this.deps.options.pollIntervalMs))
      : this.deps.options.pollIntervalMs;
    this.timer = setTimeout(() => void this.wake(), delay);
    this.timer.unref();
  }

  /** One scan: the head of every queue that is due is attempted. Returns how many were attempted. */
  private async scanOnce(): Promise<number> {
    const { deliveries, clock, options } = this.deps;
    if (Date.now() - this.releasedAt >= options.expiredClaimsCheckMs) {
      this.releasedAt = Date.now();
      await deliveries.releaseExpiredClaims(new Date());
    }
    const due = await deliveries.due(clock.now(), options.batchSize);
    // Only queue heads are due (see DeliveryStore); one per queue in any case.
    const queueOf = (d: DeliveryRecord) => `${d.subscriptionId}\u0000${d.orderKey}`;
    const work: Turn[] = [...new Map(due.map((d) => [queueOf(d), { d, lease: null }])).values()];
    /** Queues with an item in `work` or in flight. */
    const taken = new Set(work.map((t) => queueOf(t.d)));
    /** Heads the intake claimed for this scheduler go first (a claimed head is its queue's only open delivery). */
    const takeOffered = () => {
      const offered = this.offered.splice(0);
      for (const turn of offered) taken.add(queueOf(turn.d));
      work.unshift(...offered);
    };
    takeOffered();
    // Up to `concurrency` attempts in flight; each settled head hands its queue's next due head
    // to the end of the work list, and the freed slot takes the next item. Deliveries queued
    // meanwhile (wake) are read in during the scan, so a busy queue never keeps others waiting.
    return new Promise<number>((resolve, reject) => {
      let attempted = 0;
      let active = 0;
      let refilling = false;
      let failure: unknown = null;
      const refill = () => {
        refilling = true;
        this.again = false;
        deliveries
          .due(clock.now(), options.batchSize)
          .then((more) => {
            for (const d of more) {
              if (taken.has(queueOf(d))) continue;
              taken.add(queueOf(d));
              work.push({ d, lease: null });
            }
          })
          .catch((err: unknown) => {
            failure ??= err;
          })
          .finally(() => {
            refilling = false;
            pump();
          });
      };
      const pump = () => {
        if (!this.stopped && failure === null) takeOffered();
        if (this.again && !refilling && !this.stopped && failure === null) refill();
        while (!this.stopped && failure === null && active < options.concurrency && work.length > 0) {
          const turn = work.shift()!;
          active += 1;
          this.attempt(turn)
            .then((result) => {
              if (result) attempted += 1;
              const next = result?.next;
              if (next?.lease) work.push(next);
              else if (next && next.d.status === 'pending' && next.d.nextAttemptAt && next.d.nextAttemptAt <= clock.now()) work.push(next);
              else taken.delete(queueOf(turn.d));
            })
            .catch(async (err: unknown) => {
              failure ??= err;
              // A claim handed to this turn and not settled goes back (a no-op when it was settled).
              if (turn.lease) await this.release([turn]);
            })
            .finally(() => {
              active -= 1;
              pump();
            });
        }
        if (active === 0 && !refilling) {
          // Claims handed over by settlements that will not be attempted now (stopped, failed) go
          // back to pending at once instead of waiting for their lease.
          void this.release(work.splice(0)).then(() => {
            if (failure !== null) reject(failure instanceof Error ? failure : new Error(String(failure)));
            else resolve(attempted);
          });
        }
      };
      pump();
    });
  }

  /**
   * Sends one delivery (the head of its queue) if it is still deliverable. Null when nothing was
   * done (another sender or a drop got there first); otherwise the queue's new head, if any, and
   * whether this scheduler holds its claim already (handed over by the settlement).
   */
  private async attempt({ d, lease }: Turn): Promise<{ next: Turn | null } | null> {
    const { deliveries, subscriptions, cache, clock, options } = this.deps;
    const now = clock.now();
    const dropAs = async (reason: DropReason) => ({ next: unclaimed(await deliveries.drop(d, reason, now, lease !== null)) });
    const subscription = await subscriptions.getForDelivery(d.subscriptionId);
    if (!subscription) return dropAs('subscription_deleted');
    if (!subscription.enabled) return dropAs('subscription_disabled');
    if (d.listingId && !isActivityEvent(d.eventType) && !cache.isActive(d.workspaceId, d.listingId)) return dropAs('listing_inactive');
    const event = await deliveries.event(d.eventId);
    if (!event) {
      if (lease) await deliveries.release(d.id, lease);
      return null;
    }
    const claimed = lease ? d : await deliveries.claim(d.id, new Date(Date.now() + options.leaseMs));
    if (!claimed) return null;

    // Signed with the wall clock: receivers compare it with theirs (replay tolerance).
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'user-agent': 'vrp-webhooks/1',
      'vrp-event-id': event.id,
      'vrp-event-type': event.type,
      'vrp-delivery-id': d.id,
      'vrp-delivery-attempt': String(claimed.attempts + 1),
      [SIGNATURE_HEADER.toLowerCase()]: signatureHeader(signingSecrets(subscription, new Date()), timestamp, event.body),
    };
    const outcome = await this.breakerOf(subscription.id)
      .fire({ url: subscription.url, body: event.body, headers, policy: this.deps.policyOf(subscription.mode) })
      .catch((err: unknown): AttemptOutcome => {
        if (err instanceof AttemptFailed) return err.outcome;
        const code = (err as { code?: string }).code;
        if (code === 'EOPENBREAKER') return { kind: 'error', error: 'circuit open: the endpoint failed repeatedly; not attempted', durationMs: 0 };
        return { kind: 'error', error: (err as Error).message ?? 'error', durationMs: 0 };
      });
    const settledAt = clock.now();
    const patch = afterAttempt(claimed, outcome, settledAt, options.random);
    // The queue's next head, when due, is claimed in the settlement's own write (see DeliveryStore.complete).
    const nextLease = new Date(Date.now() + options.leaseMs);
    const handover = await deliveries.complete(d, patch, { dueBy: settledAt, leaseUntil: nextLease });
    const next: Turn | null = handover.next ? { d: handover.next, lease: handover.claimed ? nextLease : null } : null;
    try {
      return await this.afterSettlement(subscription, d, outcome, patch, settledAt, next);
    } catch (err) {
      if (next?.lease) await this.release([next]);
      throw err;
    }
  }

  /** The subscription's side of a settled attempt: its last success, or disabling it after persistent failure. */
  private async afterSettlement(
    subscription: SubscriptionRecord,
    d: DeliveryRecord,
    outcome: AttemptOutcome,
    patch: Partial<DeliveryRecord>,
    settledAt: Date,
    next: Turn | null,
  ): Promise<{ next: Turn | null }> {
    const { deliveries, subscriptions, logger } = this.deps;
    if (isSuccess(outcome)) {
      // Only when the subscription as this attempt read it has no success within the window: most
      // acknowledgements under load need no write, and not even a store call.
      if (successRecordDue(subscription.lastSuccessAt, settledAt)) await subscriptions.markSuccess(subscription.id, settledAt);
    } else if (patch.status === 'failed') {
      const disable = persistentFailure(
        subscription,
        { createdAt: d.createdAt, responseStatus: patch.responseStatus ?? null, lastError: patch.lastError ?? null },
        settledAt,
      );
      if (disable && (await subscriptions.disable(subscription.id, disable))) {
        if (next?.lease) await this.release([next]);
        const dropped = await deliveries.dropPendingOfSubscription(subscription.id, 'subscription_disabled', settledAt);
        logger.warn({ subscriptionId: subscription.id, workspaceId: d.workspaceId, dropped }, 'webhook endpoint disabled after persistent failures');
        return { next: null };
      }
    }
    return { next };
  }

  /** Gives back claims this scheduler holds and will not attempt now; a failure leaves them to their leases. */
  private async release(turns: Turn[]): Promise<void> {
    await Promise.all(turns.flatMap((t) => (t.lease ? [this.deps.deliveries.release(t.d.id, t.lease)] : []))).catch((err: unknown) =>
      this.deps.logger.warn({ err }, 'could not give back webhook delivery claims; they are sent again when their leases expire'),
    );
  }

  private breakerOf(subscriptionId: string) {
    let breaker = this.breakers.get(subscriptionId);
    if (!breaker) {
      const { breaker: b } = this.deps.options;
      const send = this.deps.sender;
      breaker = new CircuitBreaker(
        async (request: Parameters<Sender>[0]) => {
          const outcome = await send(request);
          if (!isSuccess(outcome)) throw new AttemptFailed(outcome);
          return outcome;
        },
        {
          timeout: false,
          errorThresholdPercentage: b.errorThresholdPercentage,
          volumeThreshold: b.volumeThreshold,
          resetTimeout: b.resetTimeoutMs,
          rollingCountTimeout: b.rollingCountTimeoutMs,
        },
      );
      this.breakers.set(subscriptionId, breaker);
    }
    return breaker;
  }
}
