// Changing and cancelling a reservation (PATCH, cancel): decided on a fresh read at each attempt,
// relayed to the PMS under the reservation's write lease (new nights held pending meanwhile),
// stored only once the PMS accepted it.
import { assertSupported } from '@vrp/pms-matrix';
import { acquireLease, releaseLease, type Lease } from '@vrp/platform/store';
import { AppError, preconditionFailed } from '@vrp/platform/errors';
import type { RequestKey } from '@vrp/platform/applied-requests';
import { holdsNights } from '../domain/occupancy';
import type { ReservationRecord } from '../domain/reservation';
import { applyPatch, parsePatch, patchChanges, patchWrites, relayOperation, type ReservationPatchInput } from '../domain/writes';
import { recordReservationEvent, type ReservationChange } from '../events/reservation-events';
import { ReservationUseCase, VERSION_ATTEMPTS } from './context';
import { endConflicts, holdNights, holdPending, isNightTaken } from './hold-nights';

export class ChangeReservation extends ReservationUseCase {
  /**
   * Changes only what the patch names, against the reservation as it is when the write
   * commits: the decision is re-made on a fresh read whenever another change committed first,
   * so concurrent PATCHes of different fields all survive. With `expectedVersion` (If-Match) a
   * changed reservation is 412 instead. A key already applied answers the reservation as it is.
   */
  update(workspaceId: string, id: string, input: ReservationPatchInput, key: RequestKey | null, expectedVersion = 0): Promise<ReservationRecord> {
    return this.deps.applied.once(
      key,
      () => this.updateOnce(workspaceId, id, input, key, expectedVersion),
      (done) => this.deps.reservations.get(workspaceId, done),
    );
  }

  private async updateOnce(
    workspaceId: string,
    id: string,
    input: ReservationPatchInput,
    key: RequestKey | null,
    expectedVersion: number,
  ): Promise<ReservationRecord> {
    // A PMS stay's changes go to the PMS before they are stored: one at a time per reservation
    // (the write lease), so the PMS receives them in the order they are stored here.
    const first = await this.deps.reservations.get(workspaceId, id);
    const where = { workspaceId, _id: id };
    const lease = first.pmsProvider ? await acquireLease(this.deps.reservations.reservations, where) : null;
    try {
      return await this.applyUpdate(workspaceId, id, input, key, expectedVersion, lease);
    } finally {
      // Released by the write itself when one committed; otherwise (no change, refusal, failure) here.
      if (lease) await releaseLease(this.deps.reservations.reservations, where, lease).catch(() => undefined);
    }
  }

  private async applyUpdate(
    workspaceId: string,
    id: string,
    input: ReservationPatchInput,
    key: RequestKey | null,
    expectedVersion: number,
    lease: Lease | null,
  ): Promise<ReservationRecord> {
    const idempotencyKey = key?.key ?? '';
    for (let attempt = 1; ; attempt++) {
      const current = await this.deps.reservations.get(workspaceId, id);
      if (expectedVersion && current.version !== expectedVersion) throw preconditionFailed('Reservation', id, expectedVersion, current.version);
      const patch = parsePatch(input, current);
      const listing = await this.activeListing(workspaceId, current.propertyId);
      const target = patch.propertyId ? await this.activeListing(workspaceId, patch.propertyId) : listing;
      const changes = patchChanges(patch, current, target.id);
      const writes = patchWrites(patch, changes);
      const provider = listing.pmsProvider;
      for (const write of writes) assertSupported(provider, write);
      // Moving a stay onto a PMS listing would create it in that PMS: the same refusal.
      if (changes.listing) assertSupported(target.pmsProvider, 'reservation.move_listing');
      if (writes.length === 0) return current; // nothing changes: no relay, no event
      const now = this.now();
      const next = { ...applyPatch(current, patch, target.id, now), version: current.version + 1 };
      const nightsChange = changes.dates || changes.listing || holdsNights(next) !== holdsNights(current);
      // Nights it does not hold yet must be open on the calendar and free (un-cancel, new dates, move).
      if (nightsChange && holdsNights(next)) await this.availableStay(workspaceId, target.id, next.checkIn, next.checkOut, id, idempotencyKey);
      // New nights of a PMS stay are held (pending) before the relay: no other write takes them
      // while the PMS answers; freed below unless the stored change made them the stay's.
      const pending = provider && nightsChange && holdsNights(next) ? await holdPending(this.deps, next, this.now, idempotencyKey) : null;
      try {
        if (provider) {
          // Under the lease: a concurrent request with the same key that committed meanwhile is
          // this one's outcome, and its change must not reach the PMS a second time.
          if (key && (await this.deps.applied.lookup(key)) !== null) return await this.deps.reservations.get(workspaceId, id);
          const operation = relayOperation(writes);
          await this.deps.relay.relay({
            workspaceId,
            provider,
            operation,
            listingExternalId: listing.pmsExternalId,
            entityExternalId: current.pmsExternalId,
            payload: operation === 'reservation.cancel' ? { status: 'CANCELLED' } : { ...input, propertyId: undefined },
            idempotencyKey: idempotencyKey ? `${workspaceId}:${idempotencyKey}` : `${id}:${operation}:v${current.version}`,
          });
        }
        const change: ReservationChange = changes.status && next.status === 'CANCELLED' ? 'cancelled' : 'updated';
        const stored = await this.deps.store.transaction(async (tx) => {
          let replaced = await this.deps.reservations.replaceIfVersion(next, current.version, tx, lease);
          if (!replaced) return null;
          if (nightsChange) await holdNights(this.deps.nights, replaced, provider ? 'pms' : 'exclusive', tx, { now: this.now() });
          // A cancel, new dates or a move can end an overlap with a PMS booking: both sides lose the flag.
          if (nightsChange && replaced.conflictsWith.length > 0) {
            const still = await endConflicts(this.deps, replaced, replaced.conflictsWith, now, tx);
            if (still.length !== replaced.conflictsWith.length) replaced = await this.deps.reservations.setConflicts(replaced, still, tx);
          }
          await this.deps.applied.remember(key, id, tx);
          await recordReservationEvent(this.deps.outbox, tx, change, replaced, now);
          return replaced;
        });
        if (stored) {
          this.publishSoon();
          return stored;
        }
        // Another change committed since the read.
        if (expectedVersion) {
          const latest = await this.deps.reservations.get(workspaceId, id);
          throw preconditionFailed('Reservation', id, expectedVersion, latest.version);
        }
      } catch (err) {
        if (isNightTaken(err) && attempt < VERSION_ATTEMPTS) continue;
        // Also a concurrent commit of the same key (applied_requests): applied.once() answers that change.
        throw err;
      } finally {
        await pending?.release();
      }
      if (attempt >= VERSION_ATTEMPTS) {
        throw new AppError(
          'conflict',
          `Reservation '${id}' is being changed by many requests at once; nothing was changed by this one.`,
          {},
          'Retry the request.',
        );
      }
    }
  }

  /** Cancelling a cancelled reservation changes nothing and answers it as it is. */
  cancel(workspaceId: string, id: string, key: RequestKey | null, expectedVersion = 0): Promise<ReservationRecord> {
    return this.update(workspaceId, id, { status: 'CANCELLED', customFields: {} }, key, expectedVersion);
  }
}
