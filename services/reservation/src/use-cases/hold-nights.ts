// Holding a reservation's nights inside the transaction that writes the reservation. The
// occupancy rules are in domain/occupancy.ts; this is the I/O around them.
//
// Two modes:
// - exclusive (API writes on listings without a PMS, and API writes before they reach a PMS):
//   a night held by another reservation, or by another write's live pending hold, refuses the
//   write with 409 dates_unavailable;
// - pms (a PMS's own booking, synced or accepted by the PMS): the PMS is the source of truth,
//   so the reservation is written anyway; it holds the nights that are free (a pending hold of
//   another write gives way to it), and it and every local reservation it overlaps are flagged
//   (`conflictsWith`) and published as updated.
//
// Pending holds: a write on a PMS listing takes its new nights in exclusive mode, as a pending
// hold (`holdUntil`), before anything is sent to the PMS (holdPending); it renews the hold while
// the PMS answers, and the transaction that stores the PMS-accepted stay turns the hold into the
// stay's nights. A refusal, a timeout or a failure frees the hold; a holder that dies stops
// renewing it, and a hold past its time is free to the next writer.
import { AppError } from '@vrp/platform/errors';
import type { Logger } from '@vrp/platform/logging';
import type { Outbox } from '@vrp/platform/outbox';
import { DuplicateKeyError, type DocumentStore, type Tx } from '@vrp/platform/store';
import { datesUnavailable } from '../domain/date-conflict';
import { dateConflicts, heldNights, holdersOf, holdLapsed, holdsNights, sameRequestHold, staysOverlap, type BookedNight } from '../domain/occupancy';
import type { ReservationRecord } from '../domain/reservation';
import { recordReservationEvent } from '../events/reservation-events';
import { BOOKED_NIGHTS, type NightStore } from '../store/night-store';
import type { ReservationStore } from '../store/reservation-store';

export type HoldMode = 'exclusive' | 'pms';

/** Attempts of a write whose nights were taken by a concurrent transaction between read and write. */
export const NIGHT_ATTEMPTS = 4;

/** How long a pending hold lasts without renewal: a dead holder's nights are free this long after it died. */
export const PENDING_HOLD_MS = 3_000;
/** How often a live holder renews its pending hold (well inside PENDING_HOLD_MS). */
export const PENDING_RENEW_MS = 1_000;

/** True when a write failed because a concurrent transaction took one of the nights first. */
export const isNightTaken = (err: unknown) => err instanceof DuplicateKeyError && err.collection === BOOKED_NIGHTS;

/**
 * A retry of a write whose first attempt still waits for its PMS (same Idempotency-Key, its
 * pending hold live): 409 idempotency_in_progress for as long as the hold lasts, never
 * dates_unavailable, which would be recorded as the key's outcome while the first may succeed.
 */
export function assertNotRunning(booked: readonly BookedNight[], key: string, now: Date): void {
  const running = sameRequestHold(booked, key, now);
  if (!running?.holdUntil) return;
  throw new AppError('idempotency_in_progress', 'A request with this Idempotency-Key is still waiting for its PMS; retry after the time in Retry-After.', {
    retryAfterSeconds: Math.max(1, Math.ceil((running.holdUntil.getTime() - now.getTime()) / 1000)),
  });
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
 * Makes the nights held by `r` exactly heldNights(r) on its listing, in `tx`. Returns the other
 * reservations it overlaps (always empty in exclusive mode, which throws dates_unavailable
 * instead). A night taken concurrently surfaces as a DuplicateKeyError that aborts the
 * transaction: the caller runs it again (isNightTaken), and the re-read then names the holder.
 * `created`: `r` is written by this transaction for the first time, so it holds no stored nights
 * yet and none are looked for to release (a delete that would find nothing on every create).
 * Pending holds `r` itself took become its stay's nights (unless `pendingUntil` asks for one).
 */
export async function holdNights(nights: NightStore, r: ReservationRecord, mode: HoldMode, tx: Tx, opts: HoldOptions = {}): Promise<string[]> {
  const now = opts.now ?? new Date();
  const wanted = heldNights(r);
  if (!opts.created) await nights.releaseExcept(r.workspaceId, r.id, r.propertyId, wanted, tx);
  let held = await nights.holders(r.workspaceId, r.propertyId, wanted, tx);
  // Other writes' pending holds that give way: lapsed ones (their holder died), and every one
  // when the PMS itself booked the nights.
  const giveWay = held.filter((h) => h.reservationId !== r.id && h.holdUntil != null && (mode === 'pms' || holdLapsed(h, now)));
  if (giveWay.length > 0) {
    await nights.dropPending(
      r.workspaceId,
      r.propertyId,
      giveWay.map((h) => h.night),
      r.id,
      tx,
    );
    held = held.filter((h) => !giveWay.includes(h));
  }
  const others = held.filter((h) => h.reservationId !== r.id);
  if (others.length > 0 && mode === 'exclusive') {
    assertNotRunning(others, opts.key ?? '', now);
    throw datesUnavailable(dateConflicts(wanted, [], others, r.id));
  }
  const taken = new Set(held.map((h) => h.night));
  await nights.take(
    r.workspaceId,
    r.propertyId,
    wanted.filter((n) => !taken.has(n)),
    r.id,
    tx,
    opts.pendingUntil ? { until: opts.pendingUntil, key: opts.key ?? '' } : null,
  );
  if (!opts.pendingUntil && held.some((h) => h.reservationId === r.id && h.holdUntil != null)) await nights.confirmPending(r.workspaceId, r.id, tx);
  return holdersOf(others, r.id);
}

/** A pending hold taken by holdPending: renewed until released. */
export interface PendingHold {
  /** Stops renewing and frees whatever is still pending (nothing once the stored stay confirmed it). */
  release(): Promise<void>;
}

/**
 * Holds the nights `r` will have, before its write is relayed to a PMS: in exclusive mode (409
 * dates_unavailable when another stay or a live pending hold has one), as a pending hold that
 * is renewed every PENDING_RENEW_MS until release(). The nights `r` already holds stay as they
 * are; only new ones are held pending. The hold carries the write's Idempotency-Key (`key`, ''
 * without one): a retry of the same write meets 409 idempotency_in_progress, not a conflict.
 */
export async function holdPending(
  deps: { store: DocumentStore; nights: NightStore; logger: Logger },
  r: ReservationRecord,
  clock: () => Date,
  key: string,
): Promise<PendingHold> {
  for (let attempt = 1; ; attempt++) {
    try {
      await deps.store.transaction((tx) => {
        const now = clock();
        return holdNights(deps.nights, r, 'exclusive', tx, { created: true, now, pendingUntil: new Date(now.getTime() + PENDING_HOLD_MS), key });
      });
      break;
    } catch (err) {
      if (isNightTaken(err) && attempt < NIGHT_ATTEMPTS) continue; // re-read: names the holder
      throw err;
    }
  }
  const renew = () =>
    deps.nights.renewPending(r.workspaceId, r.id, new Date(clock().getTime() + PENDING_HOLD_MS)).catch((err: unknown) => {
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

/** Flags the local reservations a PMS booking overlaps, and publishes them as updated. */
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
 * Ends the conflicts of `r` that no longer hold, in `tx`, after `r`'s own nights were written:
 * a partner named in `flagged` that no longer overlaps `r` (either side cancelled or moved, or
 * the partner is gone) loses `r` from its `conflictsWith` (a new version and a
 * `reservation.updated` event) and takes the nights of its stay that are free now. Returns the
 * partners that still overlap `r`: the caller writes them as `r`'s own list with `r`'s change.
 */
export async function endConflicts(
  deps: { reservations: ReservationStore; nights: NightStore; outbox: Outbox },
  r: ReservationRecord,
  flagged: readonly string[],
  at: Date,
  tx: Tx,
): Promise<string[]> {
  const still: string[] = [];
  for (const partnerId of flagged) {
    const partner = await deps.reservations.find(r.workspaceId, partnerId, tx);
    if (partner && staysOverlap(r, partner)) {
      still.push(partnerId);
      continue;
    }
    if (!partner) continue;
    // The nights `r` held of the partner's stay are free now: the partner holds its whole stay again.
    if (holdsNights(partner)) await holdNights(deps.nights, partner, 'pms', tx, { now: at });
    const cleared = await deps.reservations.removeConflict(r.workspaceId, partnerId, r.id, at, tx);
    if (cleared) await recordReservationEvent(deps.outbox, tx, 'updated', cleared, at);
  }
  return still;
}
