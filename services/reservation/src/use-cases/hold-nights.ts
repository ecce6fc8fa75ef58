// Holding a stay's nights inside the transaction that writes the stay: read who holds the nights
// the booking rule names, let the rule decide (domain/booking.ts: holdPlan), write its plan. The
// unique night documents of store/night-store.ts make the outcome atomic; a night taken by a
// concurrent transaction between the read and the write is retried by retryWhileNightTaken.
//
// Pending holds: a write on a PMS listing takes its new nights as a local write, as a pending
// hold (`holdUntil`), before anything is sent to the PMS (holdPending); it renews the hold while
// the PMS answers, and the transaction that stores the PMS-accepted stay turns the hold into the
// stay's nights. A refusal, a timeout or a failure frees the hold; a holder that dies stops
// renewing it, and a hold past its time is free to the next writer.
import type { WorkspaceSettings } from '@vrp/api-model';
import { DuplicateKeyError, type DocumentStore, type Tx } from '@vrp/platform/store';
import { type Logger } from '@vrp/platform/logging';
import { type Outbox } from '@vrp/platform/outbox';
import { checksBeyondOwnNights, conflictFlagHolds, holdPlan, holdsNights, stayClaim, type WriteKind } from '../domain/booking';
import type { ReservationRecord } from '../domain/reservation';
import { recordReservationEvent } from '../publishers/reservation-events';
import { BOOKED_NIGHTS, NIGHT_GUARDS, type NightStore } from '../store/night-store';
import type { ReservationStore } from '../store/reservation-store';

/** Attempts of a write whose nights were taken by a concurrent transaction between read and write. */
export const NIGHT_ATTEMPTS = 4;

/** How long a pending hold lasts without renewal: a dead holder's nights are free this long after it died. */
export const PENDING_HOLD_MS = 3_000;
/** How often a live holder renews its pending hold (well inside PENDING_HOLD_MS). */
const PENDING_RENEW_MS = 1_000;

/** True when a write failed because a concurrent transaction took one of the nights (or first guarded the listing) first. */
const isNightTaken = (err: unknown) => err instanceof DuplicateKeyError && (err.collection === BOOKED_NIGHTS || err.collection === NIGHT_GUARDS);

/**
 * Runs a write again while it fails because a night was taken meanwhile (a concurrent
 * transaction committed it between this write's read and its insert), up to NIGHT_ATTEMPTS: the
 * next attempt re-reads, so it either finds the night free again or names its holder (409).
 * The one retry of every writer of nights: create, change, PMS sync, backfill, pending holds.
 */
export async function retryWhileNightTaken<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      if (isNightTaken(err) && attempt < NIGHT_ATTEMPTS) continue;
      throw err;
    }
  }
}

export interface HoldOptions {
  /** `r` is written by this transaction for the first time (or holds pending): nothing to release. */
  created?: boolean;
  /** Take the nights as a pending hold lasting until then, instead of as the stay's nights. */
  pendingUntil?: Date;
  /** The write's Idempotency-Key ('' without one): its pending hold carries it. */
  key?: string;
  /** The service's clock: pending holds past their time are free. */
  now?: Date;
}

/**
 * Makes the nights held by `r` exactly what the booking rule claims for it under the
 * workspace's `settings`, in `tx`. Returns
 * the other stays it overlaps (always empty for a local write, which is refused instead). A
 * night taken concurrently surfaces as a DuplicateKeyError that aborts the transaction: the
 * caller runs it again (retryWhileNightTaken). `created`: `r` is written by this transaction for
 * the first time, so it holds no stored nights yet and none are looked for to release.
 */
export async function holdNights(
  nights: NightStore,
  r: ReservationRecord,
  kind: WriteKind,
  settings: WorkspaceSettings,
  tx: Tx,
  opts: HoldOptions = {},
): Promise<string[]> {
  const claim = stayClaim(r, kind, settings);
  if (!opts.created) await nights.releaseExcept(r.workspaceId, r.id, r.propertyId, claim.nights, tx);
  if (checksBeyondOwnNights(claim)) await nights.guardListing(r.workspaceId, r.propertyId, tx);
  const held = await nights.holders(r.workspaceId, r.propertyId, claim.mustBeFree, tx);
  const at = { self: r.id, key: opts.key ?? '', now: opts.now ?? new Date(), pending: !!opts.pendingUntil };
  const plan = holdPlan(claim, held, kind, at);
  await nights.dropPending(r.workspaceId, r.propertyId, plan.giveWay, r.id, tx);
  await nights.take(r.workspaceId, r.propertyId, plan.take, r.id, tx, opts.pendingUntil ? { until: opts.pendingUntil, key: at.key } : null);
  if (plan.confirmOwnPending) await nights.confirmPending(r.workspaceId, r.id, tx);
  return plan.overlaps;
}

/** A pending hold taken by holdPending: renewed until released. */
export interface PendingHold {
  /** Stops renewing and frees whatever is still pending (nothing once the stored stay confirmed it). */
  release(): Promise<void>;
}

/**
 * Holds the nights `r` will have, before its write is relayed to a PMS, as a local write (409
 * dates_unavailable when another stay or a live pending hold has one), as a pending hold that is
 * renewed every PENDING_RENEW_MS until release(). The nights `r` already holds stay as they are;
 * only new ones are held pending. The hold carries the write's Idempotency-Key (`key`, ''
 * without one): a retry of the same write meets 409 idempotency_in_progress, not a conflict.
 */
export async function holdPending(
  deps: { store: DocumentStore; nights: NightStore; logger: Logger; clock: () => Date },
  r: ReservationRecord,
  key: string,
  settings: WorkspaceSettings,
): Promise<PendingHold> {
  await retryWhileNightTaken(() =>
    deps.store.transaction((tx) => {
      const now = deps.clock();
      return holdNights(deps.nights, r, 'local', settings, tx, { created: true, now, pendingUntil: new Date(now.getTime() + PENDING_HOLD_MS), key });
    }),
  );
  const renew = () =>
    deps.nights.renewPending(r.workspaceId, r.id, new Date(deps.clock().getTime() + PENDING_HOLD_MS)).catch((err: unknown) => {
      deps.logger.warn({ err, reservationId: r.id }, 'could not renew a pending hold of nights');
    });
  const timer = setInterval(() => void renew(), PENDING_RENEW_MS);
  timer.unref();
  return {
    async release() {
      clearInterval(timer);
      await deps.nights.releasePending(r.workspaceId, r.id).catch((err: unknown) => {
        // Not freed now: it lapses by itself within PENDING_HOLD_MS.
        deps.logger.warn({ err, reservationId: r.id }, 'could not free a pending hold of nights');
      });
    },
  };
}

/** Flags the stays a PMS booking overlaps, and publishes them as updated. */
export async function flagOverlaps(
  deps: { reservations: ReservationStore; outbox: Outbox },
  workspaceId: string,
  pmsReservationId: string,
  holders: readonly string[],
  at: Date,
  tx: Tx,
): Promise<void> {
  for (const id of holders) {
    const flagged = await deps.reservations.addConflict(workspaceId, id, pmsReservationId, at, tx);
    if (flagged) await recordReservationEvent(deps.outbox, tx, 'updated', flagged, at);
  }
}

/**
 * Ends the conflicts of `r` that no longer hold (conflictFlagHolds), in `tx`, after `r`'s own
 * nights were written: a partner named in `flagged` that no longer overlaps `r` (either side
 * cancelled or moved, or the partner is gone) loses `r` from its `conflictsWith` (a new version
 * and a `reservation.updated` event) and takes the nights of its stay that are free now. Returns
 * the partners that still overlap `r`: the caller writes them as `r`'s own list with `r`'s change.
 */
export async function endConflicts(
  deps: { reservations: ReservationStore; nights: NightStore; outbox: Outbox },
  r: ReservationRecord,
  settings: WorkspaceSettings,
  flagged: readonly string[],
  at: Date,
  tx: Tx,
): Promise<string[]> {
  const still: string[] = [];
  for (const partnerId of flagged) {
    const partner = await deps.reservations.find(r.workspaceId, partnerId, tx);
    if (partner && conflictFlagHolds(r, partner)) {
      still.push(partnerId);
      continue;
    }
    if (!partner) continue;
    // The nights `r` held of the partner's stay are free now: the partner holds its whole stay again.
    if (holdsNights(partner)) await holdNights(deps.nights, partner, 'pms', settings, tx, { now: at });
    const cleared = await deps.reservations.removeConflict(r.workspaceId, partnerId, r.id, at, tx);
    if (cleared) await recordReservationEvent(deps.outbox, tx, 'updated', cleared, at);
  }
  return still;
}
