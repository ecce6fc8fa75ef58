// The content of a listing (sections): read, and PUT relayed first to the PMS managing it (only the
// sections the capability matrix lets it store; the others are deferred), then stored.
import { pmsWriteUnsupported, preconditionFailed, validationFailed } from '@vrp/platform/errors';
import { requireId, requireWorkspace } from '@vrp/platform/paging';
import { inSectionOrder, parseSections, refusedWrites, splitByPms, type ContentPutOutcome, type ListingContent, type SectionValues } from '../domain/content';
import { activeListing, assertValid, type ListingDeps, type ListingRef } from './deps';

export async function getContent(deps: ListingDeps, ref: ListingRef): Promise<ListingContent> {
  const listing = await activeListing(deps, ref);
  return { listingId: listing.id, content: await deps.data.readContent(listing) };
}

export interface PutContentInput extends ListingRef {
  /** Each section's name and its value as JSON, as the client sent them. */
  sections: readonly { name: string; valueJson: string }[];
  /** If-Match (0: none). */
  expectedVersion: number;
}

export async function putContent(deps: ListingDeps, input: PutContentInput): Promise<ContentPutOutcome> {
  const { listings, data, contentRelay } = deps;
  requireWorkspace(input.workspaceId);
  requireId(input.listingId, 'listingId');
  if (input.sections.length === 0) throw validationFailed({ sections: 'must contain at least one section' });
  const { values, problems } = parseSections(input.sections);
  assertValid(problems);
  const listing = await listings.resolveActive(input.workspaceId, input.listingId);

  // Decided from the capability matrix alone, before anything reaches the PMS (docs/api.md,
  // "Writes that a PMS cannot perform").
  const provider = listing.pmsProvider;
  const split = splitByPms(
    provider,
    inSectionOrder(values).map(([name]) => name),
  );
  if (split.applied.length === 0) throw pmsWriteUnsupported(provider, refusedWrites(split.deferred));
  const toStore: SectionValues = {};
  for (const name of split.applied) toStore[name] = values[name];
  // If-Match is checked before anything reaches the PMS, and again by the guarded write.
  if (input.expectedVersion) {
    const current = await data.readContent(listing);
    if (current.version !== input.expectedVersion) throw preconditionFailed('Content of listing', listing.id, input.expectedVersion, current.version);
  }

  // The PMS is the source of truth of a PMS listing: it must accept the sections before
  // they are stored here. Should storing fail after the PMS accepted, the next sync from
  // the PMS brings the same values back, so the two never diverge for long.
  if (provider && contentRelay) await contentRelay.apply(listing, toStore);
  const stored = await data.putContent(listing, toStore, new Date(), input.expectedVersion);
  if (!stored) {
    const current = await data.readContent(listing);
    throw preconditionFailed('Content of listing', listing.id, input.expectedVersion, current.version);
  }
  return { listingId: listing.id, ...split, pmsProvider: provider, content: stored };
}
