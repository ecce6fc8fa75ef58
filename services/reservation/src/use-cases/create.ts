// Creating a reservation: validated, refused by the capability matrix before anything is sent,
// its nights held pending while it is relayed to the listing's PMS, then stored with its nights
// and event in one transaction.
import { assertSupported, CREATE_REQUIRES_TOTAL_PRICE } from '@vrp/pms-matrix';
import { AppError, validationFailed } from '@vrp/platform/errors';
import { DuplicateKeyError } from '@vrp/platform/store';
import { newId } from '@vrp/platform/ids';
import type { RequestKey } from '@vrp/platform/applied-requests';
import { newConfirmationCode } from '../domain/confirmation-code';
import { financialsFor, priceStay } from '../domain/pricing';
import { newReservationRecord, type ReservationRecord } from '../domain/reservation';
import { createWrites, parseNewReservation, type NewReservationInput } from '../domain/writes';
import { recordReservationEvent } from '../events/reservation-events';
import { CODE_ATTEMPTS, isDuplicateOf, ReservationUseCase } from './context';
import { flagOverlaps, holdNights, holdPending, isNightTaken, NIGHT_ATTEMPTS } from './hold-nights';

export class CreateReservation extends ReservationUseCase {
  /**
   * A retry of a create that already committed (even one whose reply was lost) answers it: the
   * key is stored in applied_requests with the reservation, in its transaction, and checked
   * before anything is sent to a PMS; the same key with another body is idempotency_conflict.
   */
  create(workspaceId: string, input: NewReservationInput, key: RequestKey | null): Promise<ReservationRecord> {
    return this.deps.applied.once(
      key,
      () => this.createOnce(workspaceId, input, key),
      (id) => this.deps.reservations.get(workspaceId, id),
    );
  }

  private async createOnce(workspaceId: string, input: NewReservationInput, key: RequestKey | null): Promise<ReservationRecord> {
    const idempotencyKey = key?.key ?? '';
    const draft = parseNewReservation(input);
    // Creates stored before applied_requests existed keep their key on the reservation only.
    if (idempotencyKey) {
      const done = await this.deps.reservations.findByIdempotencyKey(workspaceId, idempotencyKey, this.now());
      if (done) return done;
    }
    const listing = await this.activeListing(workspaceId, draft.propertyId);
    const provider = listing.pmsProvider;
    for (const write of createWrites(draft)) assertSupported(provider, write);
    if (provider && CREATE_REQUIRES_TOTAL_PRICE.includes(provider as never) && draft.totalPrice === undefined) {
      throw validationFailed({ 'financials.totalPrice': `is required on listings managed by ${provider}` });
    }
    // Refused before anything is sent to a PMS: closed on the calendar, or booked here.
    const calendar = await this.availableStay(workspaceId, listing.id, draft.checkIn, draft.checkOut, '', idempotencyKey);
    const price = priceStay({ nights: calendar, cleaningFee: listing.cleaningFee, taxRate: listing.taxRate });
    const now = this.now();
    let record = newReservationRecord({
      id: newId('res'),
      workspaceId,
      propertyId: listing.id,
      roomTypeId: draft.roomTypeId,
      status: 'CONFIRMED',
      source: draft.source,
      confirmationCode: newConfirmationCode(),
      checkIn: draft.checkIn,
      checkOut: draft.checkOut,
      primaryGuest: { ...draft.primaryGuest, language: '' },
      occupancy: draft.occupancy,
      financials: financialsFor(price, draft.currency || listing.currency, draft.totalPrice),
      bookedAt: now,
      updatedAt: now,
      notes: draft.notes,
      customFields: draft.customFields,
      platform: draft.platform,
      unitId: draft.unitId,
      tentativeHold: draft.tentativeHold,
      groupId: draft.groupId,
      idempotencyKey,
    });
    // One writer per night on a PMS listing too: the nights are held (pending) before the relay,
    // so of concurrent creates of the same nights only one reaches the PMS.
    const pending = provider ? await holdPending(this.deps, record, this.now, idempotencyKey) : null;
    try {
      if (provider) {
        const relayed = await this.deps.relay.relay({
          workspaceId,
          provider,
          operation: 'reservation.create',
          listingExternalId: listing.pmsExternalId,
          entityExternalId: '',
          payload: pmsPayload(record),
          idempotencyKey: idempotencyKey ? `${workspaceId}:${idempotencyKey}` : `${record.id}:create`,
        });
        record = { ...record, pmsProvider: provider, pmsExternalId: relayed.entityExternalId };
      }
      return await this.store(workspaceId, record, key, provider ? 'pms' : 'exclusive', now);
    } finally {
      // After the store, nothing is pending any more; after a refusal or failure, the nights come free.
      await pending?.release();
    }
  }

  /** Stores the new reservation with its nights, its key and its event in one transaction. */
  private async store(workspaceId: string, first: ReservationRecord, key: RequestKey | null, mode: 'pms' | 'exclusive', now: Date): Promise<ReservationRecord> {
    const idempotencyKey = key?.key ?? '';
    let record = first;
    // Once a PMS has accepted the booking it exists there: it is stored even over a local one (flagged).
    for (let attempt = 1; ; attempt++) {
      try {
        const stored = await this.deps.store.transaction(async (tx) => {
          // A new id (made for this create): it holds no stored nights yet (its pending hold becomes them).
          const overlaps = await holdNights(this.deps.nights, record, mode, tx, { created: true, now: this.now() });
          if (idempotencyKey) await this.deps.reservations.releaseExpiredKey(workspaceId, idempotencyKey, now, tx);
          const inserted = await this.deps.reservations.insertRaw({ ...record, conflictsWith: overlaps }, tx);
          await this.deps.applied.remember(key, inserted.id, tx);
          await flagOverlaps(this.deps, workspaceId, inserted.id, overlaps, now, tx);
          await recordReservationEvent(this.deps.outbox, tx, 'created', inserted, now);
          return inserted;
        });
        this.publishSoon();
        return stored;
      } catch (err) {
        if (isNightTaken(err) && attempt < NIGHT_ATTEMPTS) continue; // re-read: names the holder
        if (isDuplicateOf(err, 'confirmationCode') && attempt < CODE_ATTEMPTS) {
          record = { ...record, confirmationCode: newConfirmationCode() };
          continue;
        }
        if (isDuplicateOf(err, 'idempotencyKey')) {
          // A concurrent request with the same key committed first: this is its reservation.
          const firstStored = await this.deps.reservations.findByIdempotencyKey(workspaceId, idempotencyKey, this.now());
          if (firstStored) return firstStored;
        }
        if (isDuplicateOf(err, 'pmsExternalId')) {
          // The PMS's next sync stored this reservation first: it is the same booking.
          const synced = await this.deps.reservations.findByPmsId(workspaceId, record.pmsProvider, record.pmsExternalId);
          if (synced) return synced;
        }
        if (err instanceof DuplicateKeyError)
          throw new AppError('conflict', 'A reservation with this id or confirmation code already exists in this workspace.');
        throw err;
      }
    }
  }
}

/** What a PMS is sent on create: the booking, without this service's own ids and codes. */
function pmsPayload(r: ReservationRecord) {
  return {
    checkIn: r.checkIn,
    checkOut: r.checkOut,
    status: r.status,
    source: r.source,
    guest: r.primaryGuest,
    occupancy: r.occupancy,
    totalPrice: r.financials.totalPrice,
    currency: r.financials.currency,
    ...(r.notes.host || r.notes.guest ? { notes: r.notes } : {}),
  };
}
