// Changing and cancelling a reservation (PATCH, cancel): decided on a fresh read at each attempt,
// relayed to the PMS under the reservation's write lease (new nights held pending meanwhile),
// stored only once the PMS accepted it.
import type { WorkspaceSettings } from '@vrp/api-model';
import { acquireLease, releaseLease, type Lease } from '@vrp/platform/store';
import { AppError, preconditionFailed } from '@vrp/platform/errors';
import { type RequestKey } from '@vrp/platform/applied-requests';
import { changesNights, holdsNights } from '../domain/booking';
import type { ReservationRecord } from '../domain/reservation';
import {
  applyPatch,
  assertChangeSupported,
  parsePatch,
  patchChanges,
  patchWrites,
  relayOperation,
  type PatchChanges,
  type ReservationPatchInput,
} from '../domain/writes';
import type { ListingInfo } from '../ports/listings';
import { recordReservationEvent, type ReservationChange } from '../publishers/reservation-events';
import { activeListing, availableStay } from './checks';
import { type ReservationDeps } from './deps';
import { endConflicts, holdNights, holdPending, retryWhileNightTaken } from './hold-nights';

/** Read-decide-write attempts of a PATCH while other changes of the same reservation commit first. */
const VERSION_ATTEMPTS = 8;

export interface ChangeStayInput {
  workspaceId: string;
  id: string;
  patch: ReservationPatchInput;
  /** The request's Idempotency-Key with its body's fingerprint; null without a key. */
  key: RequestKey | null;
  /** If-Match: the version the caller read (0: none, the change applies to the current version). */
  expectedVersion: number;
}

/**
 * Changes only what the patch names, against the reservation as it is when the write commits:
 * the decision is re-made on a fresh read whenever another change committed first, so
 * concurrent PATCHes of different fields all survive. With `expectedVersion` (If-Match) a
 * changed reservation is 412 instead. A key already applied answers the reservation as it is.
 */
export function changeReservation(deps: ReservationDeps, input: ChangeStayInput): Promise<ReservationRecord> {
  return deps.applied.once(
    input.key,
    () => changeUnderLease(deps, input),
    (done) => deps.reservations.get(input.workspaceId, done),
  );
}

/** Cancelling a cancelled reservation changes nothing and answers it as it is. */
export function cancelReservation(deps: ReservationDeps, input: Omit<ChangeStayInput, 'patch'>): Promise<ReservationRecord> {
  return changeReservation(deps, { ...input, patch: { status: 'CANCELLED', customFields: {} } });
}

/**
 * A PMS stay's changes go to the PMS before they are stored: one at a time per reservation (the
 * write lease), so the PMS receives them in the order they are stored here.
 */
async function changeUnderLease(deps: ReservationDeps, input: ChangeStayInput): Promise<ReservationRecord> {
  const first = await deps.reservations.get(input.workspaceId, input.id);
  const where = { workspaceId: input.workspaceId, _id: input.id };
  const lease = first.pmsProvider ? await acquireLease(deps.reservations.reservations, where) : null;
  try {
    return await changeWithRetries(deps, input, lease);
  } finally {
    // Released by the write itself when one committed; otherwise (no change, refusal, failure) here.
    if (lease) await releaseLease(deps.reservations.reservations, where, lease).catch(() => undefined);
  }
}

/** Another change of the reservation committed between this attempt's read and its write. */
const VERSION_MOVED = Symbol('version moved');

async function changeWithRetries(deps: ReservationDeps, input: ChangeStayInput, lease: Lease | null): Promise<ReservationRecord> {
  for (let attempt = 1; attempt <= VERSION_ATTEMPTS; attempt++) {
    const outcome = await retryWhileNightTaken(() => changeOnce(deps, input, lease));
    if (outcome !== VERSION_MOVED) return outcome;
    if (input.expectedVersion) {
      const latest = await deps.reservations.get(input.workspaceId, input.id);
      throw preconditionFailed('Reservation', input.id, input.expectedVersion, latest.version);
    }
  }
  throw new AppError(
    'conflict',
    `Reservation '${input.id}' is being changed by many requests at once; nothing was changed by this one.`,
    {},
    'Retry the request.',
  );
}

/** A change decided on a fresh read: what it changes and the record it makes. */
interface DecidedChange {
  current: ReservationRecord;
  next: ReservationRecord;
  listing: ListingInfo;
  changes: PatchChanges;
  writes: ReturnType<typeof patchWrites>;
  /** The workspace's settings, which the booking rule reads. */
  settings: WorkspaceSettings;
  /** The change makes the stay hold other nights (and it still holds some). */
  newNights: boolean;
  nightsChange: boolean;
}

/** Reads the reservation and decides the change (412, 400, 404, 403, 422 in that order); the reservation as it is when nothing changes. */
async function decideChange(deps: ReservationDeps, input: ChangeStayInput): Promise<DecidedChange | ReservationRecord> {
  const current = await deps.reservations.get(input.workspaceId, input.id);
  if (input.expectedVersion && current.version !== input.expectedVersion) {
    throw preconditionFailed('Reservation', input.id, input.expectedVersion, current.version);
  }
  const patch = parsePatch(input.patch, current);
  const [listing, settings] = await Promise.all([activeListing(deps, input.workspaceId, current.propertyId), deps.settings.of(input.workspaceId)]);
  const target = patch.propertyId ? await activeListing(deps, input.workspaceId, patch.propertyId) : listing;
  const changes = patchChanges(patch, current, target.id);
  const writes = patchWrites(patch, changes);
  assertChangeSupported(listing.pmsProvider, target.pmsProvider, writes, changes);
  if (writes.length === 0) return current; // nothing changes: no relay, no event
  const next = { ...applyPatch(current, patch, target.id, deps.clock()), version: current.version + 1 };
  const nightsChange = changesNights(current, next);
  return { current, next, listing, settings, changes, writes, nightsChange, newNights: nightsChange && holdsNights(next) };
}

/** One attempt: decide on a fresh read, check and hold new nights, relay to the PMS, store. */
async function changeOnce(deps: ReservationDeps, input: ChangeStayInput, lease: Lease | null): Promise<ReservationRecord | typeof VERSION_MOVED> {
  const decided = await decideChange(deps, input);
  if (!('next' in decided)) return decided;
  const { next, listing, settings, newNights } = decided;
  const key = input.key?.key ?? '';
  const provider = listing.pmsProvider;
  // Nights it does not hold yet must be open on the calendar and free (un-cancel, new dates, move).
  if (newNights)
    await availableStay(deps, {
      workspaceId: input.workspaceId,
      listingId: next.propertyId,
      checkIn: next.checkIn,
      checkOut: next.checkOut,
      self: input.id,
      key,
      settings,
    });
  // New nights of a PMS stay are held (pending) before the relay: no other write takes them
  // while the PMS answers; freed below unless the stored change made them the stay's.
  const pending = provider && newNights ? await holdPending(deps, next, key, settings) : null;
  try {
    if (provider) {
      // Under the lease: a concurrent request with the same key that committed meanwhile is
      // this one's outcome, and its change must not reach the PMS a second time.
      if (input.key && (await deps.applied.lookup(input.key)) !== null) return await deps.reservations.get(input.workspaceId, input.id);
      await relayChange(deps, input, decided);
    }
    return (await storeChange(deps, decided, input.key, lease)) ?? VERSION_MOVED;
  } finally {
    await pending?.release();
  }
}

/** Sends the change to the stay's PMS: a pure cancel as a cancel, anything else as a modify. */
async function relayChange(deps: ReservationDeps, input: ChangeStayInput, { current, listing, writes }: DecidedChange): Promise<void> {
  const operation = relayOperation(writes);
  const key = input.key?.key ?? '';
  await deps.relay.relay({
    workspaceId: input.workspaceId,
    provider: listing.pmsProvider,
    operation,
    listingExternalId: listing.pmsExternalId,
    entityExternalId: current.pmsExternalId,
    payload: operation === 'reservation.cancel' ? { status: 'CANCELLED' } : { ...input.patch, propertyId: undefined },
    idempotencyKey: key ? `${input.workspaceId}:${key}` : `${input.id}:${operation}:v${current.version}`,
  });
}

/**
 * One transaction: the new version (null when another change committed since the read), its
 * nights, the end of conflicts the change ends, its key and its event.
 */
async function storeChange(deps: ReservationDeps, decided: DecidedChange, key: RequestKey | null, lease: Lease | null): Promise<ReservationRecord | null> {
  const { current, next, listing, settings, changes, nightsChange } = decided;
  const now = next.updatedAt;
  const change: ReservationChange = changes.status && next.status === 'CANCELLED' ? 'cancelled' : 'updated';
  const stored = await deps.store.transaction(async (tx) => {
    let replaced = await deps.reservations.replaceIfVersion(next, current.version, tx, lease);
    if (!replaced) return null;
    if (nightsChange) await holdNights(deps.nights, replaced, listing.pmsProvider ? 'pms' : 'local', settings, tx, { now: deps.clock() });
    // A cancel, new dates or a move can end an overlap with a PMS booking: both sides lose the flag.
    if (nightsChange && replaced.conflictsWith.length > 0) {
      const still = await endConflicts(deps, replaced, settings, replaced.conflictsWith, now, tx);
      if (still.length !== replaced.conflictsWith.length) replaced = await deps.reservations.setConflicts(replaced, still, tx);
    }
    await deps.applied.remember(key, replaced.id, tx);
    await recordReservationEvent(deps.outbox, tx, change, replaced, now);
    return replaced;
  });
  if (stored) deps.outbox.flushSoon();
  return stored;
}
