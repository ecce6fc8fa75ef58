// Applying a reservation change read from a PMS (pms.sync.v1): idempotent, newest change wins,
// the PMS's booking always applies (the booking rule of a PMS booking: domain/booking.ts) and
// overlaps are flagged on both sides.
import type { WorkspaceSettings } from '@vrp/api-model';
import { AppError } from '@vrp/platform/errors';
import { newId } from '@vrp/platform/ids';
import { PermanentError, TransientError } from '@vrp/platform/consumer';
import { newConfirmationCode } from '../domain/confirmation-code';
import { isStale, syncedFields, type PmsStayChange } from '../domain/pms-stay';
import { newReservationRecord, type ReservationRecord } from '../domain/reservation';
import type { ListingInfo } from '../ports/listings';
import { recordReservationEvent, type ReservationChange } from '../publishers/reservation-events';
import { type ReservationDeps } from './deps';
import { endConflicts, flagOverlaps, holdNights, retryWhileNightTaken } from './hold-nights';

/**
 * Applies one reservation change read from a PMS. Idempotent: matched on workspace + PMS + the
 * PMS's id, and a change not newer than the stored one changes nothing. Applies on inactive
 * listings too (their data keeps syncing); the event is published like an API change, and
 * webhook delivery decides about inactive listings.
 */
export async function applyPmsReservation(deps: ReservationDeps, change: PmsStayChange): Promise<'applied' | 'ignored'> {
  const { workspaceId, provider, stay } = change;
  const existing = await deps.reservations.findByPmsId(workspaceId, provider, stay.externalId);
  if (isStale(existing, stay)) return 'ignored';
  const [listing, settings] = await Promise.all([listingOfChange(deps, change), deps.settings.of(workspaceId)]);
  const now = deps.clock();
  const fields = syncedFields(stay, existing, listing, now);
  const next: ReservationRecord = existing
    ? { ...existing, ...fields, version: existing.version + 1 }
    : newReservationRecord({
        id: newId('res'),
        workspaceId,
        confirmationCode: newConfirmationCode(),
        bookedAt: now,
        pmsProvider: provider,
        pmsExternalId: stay.externalId,
        ...fields,
      });
  const kind: ReservationChange = !existing ? 'created' : next.status === 'CANCELLED' && existing.status !== 'CANCELLED' ? 'cancelled' : 'updated';
  // A conflict (another change applied meanwhile) throws: the bus redelivers and this re-reads.
  await retryWhileNightTaken(() => storeSynced(deps, { next, existing, kind, settings }, now));
  deps.outbox.flushSoon();
  return 'applied';
}

/**
 * The API listing of the change: a listing the workspace deleted is a dead letter at once
 * (replayable once a newer PMS change imports it again); one not imported yet (the listing
 * service's own consumer group may be behind) is retried in place.
 */
async function listingOfChange(deps: ReservationDeps, change: PmsStayChange): Promise<ListingInfo> {
  const { workspaceId, provider, stay } = change;
  const listingExternalId = stay.listingExternalId || change.listingExternalId;
  const { listing, deleted } = await deps.listings.byPmsId(workspaceId, provider, listingExternalId);
  if (listing) return listing;
  if (deleted) {
    throw new PermanentError(
      'listing_deleted',
      `${provider} reservation ${stay.externalId} is on listing ${provider}/${listingExternalId}, which workspace ${workspaceId} deleted; it is applied when the listing is imported again`,
    );
  }
  throw new TransientError('listing_not_imported', `pms sync: no listing of ${provider} with id '${listingExternalId}' in workspace ${workspaceId} yet`);
}

/** The record a PMS change makes, what it was, the event it is, and the workspace's settings. */
interface SyncedChange {
  next: ReservationRecord;
  existing: ReservationRecord | null;
  kind: ReservationChange;
  settings: WorkspaceSettings;
}

/** The record a PMS change makes, what it was, the event it is, and the workspace's settings. */
interface SyncedChange {
  next: ReservationRecord;
  existing: ReservationRecord | null;
  kind: ReservationChange;
  settings: WorkspaceSettings;
}

/**
 * One transaction: the PMS booking's nights (never refused; overlaps flagged on both sides),
 * flags of overlaps that ended cleared on the other side, the record and its event.
 */
async function storeSynced(deps: ReservationDeps, change: SyncedChange, now: Date): Promise<void> {
  const { next, existing, kind, settings } = change;
  await deps.store.transaction(async (tx) => {
    const overlaps = await holdNights(deps.nights, next, 'pms', settings, tx, { now });
    const still = await endConflicts(
      deps,
      next,
      settings,
      (existing?.conflictsWith ?? []).filter((id) => !overlaps.includes(id)),
      now,
      tx,
    );
    const written = { ...next, conflictsWith: [...new Set([...overlaps, ...still])].sort() };
    const stored = existing ? await deps.reservations.replaceIfVersion(written, existing.version, tx) : await deps.reservations.insertRaw(written, tx);
    if (!stored) throw new AppError('conflict', `Reservation '${next.id}' changed while a PMS change was applied; it is applied again.`);
    await flagOverlaps(deps, next.workspaceId, stored.id, overlaps, now, tx);
    await recordReservationEvent(deps.outbox, tx, kind, stored, now);
  });
}
