// What the reservation service needs from the listing service: a listing by id or channel id
// (with its PMS and prices), its calendar, both in one call for a write's stay, and a listing by
// its id in a PMS (sync), or the fact that the workspace deleted it.
import { listing as listingPb } from '@vrp/contracts';
import { notFound } from '@vrp/platform/errors';
import type { Upstream } from '@vrp/platform/grpc';
import type { NightPrice } from '../domain/pricing';

export interface ListingInfo {
  id: string;
  name: string;
  active: boolean;
  /** '' when no PMS manages the listing. */
  pmsProvider: string;
  pmsExternalId: string;
  currency: string;
  defaultNightlyPrice: number;
  cleaningFee: number;
  taxRate: number;
}

export interface ListingDirectory {
  /** The listing by id or mapped channel id; not_found when it is not in the workspace. */
  resolve(workspaceId: string, idOrChannelId: string): Promise<ListingInfo>;
  /** Prices and availability (the calendar's own: closed or open) of each night from `from` to `to` (inclusive). */
  nights(workspaceId: string, listingId: string, from: string, to: string): Promise<NightPrice[]>;
  /** resolve and nights in one call: the listing (active or not) and its nights from `from` to `to` (inclusive). */
  stay(workspaceId: string, idOrChannelId: string, from: string, to: string): Promise<{ listing: ListingInfo; nights: NightPrice[] }>;
  /**
   * The listing a PMS knows as `externalId` (null when the listing service has none), and
   * whether the workspace deleted it after its import (then it is null for good).
   */
  byPmsId(workspaceId: string, provider: string, externalId: string): Promise<{ listing: ListingInfo | null; deleted: boolean }>;
}

const toNights = (days: listingPb.CalendarDay[]): NightPrice[] => days.map((d) => ({ date: d.date, price: d.price, available: d.available }));

const toInfo = (l: listingPb.Listing): ListingInfo => ({
  id: l.id,
  name: l.name,
  active: l.status === 'active',
  pmsProvider: l.pmsProvider,
  pmsExternalId: l.pmsExternalId,
  currency: l.currency,
  defaultNightlyPrice: l.defaultNightlyPrice,
  cleaningFee: l.cleaningFee,
  taxRate: l.taxRate,
});

export function grpcListingDirectory(upstream: Upstream<listingPb.ListingServiceClient>): ListingDirectory {
  return {
    async resolve(workspaceId, id) {
      const { listings } = await upstream.call('resolveListings', { workspaceId, ids: [id] });
      const found = listings[0];
      if (!found) throw notFound('listing', id);
      return toInfo(found);
    },
    async nights(workspaceId, listingId, from, to) {
      const res = await upstream.call('getCalendar', { workspaceId, listingId, from, to, calendarOnly: true });
      return toNights(res.days);
    },
    async stay(workspaceId, id, from, to) {
      const res = await upstream.call('resolveStay', { workspaceId, id, from, to });
      if (!res.listing) throw notFound('listing', id);
      return { listing: toInfo(res.listing), nights: toNights(res.days) };
    },
    async byPmsId(workspaceId, provider, externalId) {
      const res = await upstream.call('findPmsListing', { workspaceId, provider, externalId });
      return { listing: res.listing ? toInfo(res.listing) : null, deleted: res.deleted };
    },
  };
}
