// Listing activity as the guest service sees it (docs/api.md), from the local ListingActivityCache:
// data of an inactive listing is left out of collections, a direct read of it is 403, and a
// collection filtered by an inactive listing is 403 rather than an empty page.
import type { ListingActivityCache } from '@vrp/activity-cache';
import { listingInactive, notFound } from '@vrp/platform/errors';
import { hidingListings } from '../domain/guest';

export class ListingAccess {
  constructor(
    private readonly cache: ListingActivityCache,
    /** The listing id of an id or channel id in the workspace, or null (the listing service's answer). */
    private readonly resolve: (workspaceId: string, idOrChannelId: string) => Promise<string | null>,
  ) {}

  /** Ids of the workspace's inactive listings, for `$nin` filters. */
  inactiveIds(workspaceId: string): string[] {
    return this.cache.inactiveIds(workspaceId);
  }

  /** Direct read of data of one listing: 403 listing_inactive when it is inactive. */
  assertActive(workspaceId: string, listingId: string): void {
    this.cache.assertActive(workspaceId, [listingId]);
  }

  /**
   * A collection filter naming a listing (by id or mapped channel id): the listing id to filter
   * on; 404 not_found when the workspace has no such listing (docs/api.md, decided first, by the
   * listing service, which owns listings: an unknown id, another workspace's or a deleted
   * listing), then 403 when the listing is inactive.
   */
  async filterListing(workspaceId: string, idOrChannelId: string): Promise<string> {
    const listingId = await this.resolve(workspaceId, idOrChannelId);
    if (!listingId) throw notFound('listing', idOrChannelId);
    this.cache.assertActive(workspaceId, [listingId]);
    return listingId;
  }

  /** Guest visibility on a direct read: 403 naming the listings when every one of them is inactive. */
  assertGuestVisible(workspaceId: string, listingIds: string[]): void {
    const hiding = hidingListings(listingIds, this.cache.inactiveAmong(workspaceId, listingIds));
    if (hiding) throw listingInactive(hiding);
  }
}
