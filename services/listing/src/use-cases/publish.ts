// Publishing a listing to the channels it is mapped to (once per Idempotency-Key).
import { listing as pb } from '@vrp/contracts';
import { AppError } from '@vrp/platform/errors';
import { requestKey } from '@vrp/platform/applied-requests';
import type { Publication } from '../domain/listing';
import { dataContext, type DataContext, type ListingDataDeps } from './data-context';

export function publishUseCases(deps: ListingDataDeps, ctx: DataContext = dataContext(deps)) {
  const { listings, store, applied } = deps;
  const { activeListing } = ctx;

  return {
    async publishListing(req: pb.PublishListingRequest): Promise<Publication> {
      const listing = await activeListing(req);
      if (listing.channels.length === 0) {
        throw new AppError(
          'validation_failed',
          `Listing '${listing.id}' is not mapped to any channel, so there is nowhere to publish it.`,
          { fields: { channels: 'the listing has no channel mapping' } },
          'Map the listing to a channel listing (a channel id), then publish again.',
        );
      }
      // A key already applied answers the first publication (its time) and publishes nothing again.
      const key = requestKey('listing.publishListing', req);
      return applied.once(
        key,
        () =>
          store.transaction(async (tx) => {
            const publishedAt = new Date();
            await listings.markPublished(listing, publishedAt, tx);
            const outcome: Publication = { listingId: listing.id, publishedAt, channels: [...new Set(listing.channels.map((c) => c.channel))] };
            await applied.remember(key, JSON.stringify(outcome), tx);
            return outcome;
          }),
        async (result) => {
          const first = JSON.parse(result) as Omit<Publication, 'publishedAt'> & { publishedAt: string };
          return { ...first, publishedAt: new Date(first.publishedAt) };
        },
      );
    },
  };
}
