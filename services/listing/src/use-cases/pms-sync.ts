// Use case of pms.sync.v1, entity "listing" (consumers/pms-sync.ts calls it): imports the
// listings of a connected PMS account and applies the changes made in the PMS. Idempotent: a
// listing is found by (workspace, PMS, PMS id), so a replayed message updates it to the values it
// already has and changes nothing.
// Activity is never changed by a sync, except that a NEW listing imported while unlisted on its
// channel starts inactive (docs/api.md, "Listings are active or inactive"); an inactive listing's
// data keeps syncing.
import type { ListingSyncPayload } from '@vrp/contracts';
import { DuplicateKeyError } from '@vrp/platform/store';
import { newId } from '@vrp/platform/ids';
import { PermanentError } from '@vrp/platform/consumer';
import { canActivate, type ListingRecord } from '../domain/listing';
import { alreadyApplied, fieldsOf, sameFields } from '../domain/pms-sync';
import { activityChanged, recordActivity } from '../publishers/activity';
import { pmsListingStore } from '../store/listing-store';
import { type ListingDeps } from './deps';

export type ApplyOutcome = 'created' | 'updated' | 'unchanged';

/** One listing change of a PMS, checked against the API's vocabulary and limits. */
export interface PmsListingChange {
  workspaceId: string;
  provider: string;
  changeId: string;
  /** When the PMS made the change (absent: the epoch, so any dated change comes after it). */
  occurredAt: Date | undefined;
  listing: ListingSyncPayload;
}

export async function applyPmsListing(deps: ListingDeps, change: PmsListingChange): Promise<ApplyOutcome> {
  const { store, listings, marks, outbox } = deps;
  const payload = change.listing;
  if (!payload.externalId || !payload.name) {
    throw new PermanentError('malformed_payload', `pms.sync.v1 listing change ${change.changeId} carries no listing with an external id and a name`);
  }
  const byPms = pmsListingStore(listings);
  const fields = fieldsOf(payload);
  const mark = { occurredAt: change.occurredAt ?? new Date(0), changeId: change.changeId };
  try {
    const outcome = await store.transaction(async (tx): Promise<ApplyOutcome> => {
      // A change older than the last applied one (a replay, a redelivery) changes nothing.
      if (alreadyApplied(await marks.get(change.workspaceId, change.provider, payload.externalId, tx), mark)) return 'unchanged';
      await marks.set(change.workspaceId, change.provider, payload.externalId, mark, tx);
      const existing = await byPms.findByPmsId(change.workspaceId, change.provider, payload.externalId, tx);
      if (existing) {
        if (sameFields(existing, fields)) return 'unchanged';
        await byPms.applyPmsFields(existing, fields, tx);
        return 'updated';
      }
      // A new import: unlisted on its channel -> inactive. A listed one takes a plan slot when
      // there is one; otherwise it arrives inactive too rather than blocking the feed, and the
      // owner activates it after freeing a slot or upgrading.
      const plan = await listings.plan(change.workspaceId, tx);
      const active = !payload.unlisted && canActivate(plan, 1);
      const now = new Date();
      const record: ListingRecord = {
        id: newId('lst'),
        workspaceId: change.workspaceId,
        name: fields.name,
        status: active ? 'active' : 'inactive',
        channels: fields.channels,
        address: { line1: '', line2: '', city: '', region: '', postalCode: '', country: '' },
        timezone: fields.timezone || 'UTC',
        currency: fields.currency || 'EUR',
        maxGuests: fields.maxGuests ?? 2,
        bedrooms: fields.bedrooms ?? 1,
        bathrooms: fields.bathrooms ?? 1,
        beds: fields.beds ?? 1,
        checkInTime: '15:00',
        checkOutTime: '11:00',
        pmsProvider: change.provider,
        pmsExternalId: payload.externalId,
        defaultNightlyPrice: fields.defaultNightlyPrice ?? 100,
        cleaningFee: fields.cleaningFee ?? 0,
        taxRate: 0,
        publishedAt: null,
        activityVersion: 1,
        version: 1,
        createdAt: now,
        updatedAt: now,
      };
      if (active) await listings.reserveActiveSlots(change.workspaceId, 1, tx);
      const saved = await listings.insert(record, tx);
      await recordActivity(outbox, tx, [activityChanged(saved, payload.unlisted ? 'imported_unlisted' : 'created', now)]);
      return 'created';
    });
    if (outcome === 'created') outbox.flushSoon();
    return outcome;
  } catch (err) {
    if (err instanceof DuplicateKeyError) {
      // A channel id of this PMS listing already belongs to another listing of the workspace:
      // a dead letter, replayable once the operator has moved the channel mapping.
      throw new PermanentError(
        'channel_id_taken',
        `PMS listing ${change.provider}/${payload.externalId}: a channel id is already mapped to another listing of workspace ${change.workspaceId}`,
        { cause: err },
      );
    }
    throw err;
  }
}
