// How the webhook service reads a listing to render listing.* payloads: the listing service's
// GetListing over gRPC (deadline + breaker). A port so component tests can stand in for it.
import { listing as pb } from '@vrp/contracts';
import { AppError } from '@vrp/platform/errors';
import type { Upstream } from '@vrp/platform/grpc';

export interface ListingLookup {
  /** The listing (active or not), or null when it no longer exists. `deadlineMs` bounds the call below the default. */
  get(workspaceId: string, id: string, opts?: { deadlineMs?: number }): Promise<pb.Listing | null>;
}

export function grpcListingLookup(upstream: Upstream<pb.ListingServiceClient>): ListingLookup {
  return {
    async get(workspaceId, id, opts) {
      try {
        const { listing } = await upstream.call('getListing', { workspaceId, id, allowInactive: true }, opts);
        return listing ?? null;
      } catch (err) {
        if (err instanceof AppError && err.code === 'not_found') return null;
        throw err;
      }
    },
  };
}
