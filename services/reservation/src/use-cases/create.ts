// Creating a reservation: validated, refused by the capability matrix and the booking rule
// before anything is sent to a PMS; on a PMS listing its nights are held pending while it is
// relayed; then stored with its nights, its Idempotency-Key and its event in one transaction.
import type { WorkspaceSettings } from '@vrp/api-model';
import { AppError } from '@vrp/platform/errors';
import { DuplicateKeyError } from '@vrp/platform/store';
import { newId } from '@vrp/platform/ids';
import { type RequestKey } from '@vrp/platform/applied-requests';
import { newConfirmationCode } from '../domain/confirmation-code';
import type { WriteKind } from '../domain/booking';
import { financialsFor, priceStay, type NightPrice } from '../domain/pricing';
import { newReservationRecord, type ReservationRecord } from '../domain/reservation';
import { assertCreateSupported, parseNewReservation, type NewReservation, type NewReservationInput } from '../domain/writes';
import type { ListingInfo } from '../ports/listings';
import { recordReservationEvent } from '../publishers/reservation-events';
import { activeStay, availableStay } from './checks';
import { type ReservationDeps } from './deps';
import { flagOverlaps, holdNights, holdPending, retryWhileNightTaken } from './hold-nights';

/** Attempts at a fresh confirmation code when one collides within the workspace. */
const CODE_ATTEMPTS = 5;

export interface CreateStayInput {
  workspaceId: string;
  stay: NewReservationInput;
  /** The request's Idempotency-Key with its body's fingerprint; null without a key. */
  key: RequestKey | null;
}

/**
 * Creates a reservation. A retry of a create that already committed (even one whose reply was
 * lost) answers it: the key is stored in applied_requests with the reservation, in its
 * transaction, and checked before anything is sent to a PMS; the same key with another body is
 * idempotency_conflict.
 */
export function createReservation(deps: ReservationDeps, input: CreateStayInput): Promise<ReservationRecord> {
  return deps.applied.once(
    input.key,
    () => createOnce(deps, input),
    (id) => deps.reservations.get(input.workspaceId, id),
  );
}

const keyOf = (key: RequestKey | null) => key?.key ?? '';

/** Decides the create (400, 404, 403, 422, 409 in that order), then writes it. */
async function createOnce(deps: ReservationDeps, input: CreateStayInput): Promise<ReservationRecord> {
  const { workspaceId } = input;
  const draft = parseNewReservation(input.stay);
  // Creates stored before applied_requests existed keep their key on the reservation only.
  const earlier = keyOf(input.key) ? await deps.reservations.findByIdempotencyKey(workspaceId, keyOf(input.key), deps.clock()) : null;
  if (earlier) return earlier;
  const [{ listing, nights }, settings] = await Promise.all([activeStay(deps, workspaceId, draft.propertyId, draft), deps.settings.of(workspaceId)]);
  assertCreateSupported(listing.pmsProvider, draft);
  const stay = { workspaceId, listingId: listing.id, checkIn: draft.checkIn, checkOut: draft.checkOut, key: keyOf(input.key), settings };
  const calendar = await availableStay(deps, stay, nights);
  const record = newStay(workspaceId, listing, draft, calendar, keyOf(input.key), deps.clock());
  return listing.pmsProvider
    ? createOnPms(deps, listing, record, input.key, settings)
    : storeNewStay(deps, { record, key: input.key, kind: 'local', settings });
}

/** The record of a new stay on `listing`, priced from its calendar (or at the caller's total). */
function newStay(
  workspaceId: string,
  listing: ListingInfo,
  draft: NewReservation,
  calendar: NightPrice[],
  idempotencyKey: string,
  now: Date,
): ReservationRecord {
  const price = priceStay({ nights: calendar, cleaningFee: listing.cleaningFee, taxRate: listing.taxRate });
  return newReservationRecord({
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
}

/**
 * A create on a PMS listing: its nights are held pending first (of concurrent creates of the
 * same nights only one reaches the PMS), then it is relayed, and stored once the PMS accepted
 * it: from then on it is the PMS's booking, stored even over a local stay (flagged).
 */
async function createOnPms(
  deps: ReservationDeps,
  listing: ListingInfo,
  record: ReservationRecord,
  key: RequestKey | null,
  settings: WorkspaceSettings,
): Promise<ReservationRecord> {
  const idempotencyKey = keyOf(key);
  const pending = await holdPending(deps, record, idempotencyKey, settings);
  try {
    const relayed = await deps.relay.relay({
      workspaceId: record.workspaceId,
      provider: listing.pmsProvider,
      operation: 'reservation.create',
      listingExternalId: listing.pmsExternalId,
      entityExternalId: '',
      payload: pmsPayload(record),
      idempotencyKey: idempotencyKey ? `${record.workspaceId}:${idempotencyKey}` : `${record.id}:create`,
    });
    const accepted = { ...record, pmsProvider: listing.pmsProvider, pmsExternalId: relayed.entityExternalId };
    return await storeNewStay(deps, { record: accepted, key, kind: 'pms', settings });
  } finally {
    // After the store, nothing is pending any more; after a refusal or failure, the nights come free.
    await pending.release();
  }
}

/** A new stay to store: who writes it (a local write, or a PMS that accepted it), its key, the workspace's settings. */
interface NewStayWrite {
  record: ReservationRecord;
  key: RequestKey | null;
  kind: WriteKind;
  settings: WorkspaceSettings;
}

/**
 * Stores a new stay (retried while a night was taken meanwhile, with a fresh confirmation code
 * when one collides); a duplicate that is this same create stored first answers it.
 */
async function storeNewStay(deps: ReservationDeps, write: NewStayWrite): Promise<ReservationRecord> {
  try {
    return await withFreshCodeOnCollision(write.record, (record) => retryWhileNightTaken(() => insertStay(deps, { ...write, record })));
  } catch (err) {
    if (!(err instanceof DuplicateKeyError)) throw err;
    const first = await sameCreateStoredFirst(deps, write.record, err);
    if (first) return first;
    throw new AppError('conflict', 'A reservation with this id or confirmation code already exists in this workspace.');
  }
}

const isDuplicateOf = (err: unknown, field: string) => err instanceof DuplicateKeyError && field in err.keyPattern;

/** Runs `write` again with a new confirmation code while the code collides within the workspace (up to CODE_ATTEMPTS). */
async function withFreshCodeOnCollision(record: ReservationRecord, write: (r: ReservationRecord) => Promise<ReservationRecord>): Promise<ReservationRecord> {
  for (let attempt = 1, r = record; ; attempt++, r = { ...r, confirmationCode: newConfirmationCode() }) {
    try {
      return await write(r);
    } catch (err) {
      if (!(isDuplicateOf(err, 'confirmationCode') && attempt < CODE_ATTEMPTS)) throw err;
    }
  }
}

/** The stay a duplicate key names when it is this same create, stored first: by a concurrent request with the key, or by the PMS's sync. */
async function sameCreateStoredFirst(deps: ReservationDeps, record: ReservationRecord, err: DuplicateKeyError): Promise<ReservationRecord | null> {
  if (isDuplicateOf(err, 'idempotencyKey')) return deps.reservations.findByIdempotencyKey(record.workspaceId, record.idempotencyKey, deps.clock());
  if (isDuplicateOf(err, 'pmsExternalId')) return deps.reservations.findByPmsId(record.workspaceId, record.pmsProvider, record.pmsExternalId);
  return null;
}

/** One transaction: the stay's nights (overlaps flagged for a PMS booking), the stay, its key, its event. */
async function insertStay(deps: ReservationDeps, { record, key, kind, settings }: NewStayWrite): Promise<ReservationRecord> {
  const now = record.bookedAt;
  const stored = await deps.store.transaction(async (tx) => {
    // A new id (made for this create): it holds no stored nights yet (its pending hold becomes them).
    const overlaps = await holdNights(deps.nights, record, kind, settings, tx, { created: true, now: deps.clock() });
    if (record.idempotencyKey) await deps.reservations.releaseExpiredKey(record.workspaceId, record.idempotencyKey, now, tx);
    const inserted = await deps.reservations.insertRaw({ ...record, conflictsWith: overlaps }, tx);
    await deps.applied.remember(key, inserted.id, tx);
    await flagOverlaps(deps, record.workspaceId, inserted.id, overlaps, now, tx);
    await recordReservationEvent(deps.outbox, tx, 'created', inserted, now);
    return inserted;
  });
  deps.outbox.flushSoon();
  return stored;
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
