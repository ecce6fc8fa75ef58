// What every use case of the guest service works with, and the two helpers they share.
import type { KeyedOrder } from '@vrp/platform/keyed-order';
import type { AppliedRequests } from '@vrp/platform/applied-requests';
import type { DocumentStore } from '@vrp/platform/store';
import type { Logger } from '@vrp/platform/logging';
import type { Outbox } from '@vrp/platform/outbox';
import type { ListingAccess } from '../ports/access';
import type { PmsPort } from '../ports/pms';
import type { GuestStore } from '../store/guest-store';
import { listingScopedFilter, type MessagingStore } from '../store/messaging-store';

export interface GuestDeps {
  store: DocumentStore;
  guests: GuestStore;
  messaging: MessagingStore;
  outbox: Outbox;
  access: ListingAccess;
  pms: PmsPort;
  logger: Logger;
  /** Idempotency-Keys of the writes, stored with them (service-side idempotency). */
  applied: AppliedRequests;
  /** The order of this process's writes to a guest profile, by the guest's match keys. */
  guestOrder: KeyedOrder;
}

/** The collection filter of a listing-scoped list (404 when it names no listing of the workspace, then 403 when inactive). */
export async function listingScope(access: ListingAccess, workspaceId: string, listingId: string, extra: Record<string, unknown> = {}) {
  return listingScopedFilter(workspaceId, {
    listingId: listingId ? await access.filterListing(workspaceId, listingId) : '',
    inactiveListingIds: access.inactiveIds(workspaceId),
    extra,
  });
}
