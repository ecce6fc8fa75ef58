// The rules of a PMS's listing changes (pms.sync.v1): which fields a PMS owns, when a change
// changes nothing, and when a change is older than the last one applied. No I/O here.
import type { ListingSyncPayload } from '@vrp/contracts';
import type { ListingRecord } from './listing';

/** The PMS-side fields of a listing that a sync may change. */
export type PmsListingFields = Pick<ListingRecord, 'name' | 'channels'> &
  Partial<Pick<ListingRecord, 'timezone' | 'currency' | 'maxGuests' | 'bedrooms' | 'bathrooms' | 'beds' | 'defaultNightlyPrice' | 'cleaningFee'>>;

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

export interface SyncMark {
  occurredAt: Date;
  changeId: string;
}

/** Whether a change is older than, or the same as, the last one applied (and so must be skipped). */
export function alreadyApplied(mark: SyncMark | null, change: SyncMark): boolean {
  if (!mark) return false;
  const diff = change.occurredAt.getTime() - mark.occurredAt.getTime();
  return diff < 0 || (diff === 0 && change.changeId === mark.changeId);
}
