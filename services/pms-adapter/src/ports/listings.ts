// What the pms-adapter needs from the listing service: deactivating the listings a
// disconnected account alone managed.
import { listing } from '@vrp/contracts';
import { createUpstream } from '@vrp/platform/grpc';
import type { ServiceAddresses } from '@vrp/platform/service';

export interface ListingsPort {
  /** Deactivates the workspace's listings of `provider` with these PMS ids; returns the API ids deactivated. */
  deactivateConnectionListings(workspaceId: string, provider: string, pmsExternalIds: string[]): Promise<string[]>;
  close(): void;
}

export function grpcListingsPort(addresses: Pick<ServiceAddresses, 'listing'>): ListingsPort {
  const upstream = createUpstream(listing.ListingServiceClient, { name: 'listing', address: addresses.listing });
  return {
    async deactivateConnectionListings(workspaceId, pmsProvider, pmsExternalIds) {
      const { deactivated } = await upstream.call('deactivateConnectionListings', { workspaceId, pmsProvider, pmsExternalIds });
      return deactivated;
    },
    close() {
      upstream.close();
    },
  };
}
