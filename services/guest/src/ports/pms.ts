// What the guest service needs from other services to relay a write to a PMS: the PMS managing
// a listing (the listing service's ResolveListings: authoritative and current, since a listing
// can be connected to a PMS after its reservations were made), and the pms-adapter's RelayWrite.
// Refusals are decided from the capability matrix BEFORE any of this is called.
import { listing } from '@vrp/contracts';
import { connectPmsRelay, type RelayRequest } from '@vrp/pms-relay';
import { createUpstream, type Upstream } from '@vrp/platform/grpc';
import { notFound } from '@vrp/platform/errors';
import type { ServiceAddresses } from '@vrp/platform/service';

export interface ListingPms {
  listingId: string;
  name: string;
  /** Empty when the listing is not managed in a PMS. */
  provider: string;
  externalId: string;
}

export type RelayInput = RelayRequest;

export interface PmsPort {
  /** The listing (by id or mapped channel id) and its PMS; not_found when it is not in the workspace. */
  listing(workspaceId: string, idOrChannelId: string): Promise<ListingPms>;
  /** The listing id of `idOrChannelId`, or null when the workspace has no such listing. */
  resolveListingId(workspaceId: string, idOrChannelId: string): Promise<string | null>;
  /** The listing the workspace imported from `provider` under its PMS id; `deleted` when the workspace deleted it. */
  pmsListing(workspaceId: string, provider: string, externalId: string): Promise<{ listingId: string | null; deleted: boolean }>;
  /** Relays one supported write; returns the PMS's id of the entity written. */
  relay(input: RelayInput): Promise<{ entityExternalId: string }>;
  close(): void;
}

export function grpcPmsPort(addresses: Pick<ServiceAddresses, 'listing' | 'pmsAdapter'>): PmsPort {
  const listings: Upstream<listing.ListingServiceClient> = createUpstream(listing.ListingServiceClient, { name: 'listing', address: addresses.listing });
  const relay = connectPmsRelay(addresses.pmsAdapter);

  const find = async (workspaceId: string, id: string) => {
    const { listings: found } = await listings.call('resolveListings', { workspaceId, ids: [id] });
    return found[0] ?? null;
  };

  return {
    async listing(workspaceId, idOrChannelId) {
      const found = await find(workspaceId, idOrChannelId);
      if (!found) throw notFound('listing', idOrChannelId);
      return { listingId: found.id, name: found.name, provider: found.pmsProvider, externalId: found.pmsExternalId };
    },
    async resolveListingId(workspaceId, idOrChannelId) {
      return (await find(workspaceId, idOrChannelId))?.id ?? null;
    },
    async pmsListing(workspaceId, provider, externalId) {
      const found = await listings.call('findPmsListing', { workspaceId, provider, externalId });
      return { listingId: found.listing?.id ?? null, deleted: found.deleted };
    },
    relay: (input) => relay.relay(input),
    close() {
      listings.close();
      relay.close();
    },
  };
}
