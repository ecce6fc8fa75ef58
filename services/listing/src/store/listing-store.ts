// Queries of the listing service, written once as Mongo documents for both engines.
import { AppError, notFound, listingInactive } from '@vrp/platform/errors';
import { findPage, type PageWindow } from '@vrp/platform/paging';
import type { Collection, DocumentStore, Tx } from '@vrp/platform/store';
import { DEFAULT_ACTIVE_LISTING_LIMIT, type ListingRecord, type ListingStatus, type WorkspacePlan } from '../domain/listing';
import type { PmsListingFields } from '../domain/pms-sync';
import { listingSchema, planSchema } from './schemas';

type ListingDoc = Omit<ListingRecord, 'id'> & { _id: string; aliases: string[]; [field: string]: unknown };
type PlanDoc = { _id: string; activeListingLimit: number; activeListings: number; [field: string]: unknown };

// Documents written before versions existed read as version 1.
const toRecord = ({ _id, aliases: _aliases, ...rest }: ListingDoc): ListingRecord => ({ id: _id, ...rest, version: rest.version ?? 1 });

export class ListingStore {
  readonly listings: Collection<ListingDoc>;
  readonly plans: Collection<PlanDoc>;

  constructor(readonly store: DocumentStore) {
    this.listings = store.collection<ListingDoc>({ name: 'listings', schema: listingSchema });
    this.plans = store.collection<PlanDoc>({ name: 'plans', schema: planSchema });
  }

  async page(workspaceId: string, statuses: ListingStatus[], window: PageWindow): Promise<{ items: ListingRecord[]; total: number }> {
    const { docs, total } = await findPage(this.listings, { workspaceId, status: { $in: statuses } }, { createdAt: 1, _id: 1 }, window);
    return { items: docs.map(toRecord), total };
  }

  /** A listing by its id or a mapped channel id; not_found when absent from the workspace. */
  async resolve(workspaceId: string, idOrChannelId: string, tx?: Tx): Promise<ListingRecord> {
    const doc = await this.listings.findOne({ workspaceId, aliases: idOrChannelId }, { tx });
    if (!doc) throw notFound('listing', idOrChannelId);
    return toRecord(doc);
  }

  /** Like resolve, but listing_inactive when the listing is inactive (docs/api.md, "Listings are active or inactive"). */
  async resolveActive(workspaceId: string, idOrChannelId: string): Promise<ListingRecord> {
    const listing = await this.resolve(workspaceId, idOrChannelId);
    if (listing.status === 'inactive') throw listingInactive([{ id: listing.id, name: listing.name }]);
    return listing;
  }

  async insert(listing: ListingRecord, tx: Tx): Promise<ListingRecord> {
    const { id, ...rest } = listing;
    const doc = await this.listings.insertOne({ _id: id, ...rest, aliases: [id, ...listing.channels.map((c) => c.externalId)] }, { tx });
    return toRecord(doc);
  }

  async plan(workspaceId: string, tx?: Tx): Promise<WorkspacePlan> {
    const doc = await this.plans.findOne({ _id: workspaceId }, { tx });
    return {
      workspaceId,
      activeListingLimit: doc?.activeListingLimit ?? DEFAULT_ACTIVE_LISTING_LIMIT,
      activeListings: doc?.activeListings ?? 0,
    };
  }

  async setLimit(workspaceId: string, activeListingLimit: number): Promise<void> {
    await this.plans.updateOne({ _id: workspaceId }, { $set: { activeListingLimit }, $setOnInsert: { activeListings: 0 } }, { upsert: true });
  }

  /**
   * Takes `count` active slots of the plan, atomically: the guarded update succeeds only while
   * active + count <= limit, so concurrent activations cannot both squeeze past the limit.
   */
  async reserveActiveSlots(workspaceId: string, count: number, tx: Tx): Promise<void> {
    if (count <= 0) return;
    await this.plans.updateOne(
      { _id: workspaceId },
      { $setOnInsert: { activeListingLimit: DEFAULT_ACTIVE_LISTING_LIMIT, activeListings: 0 } },
      { upsert: true, tx },
    );
    const updated = await this.plans.findOneAndUpdate(
      { _id: workspaceId, $expr: { $lte: [{ $add: ['$activeListings', count] }, '$activeListingLimit'] } },
      { $inc: { activeListings: count } },
      { tx },
    );
    if (!updated) {
      const plan = await this.plan(workspaceId, tx);
      throw new AppError(
        'listings_limit_exceeded',
        `The plan allows ${plan.activeListingLimit} active listings; ${plan.activeListings} are active, so ${count} more cannot be activated.`,
      );
    }
  }

  async releaseActiveSlots(workspaceId: string, count: number, tx: Tx): Promise<void> {
    if (count <= 0) return;
    await this.plans.updateOne({ _id: workspaceId }, { $inc: { activeListings: -count } }, { tx });
  }

  /** Every listing named (by id or channel id), or not_found naming the unknown ids. */
  async resolveAll(workspaceId: string, ids: string[], tx?: Tx): Promise<ListingRecord[]> {
    const unique = [...new Set(ids)];
    const docs = await this.listings.find({ workspaceId, aliases: { $in: unique } }, { tx });
    const byAlias = new Map<string, ListingRecord>();
    for (const doc of docs) for (const alias of doc.aliases) byAlias.set(alias, toRecord(doc));
    const missing = unique.filter((id) => !byAlias.has(id));
    if (missing.length === 1) throw notFound('listing', missing[0]!);
    if (missing.length > 1) throw new AppError('not_found', `No listings with ids ${missing.map((m) => `'${m}'`).join(', ')} exist in this workspace.`);
    return ids.map((id) => byAlias.get(id)!);
  }

  /** The listings among `ids` (ids or channel ids) that exist, in the order asked, once each. */
  async findAll(workspaceId: string, ids: string[]): Promise<ListingRecord[]> {
    const docs = await this.listings.find({ workspaceId, aliases: { $in: [...new Set(ids)] } });
    const byAlias = new Map<string, ListingRecord>();
    for (const doc of docs) for (const alias of doc.aliases) byAlias.set(alias, toRecord(doc));
    const seen = new Set<string>();
    const out: ListingRecord[] = [];
    for (const id of ids) {
      const l = byAlias.get(id);
      if (l && !seen.has(l.id)) {
        seen.add(l.id);
        out.push(l);
      }
    }
    return out;
  }

  /** Sets a listing's status if it is still `from`; bumps its activity version. */
  async setStatus(listing: ListingRecord, to: ListingStatus, tx: Tx): Promise<ListingRecord> {
    const doc = await this.listings.findOneAndUpdate(
      { _id: listing.id, workspaceId: listing.workspaceId, status: listing.status },
      { $set: { status: to, updatedAt: new Date() }, $inc: { activityVersion: 1, version: 1 } },
      { tx, returnDocument: 'after' },
    );
    // Only a concurrent change of the same listing gets here; the transaction is retried/undone.
    if (!doc) throw new AppError('conflict', `Listing '${listing.id}' changed while it was being updated; retry the request.`);
    return toRecord(doc);
  }

  async remove(listing: ListingRecord, tx: Tx): Promise<void> {
    await this.listings.deleteOne({ _id: listing.id, workspaceId: listing.workspaceId }, { tx });
  }

  /** The active listings of a PMS account: those it manages, by their ids in the PMS. */
  async activeOfPmsAccount(workspaceId: string, pmsProvider: string, pmsExternalIds: string[], tx?: Tx): Promise<ListingRecord[]> {
    if (pmsExternalIds.length === 0) return [];
    const filter = { workspaceId, pmsProvider, pmsExternalId: { $in: pmsExternalIds }, status: 'active' };
    const docs = await this.listings.find(filter, { tx, sort: { createdAt: 1, _id: 1 } });
    return docs.map(toRecord);
  }

  async markPublished(listing: ListingRecord, at: Date, tx?: Tx): Promise<void> {
    await this.listings.updateOne({ _id: listing.id, workspaceId: listing.workspaceId }, { $set: { publishedAt: at }, $inc: { version: 1 } }, { tx });
  }

  countByStatus(workspaceId: string, status: ListingStatus): Promise<number> {
    return this.listings.countDocuments({ workspaceId, status });
  }
}

// ---- PMS sync (appended for the pms.sync.v1 consumer) ----

export interface PmsListingStore {
  /** The listing a PMS knows as `pmsExternalId` in this workspace, or null. */
  findByPmsId(workspaceId: string, pmsProvider: string, pmsExternalId: string, tx?: Tx): Promise<ListingRecord | null>;
  /** Applies the PMS's fields; the status is never touched (activity is the owner's). */
  applyPmsFields(listing: ListingRecord, fields: PmsListingFields, tx: Tx): Promise<ListingRecord>;
}

export function pmsListingStore(listings: ListingStore): PmsListingStore {
  return {
    async findByPmsId(workspaceId, pmsProvider, pmsExternalId, tx) {
      const doc = await listings.listings.findOne({ workspaceId, pmsProvider, pmsExternalId }, { tx });
      return doc ? toRecord(doc) : null;
    },
    async applyPmsFields(listing, fields, tx) {
      const set: Record<string, unknown> = { ...fields, aliases: [listing.id, ...fields.channels.map((c) => c.externalId)], updatedAt: new Date() };
      for (const key of Object.keys(set)) if (set[key] === undefined) delete set[key];
      const doc = await listings.listings.findOneAndUpdate(
        { _id: listing.id, workspaceId: listing.workspaceId },
        { $set: set, $inc: { version: 1 } },
        { tx, returnDocument: 'after' },
      );
      if (!doc) throw new AppError('conflict', `Listing '${listing.id}' disappeared while a PMS change was applied.`);
      return toRecord(doc);
    },
  };
}
