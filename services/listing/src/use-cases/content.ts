// The content of a listing (sections): read, and PUT relayed first to the PMS managing it (only the
// sections the capability matrix lets it store; the others are deferred), then stored.
import { listing as pb } from '@vrp/contracts';
import { pmsWriteUnsupported, preconditionFailed, validationFailed } from '@vrp/platform/errors';
import { requireId, requireWorkspace } from '@vrp/platform/paging';
import { inSectionOrder, parseSections, refusedWrites, splitByPms, type ContentPutOutcome, type ListingContent, type SectionValues } from '../domain/content';
import { assertValid, dataContext, type DataContext, type ListingDataDeps } from './data-context';

export function contentUseCases(deps: ListingDataDeps, ctx: DataContext = dataContext(deps)) {
  const { listings, contentRelay } = deps;
  const { data, activeListing } = ctx;

  return {
    async getContent(req: pb.GetContentRequest): Promise<ListingContent> {
      const listing = await activeListing(req);
      return { listingId: listing.id, content: await data.readContent(listing) };
    },

    async putContent(req: pb.PutContentRequest): Promise<ContentPutOutcome> {
      requireWorkspace(req.workspaceId);
      requireId(req.listingId, 'listingId');
      if (req.sections.length === 0) throw validationFailed({ sections: 'must contain at least one section' });
      const { values, problems } = parseSections(req.sections);
      assertValid(problems);
      const listing = await listings.resolveActive(req.workspaceId, req.listingId);

      // Decided from the capability matrix alone, before anything reaches the PMS (spec 7.2).
      const provider = listing.pmsProvider;
      const split = splitByPms(
        provider,
        inSectionOrder(values).map(([name]) => name),
      );
      if (split.applied.length === 0) throw pmsWriteUnsupported(provider, refusedWrites(split.deferred));
      const toStore: SectionValues = {};
      for (const name of split.applied) toStore[name] = values[name];
      // If-Match is checked before anything reaches the PMS, and again by the guarded write.
      if (req.expectedVersion) {
        const current = await data.readContent(listing);
        if (current.version !== req.expectedVersion) throw preconditionFailed('Content of listing', listing.id, req.expectedVersion, current.version);
      }

      // The PMS is the source of truth of a PMS listing: it must accept the sections before
      // they are stored here. Should storing fail after the PMS accepted, the next sync from
      // the PMS brings the same values back, so the two never diverge for long.
      if (provider && contentRelay) await contentRelay.apply(listing, toStore);
      const stored = await data.putContent(listing, toStore, new Date(), req.expectedVersion);
      if (!stored) {
        const current = await data.readContent(listing);
        throw preconditionFailed('Content of listing', listing.id, req.expectedVersion, current.version);
      }
      return { listingId: listing.id, ...split, pmsProvider: provider, content: stored };
    },
  };
}
