// Listings, plans and activity: list, get, create, the workspace's plan and usage, activation,
// deletion, deactivation of a PMS connection's listings, lookups by id and by PMS id. The use
// cases take the decoded request message and answer records; grpc/handlers.ts encodes them.
import { listing as pb } from '@vrp/contracts';
import { AppError, validationFailed } from '@vrp/platform/errors';
import { DuplicateKeyError, type DocumentStore } from '@vrp/platform/store';
import { MAX_PAGE_LIMIT, pageInfo, pageWindow, requireWorkspace } from '@vrp/platform/paging';
import { newId } from '@vrp/platform/ids';
import { requestKey, type AppliedRequests } from '@vrp/platform/applied-requests';
import type { Outbox } from '@vrp/platform/outbox';
import { activityOutcomeIds, type ActivityOutcomeIds, type ListingActivity } from './activity';
import { statusesFor, usageOf, type ListingRecord, type ListingStatusFilter } from '../domain/listing';
import { activityChanged, recordActivity } from '../events/activity-publisher';
import { pmsListingStore, type ListingStore } from '../store/listing-store';
import { PmsSyncMarks } from '../store/pms-sync-marks';

export interface ListingUseCaseDeps {
  store: DocumentStore;
  listings: ListingStore;
  outbox: Outbox;
  activity: ListingActivity;
  /** Idempotency-Keys stored with the writes (service-side idempotency). */
  applied: AppliedRequests;
}

/** Listings, plans and activity; the data of a listing lives in listing-data.ts. */
export function listingUseCases(deps: ListingUseCaseDeps) {
  const { listings, outbox, store, activity, applied } = deps;
  const marks = new PmsSyncMarks(store);

  return {
    async listListings(req: Omit<pb.ListListingsRequest, 'status'>, status: ListingStatusFilter) {
      requireWorkspace(req.workspaceId);
      const window = pageWindow(req.page);
      const { items, total } = await listings.page(req.workspaceId, statusesFor(status), window);
      return { listings: items, page: pageInfo(window, items.length, total) };
    },

    async getListing(req: pb.GetListingRequest) {
      requireWorkspace(req.workspaceId);
      const found = req.allowInactive ? await listings.resolve(req.workspaceId, req.id) : await listings.resolveActive(req.workspaceId, req.id);
      return found;
    },

    async createListing(req: pb.CreateListingRequest) {
      requireWorkspace(req.workspaceId);
      const input = req.listing;
      if (!input?.name.trim()) throw validationFailed({ 'listing.name': 'is required' });
      const now = new Date();
      const record: ListingRecord = {
        id: newId('lst'),
        workspaceId: req.workspaceId,
        name: input.name.trim(),
        status: req.inactive ? 'inactive' : 'active',
        channels: input.channels.map((c) => ({ channel: c.channel, externalId: c.externalId })),
        address: {
          line1: input.address?.line1 ?? '',
          line2: input.address?.line2 ?? '',
          city: input.address?.city ?? '',
          region: input.address?.region ?? '',
          postalCode: input.address?.postalCode ?? '',
          country: input.address?.country ?? '',
        },
        timezone: input.timezone || 'UTC',
        currency: input.currency || 'EUR',
        maxGuests: input.maxGuests || 2,
        bedrooms: input.bedrooms,
        bathrooms: input.bathrooms,
        beds: input.beds,
        checkInTime: input.checkInTime || '15:00',
        checkOutTime: input.checkOutTime || '11:00',
        pmsProvider: input.pmsProvider,
        pmsExternalId: input.pmsExternalId,
        defaultNightlyPrice: input.defaultNightlyPrice || 100,
        cleaningFee: input.cleaningFee,
        taxRate: input.taxRate,
        publishedAt: null,
        activityVersion: 1,
        version: 1,
        createdAt: now,
        updatedAt: now,
      };
      const created = await store
        .transaction(async (tx) => {
          // A listing imported unlisted starts inactive and takes no slot of the plan.
          if (record.status === 'active') await listings.reserveActiveSlots(req.workspaceId, 1, tx);
          const saved = await listings.insert(record, tx);
          await recordActivity(outbox, tx, [activityChanged(saved, req.inactive ? 'imported_unlisted' : 'created', now)]);
          return saved;
        })
        .catch((err: unknown) => {
          // The unique {workspaceId, aliases} index: a channel id already names another listing.
          if (err instanceof DuplicateKeyError)
            throw new AppError(
              'conflict',
              `A channel id of '${record.name}' is already mapped to another listing of the workspace; nothing was created.`,
              {},
              'Remove the mapping from the other listing, or leave that channel out.',
            );
          throw err;
        });
      void outbox.flush().catch(() => undefined);
      return created;
    },

    async setWorkspacePlan(req: pb.SetWorkspacePlanRequest) {
      requireWorkspace(req.workspaceId);
      if (!Number.isInteger(req.activeListingLimit) || req.activeListingLimit < 0) {
        throw validationFailed({ activeListingLimit: 'must be a non-negative integer' });
      }
      await listings.setLimit(req.workspaceId, req.activeListingLimit);
      const plan = await listings.plan(req.workspaceId);
      return usageOf(plan, await listings.countByStatus(req.workspaceId, 'inactive'));
    },

    async getWorkspaceUsage(req: pb.GetWorkspaceUsageRequest) {
      requireWorkspace(req.workspaceId);
      const plan = await listings.plan(req.workspaceId);
      return usageOf(plan, await listings.countByStatus(req.workspaceId, 'inactive'));
    },

    async setListingsActive(req: pb.SetListingsActiveRequest) {
      requireWorkspace(req.workspaceId);
      if (req.listingIds.length === 0) throw validationFailed({ listingIds: 'must name at least one listing' });
      if (req.listingIds.length > MAX_PAGE_LIMIT) throw validationFailed({ listingIds: `must name at most ${MAX_PAGE_LIMIT} listings` });
      if (req.expectedVersion && req.listingIds.length !== 1) throw validationFailed({ expectedVersion: 'applies to exactly one listing' });
      // A key already applied answers the first outcome (which listings it changed).
      const key = requestKey('listing.setListingsActive', req);
      return applied.once(
        key,
        async () => activityOutcomeIds(await activity.setActive(req.workspaceId, req.listingIds, req.active, 'owner', req.expectedVersion, key)),
        async (result) => JSON.parse(result) as ActivityOutcomeIds,
      );
    },

    async deleteListing(req: pb.DeleteListingRequest) {
      requireWorkspace(req.workspaceId);
      return activity.delete(req.workspaceId, req.id);
    },

    async deactivateConnectionListings(req: pb.DeactivateConnectionListingsRequest) {
      requireWorkspace(req.workspaceId);
      if (!req.pmsProvider) throw validationFailed({ pmsProvider: 'is required' });
      const changed = await activity.deactivatePmsAccount(req.workspaceId, req.pmsProvider, req.pmsExternalIds);
      return { deactivated: changed.map((l) => l.id) };
    },

    async resolveListings(req: pb.ResolveListingsRequest) {
      requireWorkspace(req.workspaceId);
      const found = await listings.findAll(req.workspaceId, req.ids);
      return found;
    },

    async findPmsListing(req: pb.FindPmsListingRequest) {
      requireWorkspace(req.workspaceId);
      if (!req.provider || !req.externalId)
        throw validationFailed({ ...(req.provider ? {} : { provider: 'is required' }), ...(req.externalId ? {} : { externalId: 'is required' }) });
      const found = await pmsListingStore(listings).findByPmsId(req.workspaceId, req.provider, req.externalId);
      if (found) return { listing: found, deleted: false };
      // Every import records the PMS listing's sync mark in the same transaction as the listing,
      // and deletion keeps the mark: a mark without a listing is a listing the workspace deleted.
      return { listing: null, deleted: (await marks.get(req.workspaceId, req.provider, req.externalId)) !== null };
    },
  };
}
