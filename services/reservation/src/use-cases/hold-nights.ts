// Holding a reservation's nights inside the transaction that writes the reservation. The
// occupancy rules are in domain/occupancy.ts; this is the I/O around them.
//
// Two modes:
// - exclusive (API writes on listings without a PMS, and API writes before they reach a PMS):
//   a night held by another reservation refuses the write with 409 dates_unavailable;
// - pms (a PMS's own booking, synced or accepted by the PMS): the PMS is the source of truth,
//   so the reservation is written anyway; it holds the nights that are free, and it and every
//   local reservation it overlaps are flagged (`conflictsWith`) and published as updated.
import { datesUnavailable, DuplicateKeyError, type Outbox, type Tx } from '@vrp/platform';
import { dateConflicts, heldNights, holdersOf, holdsNights, staysOverlap } from '../domain/occupancy';
import type { ReservationRecord } from '../domain/reservation';
import { recordReservationEvent } from '../events/reservation-events';
import { BOOKED_NIGHTS, type NightStore } from '../store/night-store';
import type { ReservationStore } from '../store/reservation-store';

export type HoldMode = 'exclusive' | 'pms';

/** Attempts of a write whose nights were taken by a concurrent transaction between read and write. */
export const NIGHT_ATTEMPTS = 4;

/** True when a write failed because a concurrent transaction took one of the nights first. */
export const isNightTaken = (err: unknown) => err instanceof DuplicateKeyError && err.collection === BOOKED_NIGHTS;

/**
 * Makes the nights held by `r` exactly heldNights(r) on its listing, in `tx`. Returns the other
 * reservations it overlaps (always empty in exclusive mode, which throws dates_unavailable
 * instead). A night taken concurrently surfaces as a DuplicateKeyError that aborts the
 * transaction: the caller runs it again (isNightTaken), and the re-read then names the holder.
 * `created`: `r` is written by this transaction for the first time, so it holds no nights yet and
 * none are looked for to release (issue 17: a delete that found nothing on every create).
 */
export async function holdNights(nights: NightStore, r: ReservationRecord, mode: HoldMode, tx: Tx, created = false): Promise<string[]> {
  const wanted = heldNights(r);
  if (!created) await nights.releaseExcept(r.workspaceId, r.id, r.propertyId, wanted, tx);
  const held = await nights.holders(r.workspaceId, r.propertyId, wanted, tx);
  const others = held.filter((h) => h.reservationId !== r.id);
  if (others.length > 0 && mode === 'exclusive') throw datesUnavailable(dateConflicts(wanted, [], others, r.id));
  const taken = new Set(held.map((h) => h.night));
  await nights.take(
    r.workspaceId,
    r.propertyId,
    wanted.filter((n) => !taken.has(n)),
    r.id,
    tx,
  );
  return holdersOf(others, r.id);
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
    if (holdsNights(partner)) await holdNights(deps.nights, partner, 'pms', tx);
    const cleared = await deps.reservations.removeConflict(r.workspaceId, partnerId, r.id, at, tx);
    if (cleared) await recordReservationEvent(deps.outbox, tx, 'updated', cleared, at);
  }
  return still;
}
