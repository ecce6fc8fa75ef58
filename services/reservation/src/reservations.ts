// Reservation use cases. Order of decisions on every request: the input is valid (400), the
// reservation and listing exist in the workspace (404), the listing is active (403), the PMS
// can perform the write (422, decided from the capability matrix before anything is sent).
// A write on a PMS listing is relayed first and stored only after the PMS accepted it, so a
// PMS failure leaves nothing half written; the stored change and its event share one
// transaction (outbox), so no event is lost.
import type { ListingActivityCache } from '@vrp/activity-cache';
import type { pmsSync, ReservationSyncPayload } from '@vrp/contracts';
import { assertSupported, CREATE_REQUIRES_TOTAL_PRICE } from '@vrp/pms-matrix';
import {
  acquireLease,
  AppError,
  datesUnavailable,
  DuplicateKeyError,
  listingInactive,
  newId,
  PermanentError,
  preconditionFailed,
  releaseLease,
  TransientError,
  validationFailed,
  type AppliedRequests,
  type DocumentStore,
  type Lease,
  type Logger,
  type Outbox,
  type PageWindow,
  type RequestKey,
} from '@vrp/platform';
import { dateConflicts, holdsNights, stayNights } from './domain/occupancy';
import { newConfirmationCode } from './domain/confirmation-code';
import { financialsFor, money, priceStay, type NightPrice, type StayPrice } from './domain/pricing';
import {
  addDays,
  isIsoDate,
  isOneOf,
  nightsBetween,
  parseReservationFilters,
  RESERVATION_SOURCES,
  todayUtc,
  WRITABLE_STATUSES,
  type ReservationQueryInput,
  type ReservationRecord,
} from './domain/reservation';
import {
  applyPatch,
  createWrites,
  MAX_NIGHTS,
  parseNewReservation,
  parsePatch,
  patchChanges,
  patchWrites,
  relayOperation,
  type NewReservationInput,
  type ReservationPatchInput,
} from './domain/writes';
import { recordReservationEvent, type ReservationChange } from './events/reservation-events';
import type { ListingDirectory, ListingInfo } from './ports/listings';
import type { PmsRelay } from './ports/pms-relay';
import type { NightStore } from './store/night-store';
import type { ReservationStore } from './store/reservation-store';
import { endConflicts, flagOverlaps, holdNights, isNightTaken, NIGHT_ATTEMPTS } from './use-cases/hold-nights';

/** Attempts at a fresh confirmation code when one collides within the workspace. */
const CODE_ATTEMPTS = 5;
/** Read-decide-write rounds of a PATCH while other changes of the same reservation commit first. */
const VERSION_ATTEMPTS = 8;

export interface ReservationDeps {
  store: DocumentStore;
  reservations: ReservationStore;
  nights: NightStore;
  outbox: Outbox;
  listings: ListingDirectory;
  relay: PmsRelay;
  activity: ListingActivityCache;
  logger: Logger;
  /** Idempotency-Keys stored with the writes (service-side idempotency). */
  applied: AppliedRequests;
  clock?: () => Date;
}

export interface QuoteResult {
  propertyId: string;
  checkIn: string;
  checkOut: string;
  nights: number;
  currency: string;
  price: StayPrice;
}

const isDuplicateOf = (err: unknown, field: string) => err instanceof DuplicateKeyError && field in err.keyPattern;

export class Reservations {
  /** The service's clock: POST_STAY is decided against it. */
  readonly now: () => Date;

  constructor(private readonly deps: ReservationDeps) {
    this.now = deps.clock ?? (() => new Date());
  }

  async list(workspaceId: string, query: ReservationQueryInput, window: PageWindow) {
    const filters = parseReservationFilters(query);
    if (filters.propertyId) {
      // Spec 7: not_found first. The listing service decides existence (an unknown id, another
      // workspace's or a deleted listing is 404); a channel id names its listing here too; then
      // filtering on an inactive listing is a 403.
      filters.propertyId = (await this.deps.listings.resolve(workspaceId, filters.propertyId)).id;
      this.deps.activity.assertActive(workspaceId, [filters.propertyId]);
    }
    const scope = { today: todayUtc(this.now()), excludedPropertyIds: this.deps.activity.inactiveIds(workspaceId) };
    return this.deps.reservations.page(workspaceId, filters, scope, window);
  }

  /** 404 first (the reservation is not in the workspace), then 403 (its listing is inactive). */
  async get(workspaceId: string, id: string): Promise<ReservationRecord> {
    const found = await this.deps.reservations.get(workspaceId, id);
    this.deps.activity.assertActive(workspaceId, [found.propertyId]);
    return found;
  }

  /**
   * A retry of a create that already committed (even one whose reply was lost) answers it: the
   * key is stored in applied_requests with the reservation, in its transaction, and checked
   * before anything is sent to a PMS; the same key with another body is idempotency_conflict.
   */
  create(workspaceId: string, input: NewReservationInput, key: RequestKey | null): Promise<ReservationRecord> {
    return this.deps.applied.once(key, () => this.createOnce(workspaceId, input, key), (id) => this.deps.reservations.get(workspaceId, id));
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
    const calendar = await this.availableStay(workspaceId, listing.id, draft.checkIn, draft.checkOut);
    const price = priceStay({ nights: calendar, cleaningFee: listing.cleaningFee, taxRate: listing.taxRate });
    const now = this.now();
    let record: ReservationRecord = {
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
      guestId: '',
      occupancy: draft.occupancy,
      financials: financialsFor(price, draft.currency || listing.currency, draft.totalPrice),
      bookedAt: now,
      updatedAt: now,
      notes: draft.notes,
      customFields: draft.customFields,
      checkInTime: '',
      checkOutTime: '',
      platform: draft.platform,
      unitId: draft.unitId,
      tentativeHold: draft.tentativeHold,
      groupId: draft.groupId,
      pmsProvider: '',
      pmsExternalId: '',
      pmsUpdatedAt: null,
      version: 1,
      conflictsWith: [],
      idempotencyKey,
    };
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
    // Once a PMS has accepted the booking it exists there: it is stored even over a local one (flagged).
    const mode = provider ? 'pms' : 'exclusive';
    for (let attempt = 1; ; attempt++) {
      try {
        const stored = await this.deps.store.transaction(async (tx) => {
          const overlaps = await holdNights(this.deps.nights, record, mode, tx);
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
          const first = await this.deps.reservations.findByIdempotencyKey(workspaceId, idempotencyKey, this.now());
          if (first) return first;
        }
        if (isDuplicateOf(err, 'pmsExternalId')) {
          // The PMS's next sync stored this reservation first: it is the same booking.
          const synced = await this.deps.reservations.findByPmsId(workspaceId, record.pmsProvider, record.pmsExternalId);
          if (synced) return synced;
        }
        if (err instanceof DuplicateKeyError) throw new AppError('conflict', 'A reservation with this id or confirmation code already exists in this workspace.');
        throw err;
      }
    }
  }

  /**
   * Changes only what the patch names, against the reservation as it is when the write
   * commits: the decision is re-made on a fresh read whenever another change committed first,
   * so concurrent PATCHes of different fields all survive. With `expectedVersion` (If-Match) a
   * changed reservation is 412 instead. A key already applied answers the reservation as it is.
   */
  update(workspaceId: string, id: string, input: ReservationPatchInput, key: RequestKey | null, expectedVersion = 0): Promise<ReservationRecord> {
    return this.deps.applied.once(key, () => this.updateOnce(workspaceId, id, input, key, expectedVersion), (done) => this.deps.reservations.get(workspaceId, done));
  }

  private async updateOnce(workspaceId: string, id: string, input: ReservationPatchInput, key: RequestKey | null, expectedVersion: number): Promise<ReservationRecord> {
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
      if (nightsChange && holdsNights(next)) await this.availableStay(workspaceId, target.id, next.checkIn, next.checkOut, id);
      if (provider) {
        // Under the lease: a concurrent request with the same key that committed meanwhile is
        // this one's outcome, and its change must not reach the PMS a second time.
        if (key && (await this.deps.applied.lookup(key)) !== null) return this.deps.reservations.get(workspaceId, id);
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
      try {
        const stored = await this.deps.store.transaction(async (tx) => {
          let replaced = await this.deps.reservations.replaceIfVersion(next, current.version, tx, lease);
          if (!replaced) return null;
          if (nightsChange) await holdNights(this.deps.nights, replaced, provider ? 'pms' : 'exclusive', tx);
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
      }
      if (attempt >= VERSION_ATTEMPTS) {
        throw new AppError('conflict', `Reservation '${id}' is being changed by many requests at once; nothing was changed by this one.`, {}, 'Retry the request.');
      }
    }
  }

  /** Cancelling a cancelled reservation changes nothing and answers it as it is. */
  cancel(workspaceId: string, id: string, key: RequestKey | null, expectedVersion = 0): Promise<ReservationRecord> {
    return this.update(workspaceId, id, { status: 'CANCELLED', customFields: {} }, key, expectedVersion);
  }

  async quote(workspaceId: string, propertyId: string, checkIn: string, checkOut: string): Promise<QuoteResult> {
    const problems: Record<string, string> = {};
    if (!propertyId) problems.propertyId = 'is required';
    for (const [field, value] of [['checkIn', checkIn], ['checkOut', checkOut]] as const) {
      if (!value) problems[field] = 'is required (YYYY-MM-DD)';
      else if (!isIsoDate(value)) problems[field] = 'must be a real calendar date as YYYY-MM-DD';
    }
    if (!problems.checkIn && !problems.checkOut) {
      const nights = nightsBetween(checkIn, checkOut);
      if (nights < 1) problems.checkOut = 'must be after checkIn';
      else if (nights > MAX_NIGHTS) problems.checkOut = `must be at most ${MAX_NIGHTS} nights after checkIn`;
    }
    if (Object.keys(problems).length > 0) throw validationFailed(problems);
    const listing = await this.activeListing(workspaceId, propertyId);
    assertSupported(listing.pmsProvider, 'reservation.quote');
    // Booked or closed nights are refused as a create would refuse them.
    const calendar = await this.availableStay(workspaceId, listing.id, checkIn, checkOut);
    const price = priceStay({ nights: calendar, cleaningFee: listing.cleaningFee, taxRate: listing.taxRate });
    return { propertyId: listing.id, checkIn, checkOut, nights: nightsBetween(checkIn, checkOut), currency: listing.currency, price };
  }

  /** The nights of a listing held in from..to (inclusive), for the listing's calendar. */
  async bookedNights(workspaceId: string, listingId: string, from: string, to: string) {
    const problems: Record<string, string> = {};
    if (!listingId) problems.listingId = 'is required';
    if (!isIsoDate(from)) problems.from = 'must be a real calendar date as YYYY-MM-DD';
    if (!isIsoDate(to)) problems.to = 'must be a real calendar date as YYYY-MM-DD';
    else if (!problems.from && nightsBetween(from, to) > MAX_NIGHTS + 1) problems.to = `the range may span at most ${MAX_NIGHTS + 1} days`;
    if (Object.keys(problems).length > 0) throw validationFailed(problems);
    return this.deps.nights.range(workspaceId, listingId, from, to);
  }

  /**
   * Applies one reservation change read from a PMS (pms.sync.v1). Idempotent: matched on
   * workspace + PMS + the PMS's id, and a change not newer than the stored one changes nothing.
   * Applies on inactive listings too (their data keeps syncing); the event is published like an
   * API change, and webhook delivery decides about inactive listings.
   */
  async applySync(change: pmsSync.PmsSyncChange): Promise<'applied' | 'ignored'> {
    if (change.entity !== 'reservation') return 'ignored';
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
      throw new PermanentError('listing_deleted', `${change.provider} reservation ${p.externalId} is on listing ${change.provider}/${listingExternalId}, which workspace ${ws} deleted; it is applied when the listing is imported again`);
    }
    // The listing's own import may not be applied yet (another consumer group): retried in place.
    if (!listing) throw new TransientError('listing_not_imported', `pms sync: no listing of ${change.provider} with id '${listingExternalId}' in workspace ${ws} yet`);
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
            { totalPrice: total, currency: p.currency ?? listing.currency, paymentStatus: existing?.financials.paymentStatus ?? 'UNPAID', breakdown: { basePrice: total, cleaningFee: 0, fees: [], taxes: [], discounts: [] } },
      updatedAt: now,
      pmsUpdatedAt: changedAt,
    } satisfies Partial<ReservationRecord>;
    let kind: ReservationChange;
    let next: ReservationRecord;
    if (existing) {
      next = { ...existing, ...synced, version: existing.version + 1 };
      kind = next.status === 'CANCELLED' && existing.status !== 'CANCELLED' ? 'cancelled' : 'updated';
    } else {
      next = {
        id: newId('res'),
        workspaceId: ws,
        roomTypeId: '',
        confirmationCode: newConfirmationCode(),
        guestId: '',
        bookedAt: now,
        notes: { host: '', guest: '' },
        customFields: {},
        checkInTime: '',
        checkOutTime: '',
        platform: '',
        unitId: '',
        tentativeHold: false,
        groupId: '',
        pmsProvider: change.provider,
        pmsExternalId: p.externalId,
        version: 1,
        conflictsWith: [],
        idempotencyKey: '',
        ...synced,
      };
      kind = 'created';
    }
    // The PMS is the source of truth: its booking always applies, overlaps are flagged on both.
    // A conflict (another change applied meanwhile, or a night taken concurrently) throws: the
    // bus redelivers and this re-reads.
    await this.deps.store.transaction(async (tx) => {
      const overlaps = await holdNights(this.deps.nights, next, 'pms', tx);
      // Overlaps flagged before that ended (this booking cancelled or moved, or the other side
      // gone) are cleared on the other side; those that still hold are kept on both.
      const still = await endConflicts(this.deps, next, (existing?.conflictsWith ?? []).filter((id) => !overlaps.includes(id)), now, tx);
      const written = { ...next, conflictsWith: [...new Set([...overlaps, ...still])].sort() };
      const stored = existing ? await this.deps.reservations.replaceIfVersion(written, existing.version, tx) : await this.deps.reservations.insertRaw(written, tx);
      if (!stored) throw new AppError('conflict', `Reservation '${next.id}' changed while a PMS change was applied; it is applied again.`);
      await flagOverlaps(this.deps, ws, stored.id, overlaps, now, tx);
      await recordReservationEvent(this.deps.outbox, tx, kind, stored, now);
    });
    this.publishSoon();
    return 'applied';
  }

  /** The listing by id or channel id: 404 when it is not in the workspace, 403 when inactive. */
  private async activeListing(workspaceId: string, id: string): Promise<ListingInfo> {
    const listing = await this.deps.listings.resolve(workspaceId, id);
    if (!listing.active) throw listingInactive([{ id: listing.id, name: listing.name }]);
    return listing;
  }

  /**
   * The calendar nights of a stay, after checking that none is closed on the listing's calendar
   * or booked by a reservation other than `self`: 409 dates_unavailable naming every one.
   * Bookings are checked again, atomically, when the write commits (holdNights).
   */
  private async availableStay(workspaceId: string, listingId: string, checkIn: string, checkOut: string, self = ''): Promise<NightPrice[]> {
    const [calendar, booked] = await Promise.all([
      this.deps.listings.nights(workspaceId, listingId, checkIn, addDays(checkOut, -1)),
      this.deps.nights.holders(workspaceId, listingId, stayNights(checkIn, checkOut)),
    ]);
    const conflicts = dateConflicts(stayNights(checkIn, checkOut), calendar, booked, self);
    if (conflicts.length > 0) throw datesUnavailable(conflicts);
    return calendar;
  }

  /** Publish right after the commit; the outbox relay's timer retries if this fails. */
  private publishSoon(): void {
    void this.deps.outbox.flush().catch(() => undefined);
  }
}

/** A sync change's reservation, checked: every field this service needs is there and readable. */
type SyncedReservation = ReservationSyncPayload & {
  status: (typeof WRITABLE_STATUSES)[number];
  guest: NonNullable<ReservationSyncPayload['guest']>;
  occupancy: NonNullable<ReservationSyncPayload['occupancy']>;
  updatedAt: Date;
};

/** The reservation of a sync change; a payload no retry can fix is a permanent failure (dead letter). */
function parseSyncPayload(change: pmsSync.PmsSyncChange): SyncedReservation {
  const p = change.reservation;
  const problems: string[] = [];
  if (!p) problems.push('no reservation in the change');
  else {
    if (!p.externalId) problems.push('externalId is missing');
    if (!isIsoDate(p.checkIn) || !isIsoDate(p.checkOut)) problems.push('checkIn/checkOut are not dates');
    if (!isOneOf(WRITABLE_STATUSES, p.status)) problems.push(`status '${String(p.status)}' is unknown`);
    if (!p.updatedAt || Number.isNaN(p.updatedAt.getTime())) problems.push('updatedAt is not a time');
    if (!p.guest) problems.push('guest is missing');
    if (!p.occupancy) problems.push('occupancy is missing');
  }
  if (problems.length || !p) throw new PermanentError('malformed_payload', `pms sync change ${change.changeId} (${change.provider} reservation): ${problems.join('; ')}`);
  return p as SyncedReservation;
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
