// Applying a reservation change read from a PMS (pms.sync.v1): idempotent, newest change wins,
// the PMS's booking always applies and overlaps are flagged on both sides.
import { checkPmsInput } from '@vrp/api-model';
import type { pmsSync, ReservationSyncPayload } from '@vrp/contracts';
import { AppError } from '@vrp/platform/errors';
import { newId } from '@vrp/platform/ids';
import { PermanentError, TransientError } from '@vrp/platform/consumer';
import { newConfirmationCode } from '../domain/confirmation-code';
import { money } from '../domain/pricing';
import { isOneOf, newReservationRecord, RESERVATION_SOURCES, WRITABLE_STATUSES, type ReservationRecord } from '../domain/reservation';
import { recordReservationEvent, type ReservationChange } from '../events/reservation-events';
import { ReservationUseCase } from './context';
import { endConflicts, flagOverlaps, holdNights } from './hold-nights';

export class ApplyPmsReservation extends ReservationUseCase {
  /**
   * Applies one reservation change read from a PMS (pms.sync.v1). Idempotent: matched on
   * workspace + PMS + the PMS's id, and a change not newer than the stored one changes nothing.
   * Applies on inactive listings too (their data keeps syncing); the event is published like an
   * API change, and webhook delivery decides about inactive listings.
   */
  async applySync(received: pmsSync.PmsSyncChange): Promise<'applied' | 'ignored'> {
    if (received.entity !== 'reservation') return 'ignored';
    // Held to the API's vocabulary and limits: harmless differences normalised, nonsense refused.
    const change = checkPmsInput(received);
    const p = parseSyncPayload(change);
    const changedAt = p.updatedAt;
    const ws = change.workspaceId;
    const existing = await this.deps.reservations.findByPmsId(ws, change.provider, p.externalId);
    if (existing?.pmsUpdatedAt && existing.pmsUpdatedAt.getTime() >= changedAt.getTime()) return 'ignored';
    const listingExternalId = p.listingExternalId || change.listingExternalId;
    const { listing, deleted } = await this.deps.listings.byPmsId(ws, change.provider, listingExternalId);
    if (!listing && deleted) {
      // The workspace deleted this PMS listing: the change cannot be applied until the listing is
      // back (a newer PMS change of it imports it again). A dead letter, replayable then.
      throw new PermanentError(
        'listing_deleted',
        `${change.provider} reservation ${p.externalId} is on listing ${change.provider}/${listingExternalId}, which workspace ${ws} deleted; it is applied when the listing is imported again`,
      );
    }
    // The listing's own import may not be applied yet (another consumer group): retried in place.
    if (!listing)
      throw new TransientError('listing_not_imported', `pms sync: no listing of ${change.provider} with id '${listingExternalId}' in workspace ${ws} yet`);
    const now = this.now();
    const total = money(p.totalPrice ?? existing?.financials.totalPrice ?? 0);
    const synced = {
      propertyId: listing.id,
      status: p.status,
      source: isOneOf(RESERVATION_SOURCES, p.source) ? p.source : (existing?.source ?? 'DIRECT'),
      checkIn: p.checkIn,
      checkOut: p.checkOut,
      primaryGuest: {
        firstName: p.guest.firstName,
        lastName: p.guest.lastName ?? '',
        email: p.guest.email ?? '',
        phone: p.guest.phone ?? '',
        language: p.guest.language ?? '',
      },
      occupancy: { ...p.occupancy },
      financials:
        p.totalPrice === undefined && existing
          ? existing.financials
          : // A PMS reports the total only: it is the whole price, with no lines to split it into.
            {
              totalPrice: total,
              currency: p.currency ?? listing.currency,
              paymentStatus: existing?.financials.paymentStatus ?? 'UNPAID',
              breakdown: { basePrice: total, cleaningFee: 0, fees: [], taxes: [], discounts: [] },
            },
      updatedAt: now,
      pmsUpdatedAt: changedAt,
    } satisfies Partial<ReservationRecord>;
    let kind: ReservationChange;
    let next: ReservationRecord;
    if (existing) {
      next = { ...existing, ...synced, version: existing.version + 1 };
      kind = next.status === 'CANCELLED' && existing.status !== 'CANCELLED' ? 'cancelled' : 'updated';
    } else {
      next = newReservationRecord({
        id: newId('res'),
        workspaceId: ws,
        confirmationCode: newConfirmationCode(),
        bookedAt: now,
        pmsProvider: change.provider,
        pmsExternalId: p.externalId,
        ...synced,
      });
      kind = 'created';
    }
    // The PMS is the source of truth: its booking always applies, overlaps are flagged on both.
    // A conflict (another change applied meanwhile, or a night taken concurrently) throws: the
    // bus redelivers and this re-reads.
    await this.deps.store.transaction(async (tx) => {
      const overlaps = await holdNights(this.deps.nights, next, 'pms', tx, { now });
      // Overlaps flagged before that ended (this booking cancelled or moved, or the other side
      // gone) are cleared on the other side; those that still hold are kept on both.
      const still = await endConflicts(
        this.deps,
        next,
        (existing?.conflictsWith ?? []).filter((id) => !overlaps.includes(id)),
        now,
        tx,
      );
      const written = { ...next, conflictsWith: [...new Set([...overlaps, ...still])].sort() };
      const stored = existing
        ? await this.deps.reservations.replaceIfVersion(written, existing.version, tx)
        : await this.deps.reservations.insertRaw(written, tx);
      if (!stored) throw new AppError('conflict', `Reservation '${next.id}' changed while a PMS change was applied; it is applied again.`);
      await flagOverlaps(this.deps, ws, stored.id, overlaps, now, tx);
      await recordReservationEvent(this.deps.outbox, tx, kind, stored, now);
    });
    this.publishSoon();
    return 'applied';
  }
}

/** A sync change's reservation, checked: every field this service needs is there and readable. */
type SyncedReservation = ReservationSyncPayload & {
  status: (typeof WRITABLE_STATUSES)[number];
  guest: NonNullable<ReservationSyncPayload['guest']>;
  occupancy: NonNullable<ReservationSyncPayload['occupancy']>;
  updatedAt: Date;
};

/**
 * The reservation of a sync change (already held to the API rules by checkPmsInput: dates, money,
 * text); a payload no retry can fix is a permanent failure (dead letter).
 */
function parseSyncPayload(change: pmsSync.PmsSyncChange): SyncedReservation {
  const p = change.reservation;
  const problems: string[] = [];
  if (!p) problems.push('no reservation in the change');
  else {
    if (!p.externalId) problems.push('externalId is missing');
    if (!isOneOf(WRITABLE_STATUSES, p.status)) problems.push(`status '${String(p.status)}' is unknown`);
    if (!p.updatedAt || Number.isNaN(p.updatedAt.getTime())) problems.push('updatedAt is not a time');
    if (!p.guest) problems.push('guest is missing');
    if (!p.occupancy) problems.push('occupancy is missing');
  }
  if (problems.length || !p)
    throw new PermanentError('malformed_payload', `pms sync change ${change.changeId} (${change.provider} reservation): ${problems.join('; ')}`);
  return p as SyncedReservation;
}
