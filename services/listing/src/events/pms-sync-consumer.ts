// Consumer of pms.sync.v1, entity "listing": imports the listings of a connected PMS account and
// applies the changes made in the PMS. Idempotent: a listing is found by (workspace, PMS, PMS
// id), so a replayed message updates it to the values it already has and changes nothing.
// Activity is never changed by a sync, except that a NEW listing imported while unlisted on its
// channel starts inactive (spec 3.2); an inactive listing's data keeps syncing.
import { pmsSync, TOPICS, type ListingSyncPayload } from '@vrp/contracts';
import { describeSyncChange, DuplicateKeyError, newId, PermanentError, type ConsumerRunner, type DocumentStore, type Logger, type Outbox, type Subscription } from '@vrp/platform';
import { canActivate, type ListingRecord } from '../domain/listing';
import { pmsListingStore, type ListingStore, type PmsListingFields } from '../store/listing-store';
import { alreadyApplied, PmsSyncMarks } from '../store/pms-sync-marks';
import { activityChanged, recordActivity } from './activity-publisher';

export const PMS_SYNC_GROUP = 'listing.pms-sync';

export type ApplyOutcome = 'created' | 'updated' | 'unchanged' | 'ignored';

/** The PMS-owned fields of a listing, from the sync payload (absent values keep the listing's). */
export function fieldsOf(p: ListingSyncPayload): PmsListingFields {
  return {
    name: p.name.trim() || p.externalId,
    channels: p.channels.filter((c) => c.externalId).map((c) => ({ channel: c.channel, externalId: c.externalId })),
    timezone: p.timezone,
    currency: p.currency,
    maxGuests: p.maxGuests,
    bedrooms: p.bedrooms,
    bathrooms: p.bathrooms,
    beds: p.beds,
    defaultNightlyPrice: p.defaultNightlyPrice,
    cleaningFee: p.cleaningFee,
  };
}

/** True when applying `fields` would change nothing (a replay, or a change of other data). */
export function sameFields(listing: ListingRecord, fields: PmsListingFields): boolean {
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    const current = listing[key as keyof ListingRecord];
    if (JSON.stringify(current) !== JSON.stringify(value)) return false;
  }
  return true;
}

export class PmsSyncConsumer {
  private subscription: Subscription | null = null;
  private readonly marks: PmsSyncMarks;

  constructor(private readonly deps: { store: DocumentStore; consumers: ConsumerRunner; listings: ListingStore; outbox: Outbox; logger: Logger }) {
    this.marks = new PmsSyncMarks(deps.store);
  }

  async start(): Promise<void> {
    // Failures: an unreadable payload or a channel id taken by another listing are permanent
    // (dead letters); store trouble is transient (retried in place by the runner).
    this.subscription = await this.deps.consumers.subscribe({
      groupId: PMS_SYNC_GROUP,
      topics: [TOPICS.pmsSync],
      fromBeginning: true,
      decode: (bytes) => pmsSync.PmsSyncChange.decode(bytes),
      reportsSyncOutcomes: true,
      describe: (change) => describeSyncChange(change, change.entity === 'listing'),
      handle: async (change) => {
        await this.apply(change);
      },
    });
    await this.subscription.ready;
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
    this.subscription = null;
  }

  /** Applies one change; other entities are for the reservation and guest services. */
  async apply(change: pmsSync.PmsSyncChange): Promise<ApplyOutcome> {
    if (change.entity !== 'listing') return 'ignored';
    const payload: ListingSyncPayload | undefined = change.listing;
    if (!payload?.externalId || !payload.name) {
      throw new PermanentError('malformed_payload', `pms.sync.v1 listing change ${change.changeId} carries no listing with an external id and a name`);
    }
    const { store, listings, outbox } = this.deps;
    const byPms = pmsListingStore(listings);
    const fields = fieldsOf(payload);
    const mark = { occurredAt: change.occurredAt ?? new Date(0), changeId: change.changeId };
    try {
      const outcome = await store.transaction(async (tx): Promise<ApplyOutcome> => {
        // A change older than the last applied one (a replay, a redelivery) changes nothing.
        if (alreadyApplied(await this.marks.get(change.workspaceId, change.provider, payload.externalId, tx), mark)) return 'unchanged';
        await this.marks.set(change.workspaceId, change.provider, payload.externalId, mark, tx);
        const existing = await byPms.findByPmsId(change.workspaceId, change.provider, payload.externalId, tx);
        if (existing) {
          if (sameFields(existing, fields)) return 'unchanged';
          await byPms.applyPmsFields(existing, fields, tx);
          return 'updated';
        }
        // A new import: unlisted on its channel -> inactive (spec 3.2). A listed one takes a plan
        // slot when there is one; otherwise it arrives inactive too rather than blocking the
        // feed, and the owner activates it after freeing a slot or upgrading.
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
      if (outcome === 'created') void outbox.flush().catch(() => undefined);
      return outcome;
    } catch (err) {
      if (err instanceof DuplicateKeyError) {
        // A channel id of this PMS listing already belongs to another listing of the workspace:
        // a dead letter, replayable once the operator has moved the channel mapping.
        throw new PermanentError('channel_id_taken', `PMS listing ${change.provider}/${payload.externalId}: a channel id is already mapped to another listing of workspace ${change.workspaceId}`, { cause: err });
      }
      throw err;
    }
  }
}
