// Publishing a listing to the channels it is mapped to (once per Idempotency-Key).
import { AppError } from '@vrp/platform/errors';
import { type RequestKey } from '@vrp/platform/applied-requests';
import type { Publication } from '../domain/listing';
import { activeListing, type ListingDeps, type ListingRef } from './deps';

export async function publishListing(deps: ListingDeps, ref: ListingRef, key: RequestKey | null): Promise<Publication> {
  const { listings, store, applied } = deps;
  const listing = await activeListing(deps, ref);
  if (listing.channels.length === 0) {
    throw new AppError(
      'validation_failed',
      `Listing '${listing.id}' is not mapped to any channel, so there is nowhere to publish it.`,
      { fields: { channels: 'the listing has no channel mapping' } },
      'Map the listing to a channel listing (a channel id), then publish again.',
    );
  }
  // A key already applied answers the first publication (its time) and publishes nothing again.
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
}
