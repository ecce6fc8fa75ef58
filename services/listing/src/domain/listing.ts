// Listing records and the rules about their activity (docs/api.md, "Listings are active or
// inactive"; fields in docs/listings.md). No I/O here.
import { LISTING_STATUSES, type ListingStatus, type ListingStatusFilter } from '@vrp/api-model';

export type { ListingStatus, ListingStatusFilter };

export interface ChannelMapping {
  channel: string;
  externalId: string;
}

export interface Address {
  line1: string;
  line2: string;
  city: string;
  region: string;
  postalCode: string;
  country: string;
}

export interface ListingRecord {
  id: string;
  workspaceId: string;
  name: string;
  status: ListingStatus;
  channels: ChannelMapping[];
  address: Address;
  timezone: string;
  currency: string;
  maxGuests: number;
  bedrooms: number;
  bathrooms: number;
  beds: number;
  checkInTime: string;
  checkOutTime: string;
  pmsProvider: string;
  pmsExternalId: string;
  defaultNightlyPrice: number;
  cleaningFee: number;
  /** Fraction, e.g. 0.1 for 10 %. */
  taxRate: number;
  publishedAt: Date | null;
  /** Increases with every activity change; carried on listing.activity.v1. */
  activityVersion: number;
  /** +1 on every change of the record (status, PMS fields, publishing): the API's ETag. */
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** What a new listing is created from (the rest is defaulted or starts fresh). */
export type NewListingInput = Pick<ListingRecord, 'name' | 'channels' | 'address' | 'pmsProvider' | 'pmsExternalId'> &
  Pick<
    ListingRecord,
    | 'timezone'
    | 'currency'
    | 'maxGuests'
    | 'bedrooms'
    | 'bathrooms'
    | 'beds'
    | 'checkInTime'
    | 'checkOutTime'
    | 'defaultNightlyPrice'
    | 'cleaningFee'
    | 'taxRate'
  >;

/** The statuses a collection filter admits (default: active only). */
export function statusesFor(filter: ListingStatusFilter): ListingStatus[] {
  if (filter === 'all') return [...LISTING_STATUSES];
  return [filter];
}

export interface WorkspacePlan {
  workspaceId: string;
  activeListingLimit: number;
  activeListings: number;
}

export interface WorkspaceUsage {
  workspaceId: string;
  activeListingLimit: number;
  activeListings: number;
  inactiveListings: number;
  /** Inactive listings are not billed (docs/api.md, "Listings are active or inactive"). */
  billableListings: number;
}

export function usageOf(plan: WorkspacePlan, inactiveListings: number): WorkspaceUsage {
  return {
    workspaceId: plan.workspaceId,
    activeListingLimit: plan.activeListingLimit,
    activeListings: plan.activeListings,
    inactiveListings,
    billableListings: plan.activeListings,
  };
}

/** Whether the plan can hold `additional` more active listings. */
export function canActivate(plan: WorkspacePlan, additional: number): boolean {
  return plan.activeListings + additional <= plan.activeListingLimit;
}

export const DEFAULT_ACTIVE_LISTING_LIMIT = 10;

export interface ToggleOutcome {
  active: boolean;
  /** Listings whose state changes, in the order asked. */
  toChange: ListingRecord[];
  /** Listings already in the requested state. */
  unchanged: ListingRecord[];
}

/**
 * Splits the listings a toggle names into those it changes and those already in the wanted
 * state; a listing named twice (e.g. by id and by channel id) counts once.
 */
export function planToggle(listings: ListingRecord[], active: boolean): ToggleOutcome {
  const wanted: ListingStatus = active ? 'active' : 'inactive';
  const seen = new Set<string>();
  const toChange: ListingRecord[] = [];
  const unchanged: ListingRecord[] = [];
  for (const l of listings) {
    if (seen.has(l.id)) continue;
    seen.add(l.id);
    (l.status === wanted ? unchanged : toChange).push(l);
  }
  return { active, toChange, unchanged };
}

/**
 * A publication: when, and to which channels (each once). Kept as JSON with the Idempotency-Key
 * and answered again to a retry.
 */
export interface Publication {
  listingId: string;
  publishedAt: Date;
  channels: string[];
}
