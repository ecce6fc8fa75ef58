// Listings and plans: list, get, create, the workspace's plan and usage, lookups by id and by PMS
// id. Activity changes (toggles, deletion, disconnection) are in activity.ts. The use cases take
// domain inputs and answer records; grpc/ decodes the messages and encodes the answers.
import { AppError, validationFailed } from '@vrp/platform/errors';
import { DuplicateKeyError } from '@vrp/platform/store';
import { MAX_PAGE_LIMIT, requireWorkspace, type PageWindow } from '@vrp/platform/paging';
import { newId } from '@vrp/platform/ids';
import { type RequestKey } from '@vrp/platform/applied-requests';
import { statusesFor, usageOf, type ListingRecord, type ListingStatusFilter, type NewListingInput } from '../domain/listing';
import { activityChanged, recordActivity } from '../publishers/activity';
import { pmsListingStore } from '../store/listing-store';
import { activityOutcomeIds, deactivatePmsAccount, setActive, type ActivityOutcomeIds } from './activity';
import { type ListingDeps } from './deps';

export async function listListings(deps: ListingDeps, workspaceId: string, status: ListingStatusFilter, window: PageWindow) {
  requireWorkspace(workspaceId);
  return deps.listings.page(workspaceId, statusesFor(status), window);
}

export async function getListing(deps: ListingDeps, workspaceId: string, id: string, allowInactive: boolean): Promise<ListingRecord> {
  requireWorkspace(workspaceId);
  return allowInactive ? deps.listings.resolve(workspaceId, id) : deps.listings.resolveActive(workspaceId, id);
}

export async function createListing(deps: ListingDeps, workspaceId: string, input: NewListingInput, inactive: boolean): Promise<ListingRecord> {
  const { store, listings, outbox } = deps;
  requireWorkspace(workspaceId);
  if (!input.name.trim()) throw validationFailed({ 'listing.name': 'is required' });
  const now = new Date();
  const record: ListingRecord = {
    id: newId('lst'),
    workspaceId,
    name: input.name.trim(),
    status: inactive ? 'inactive' : 'active',
    channels: input.channels.map((c) => ({ channel: c.channel, externalId: c.externalId })),
    address: { ...input.address },
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
      if (record.status === 'active') await listings.reserveActiveSlots(workspaceId, 1, tx);
      const saved = await listings.insert(record, tx);
      await recordActivity(outbox, tx, [activityChanged(saved, inactive ? 'imported_unlisted' : 'created', now)]);
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
  outbox.flushSoon();
  return created;
}

export async function setWorkspacePlan(deps: ListingDeps, workspaceId: string, activeListingLimit: number) {
  requireWorkspace(workspaceId);
  if (!Number.isInteger(activeListingLimit) || activeListingLimit < 0) {
    throw validationFailed({ activeListingLimit: 'must be a non-negative integer' });
  }
  await deps.listings.setLimit(workspaceId, activeListingLimit);
  return getWorkspaceUsage(deps, workspaceId);
}

export async function getWorkspaceUsage(deps: ListingDeps, workspaceId: string) {
  requireWorkspace(workspaceId);
  const plan = await deps.listings.plan(workspaceId);
  return usageOf(plan, await deps.listings.countByStatus(workspaceId, 'inactive'));
}

export interface SetListingsActiveInput {
  workspaceId: string;
  listingIds: string[];
  active: boolean;
  /** If-Match of a toggle of one listing (0: none). */
  expectedVersion: number;
}

/** An owner toggle; a key already applied answers the first outcome (which listings it changed). */
export async function setListingsActive(
  deps: ListingDeps,
  input: SetListingsActiveInput,
  key: RequestKey | null,
): Promise<ActivityOutcomeIds & { listings: ListingRecord[] }> {
  const { workspaceId, listingIds, active, expectedVersion } = input;
  requireWorkspace(workspaceId);
  if (listingIds.length === 0) throw validationFailed({ listingIds: 'must name at least one listing' });
  if (listingIds.length > MAX_PAGE_LIMIT) throw validationFailed({ listingIds: `must name at most ${MAX_PAGE_LIMIT} listings` });
  if (expectedVersion && listingIds.length !== 1) throw validationFailed({ expectedVersion: 'applies to exactly one listing' });
  return deps.applied.once(
    key,
    async () => {
      const outcome = await setActive(deps, { workspaceId, ids: listingIds, active, reason: 'owner', expectedVersion, key });
      // The listings as written: a dry run's transaction is rolled back, so a later read would not show them.
      return { ...activityOutcomeIds(outcome), listings: [...outcome.updated, ...outcome.unchanged] };
    },
    async (result) => ({ ...(JSON.parse(result) as ActivityOutcomeIds), listings: [] }),
  );
}

export async function deactivateConnectionListings(deps: ListingDeps, workspaceId: string, pmsProvider: string, pmsExternalIds: string[]): Promise<string[]> {
  requireWorkspace(workspaceId);
  if (!pmsProvider) throw validationFailed({ pmsProvider: 'is required' });
  const changed = await deactivatePmsAccount(deps, workspaceId, pmsProvider, pmsExternalIds);
  return changed.map((l) => l.id);
}

export async function resolveListings(deps: ListingDeps, workspaceId: string, ids: string[]): Promise<ListingRecord[]> {
  requireWorkspace(workspaceId);
  return deps.listings.findAll(workspaceId, ids);
}

export async function findPmsListing(
  deps: ListingDeps,
  workspaceId: string,
  provider: string,
  externalId: string,
): Promise<{ listing: ListingRecord | null; deleted: boolean }> {
  requireWorkspace(workspaceId);
  if (!provider || !externalId)
    throw validationFailed({ ...(provider ? {} : { provider: 'is required' }), ...(externalId ? {} : { externalId: 'is required' }) });
  const found = await pmsListingStore(deps.listings).findByPmsId(workspaceId, provider, externalId);
  if (found) return { listing: found, deleted: false };
  // Every import records the PMS listing's sync mark in the same transaction as the listing,
  // and deletion keeps the mark: a mark without a listing is a listing the workspace deleted.
  return { listing: null, deleted: (await deps.marks.get(workspaceId, provider, externalId)) !== null };
}
