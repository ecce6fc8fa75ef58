// Listing activity as the guest service sees it (spec 7.1), from the local ListingActivityCache:
// data of an inactive listing is left out of collections, a direct read of it is 403, and a
// collection filtered by an inactive listing is 403 rather than an empty page.
import type { ListingActivityCache } from '@vrp/activity-cache';
import { listingInactive } from '@vrp/platform';
import { hidingListings } from '../domain/guest';

export class ListingAccess {
  constructor(private readonly cache: ListingActivityCache) {}

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
   * on, or 403 when the listing is inactive. A listing the cache does not know is used as given
   * (it matches nothing unless data of it exists).
   */
  filterListing(workspaceId: string, idOrChannelId: string): string {
    this.cache.assertActive(workspaceId, [idOrChannelId]);
    return this.cache.get(workspaceId, idOrChannelId)?.listingId ?? idOrChannelId;
  }

  /** Spec 2.2 on a direct read: 403 naming the listings when every one of them is inactive. */
  assertGuestVisible(workspaceId: string, listingIds: string[]): void {
    const hiding = hidingListings(listingIds, this.cache.inactiveAmong(workspaceId, listingIds));
    if (hiding) throw listingInactive(hiding);
  }
}
