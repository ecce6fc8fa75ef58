// gRPC handlers for the data of a listing: calendar (availability + prices), content, photos and
// publishing. Every call is workspace-scoped and addresses the listing by id or by a mapped
// channel id. Order of refusals: validation_failed (malformed request), then not_found (an id
// not in the workspace), then listing_inactive (spec 7: 404 is decided before 403), then
// pms_write_unsupported. The data of an inactive listing is never read or written here.
import { listing as pb } from '@vrp/contracts';
import { AppError, listingInactive, pmsWriteUnsupported, preconditionFailed, requestKey, requireId, requireWorkspace, validationFailed } from '@vrp/platform';
import { availabilityRequestProblems, changesOf, rangeProblems, withBookings } from '../domain/calendar';
import type { BookedNights } from '../ports/bookings';
import { inSectionOrder, parseSections, photoProblems, refusedWrites, splitByPms, type SectionValues } from '../domain/content';
import type { ListingRecord } from '../domain/listing';
import { DataStore, type PhotoRecord } from '../store/data-store';
import type { ListingHandlerDeps, ListingHandlers } from './listings';

/**
 * Hands content sections to the PMS that manages a listing (implemented later over the
 * pms-adapter). Called only with sections the capability matrix says the PMS can store, and
 * before anything is stored here: if it throws, nothing is stored and the error propagates.
 */
export interface ContentRelay {
  apply(listing: ListingRecord, sections: SectionValues): Promise<void>;
}

export interface DataHandlerDeps extends ListingHandlerDeps {
  /** Absent until the pms-adapter relay is wired; content is then stored without relaying. */
  contentRelay?: ContentRelay;
  /** The nights reservations hold (reservation service): the calendar shows them as unavailable. */
  bookings: BookedNights;
}

export type DataHandlers = Pick<
  ListingHandlers,
  'getCalendar' | 'updateAvailability' | 'getContent' | 'putContent' | 'listPhotos' | 'addPhoto' | 'removePhoto' | 'publishListing'
>;

const toProtoSections = (values: SectionValues): pb.ContentSection[] =>
  inSectionOrder(values).map(([name, value]) => ({ name, valueJson: JSON.stringify(value) }));

const toProtoPhoto = (p: PhotoRecord): pb.Photo => ({ id: p.id, url: p.url, caption: p.caption, position: p.position, createdAt: p.createdAt });

function assertValid(problems: Record<string, string>): void {
  if (Object.keys(problems).length > 0) throw validationFailed(problems);
}

export function dataHandlers(deps: DataHandlerDeps): DataHandlers {
  const { listings, store, contentRelay, bookings, applied } = deps;
  const data = new DataStore(store);

  /** The common prologue: tenant and id present, listing exists (404), listing active (403). */
  async function activeListing(req: { workspaceId: string; listingId: string }): Promise<ListingRecord> {
    requireWorkspace(req.workspaceId);
    requireId(req.listingId, 'listingId');
    return listings.resolveActive(req.workspaceId, req.listingId);
  }

  return {
    async getCalendar(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.listingId, 'listingId');
      assertValid(rangeProblems(req.from, req.to));
      const listing = await listings.resolveActive(req.workspaceId, req.listingId);
      const days = await data.calendar(listing, req.from, req.to);
      if (req.calendarOnly) return { listingId: listing.id, currency: listing.currency, days };
      const booked = await bookings.list(req.workspaceId, listing.id, req.from, req.to);
      return { listingId: listing.id, currency: listing.currency, days: withBookings(days, booked) };
    },

    async updateAvailability(req) {
      requireWorkspace(req.workspaceId);
      assertValid(availabilityRequestProblems(req.updates));
      // A key already applied answers the first outcome, and the batch is not written again
      // (a later change of the same days is not overwritten by a late retry).
      const key = requestKey('listing.updateAvailability', req);
      const write = () =>
        // Resolution, the activity check and the writes share one transaction, so a listing
        // deactivated meanwhile cannot receive half of the batch.
        store.transaction(async (tx) => {
          // Every listing is resolved before anything is judged: unknown ids are a 404 naming
          // them all, and only then is activity checked (404 before 403).
          const resolved = await listings.resolveAll(req.workspaceId, req.updates.map((u) => u.listingId), tx);
          const inactive = new Map<string, { id: string; name: string }>();
          for (const l of resolved) if (l.status === 'inactive') inactive.set(l.id, { id: l.id, name: l.name });
          // Spec 7.1 rule 1: one error naming every inactive listing, and nothing written.
          if (inactive.size > 0) throw listingInactive([...inactive.values()]);

          const listingIds: string[] = [];
          const written = new Set<string>();
          for (const [i, u] of req.updates.entries()) {
            const listing = resolved[i];
            if (!listing) throw new Error(`updateAvailability: update ${i} has no resolved listing`);
            for (const date of await data.writeDays(listing, u.from, u.to, changesOf(u), tx)) written.add(`${listing.id}:${date}`);
            if (!listingIds.includes(listing.id)) listingIds.push(listing.id);
          }
          // A day named by two overlapping updates is one day written.
          const outcome = { listingIds, daysUpdated: written.size };
          await applied.remember(key, JSON.stringify(outcome), tx);
          return outcome;
        });
      return applied.once(key, write, async (result) => JSON.parse(result) as pb.UpdateAvailabilityResponse);
    },

    async getContent(req) {
      const listing = await activeListing(req);
      const content = await data.readContent(listing);
      return { listingId: listing.id, sections: toProtoSections(content.sections), updatedAt: content.updatedAt ?? undefined, version: content.version };
    },

    async putContent(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.listingId, 'listingId');
      if (req.sections.length === 0) throw validationFailed({ sections: 'must contain at least one section' });
      const { values, problems } = parseSections(req.sections);
      assertValid(problems);
      const listing = await listings.resolveActive(req.workspaceId, req.listingId);

      // Decided from the capability matrix alone, before anything reaches the PMS (spec 7.2).
      const provider = listing.pmsProvider;
      const split = splitByPms(provider, inSectionOrder(values).map(([name]) => name));
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
      return {
        listingId: listing.id,
        applied: split.applied,
        deferred: split.deferred,
        pmsProvider: provider,
        pmsErrors: split.errors,
        sections: toProtoSections(stored.sections),
        version: stored.version,
      };
    },

    async listPhotos(req) {
      const listing = await activeListing(req);
      return { photos: (await data.listPhotos(listing)).map(toProtoPhoto) };
    },

    async addPhoto(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.listingId, 'listingId');
      assertValid(photoProblems(req.url, req.caption));
      // A key already applied answers the photo it added; no second photo is added.
      const key = requestKey('listing.addPhoto', req);
      return applied.once(
        key,
        async () => {
          const listing = await listings.resolveActive(req.workspaceId, req.listingId);
          const photo = await data.addPhoto(listing, req.url, req.caption, (added, tx) => applied.remember(key, JSON.stringify(toProtoPhoto(added)), tx));
          return { photo: toProtoPhoto(photo) };
        },
        async (result) => {
          const photo = JSON.parse(result) as pb.Photo & { createdAt: string };
          return { photo: { ...photo, createdAt: new Date(photo.createdAt) } };
        },
      );
    },

    async removePhoto(req) {
      requireId(req.photoId, 'photoId');
      const listing = await activeListing(req);
      // A photo of another listing (or workspace) is as unknown here as a made-up id.
      if (!(await data.removePhoto(listing, req.photoId))) {
        throw new AppError('not_found', `No photo with id '${req.photoId}' exists on listing '${listing.id}'.`);
      }
      return { photoId: req.photoId };
    },

    async publishListing(req) {
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
            const outcome = { listingId: listing.id, publishedAt, channels: [...new Set(listing.channels.map((c) => c.channel))] };
            await applied.remember(key, JSON.stringify(outcome), tx);
            return outcome;
          }),
        async (result) => {
          const first = JSON.parse(result) as pb.PublishListingResponse & { publishedAt: string };
          return { ...first, publishedAt: new Date(first.publishedAt) };
        },
      );
    },
  };
}
