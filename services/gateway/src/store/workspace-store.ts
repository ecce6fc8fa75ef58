// Workspace queries, written once as Mongo documents for both engines.
import type { Collection, DocumentStore, Tx } from '@vrp/platform/store';
import type { RateLimitOverrides } from '../domain/rate-limits';
import { workspaceNameKey, type Workspace } from '../domain/workspace';
import { readCacheOf, type ReadCache } from './read-cache';
import { workspaceSchema } from './schemas';

/** Entries of one workspace cache at most (least recently used first out). */
export const WORKSPACE_CACHE_MAX_ENTRIES = 10_000;

type WorkspaceDoc = {
  _id: string;
  name: string;
  nameKey: string;
  activeListingLimit: number;
  rateLimits?: RateLimitOverrides | null;
  createdAt: Date;
  updatedAt: Date;
};

/** A stored sub-document may carry nulls or nothing for fields never set. */
function withoutUnset(limits: RateLimitOverrides | null | undefined): RateLimitOverrides {
  return Object.fromEntries(Object.entries(limits ?? {}).filter(([, v]) => typeof v === 'number')) as RateLimitOverrides;
}

const toWorkspace = (doc: WorkspaceDoc): Workspace => ({
  id: doc._id,
  name: doc.name,
  activeListingLimit: doc.activeListingLimit,
  rateLimits: withoutUnset(doc.rateLimits),
  createdAt: doc.createdAt,
  updatedAt: doc.updatedAt,
});

export class WorkspaceStore {
  private readonly workspaces: Collection<WorkspaceDoc>;
  /**
   * Workspaces read on the request path (the plan's rate limits of every API-key request), kept
   * for `cacheTtlMs` (API_KEY_CACHE_TTL_MS; 0 = off) in a bounded LRU of the gateway instance
   * (`cacheScope`). A plan change evicts the workspace before and after its write, so it applies
   * on the next request of the gateway that made it; every other replica sees it when its entry
   * expires, within the TTL.
   */
  private readonly cache: ReadCache<Workspace>;

  constructor(
    store: DocumentStore,
    private readonly opts: { cacheTtlMs?: number; now?: () => number; cacheScope?: object } = {},
  ) {
    this.workspaces = store.collection<WorkspaceDoc>({ name: 'workspaces', schema: workspaceSchema });
    this.cache = readCacheOf(opts.cacheScope ?? store, 'workspaces', WORKSPACE_CACHE_MAX_ENTRIES);
  }

  /** The workspace, from the cache while its entry is fresh (admission of a request). */
  getCached(id: string): Promise<Workspace | null> {
    return this.cache.read(id, this.opts.cacheTtlMs ?? 0, this.opts.now ?? Date.now, () => this.get(id));
  }

  async insert(ws: Workspace, tx?: Tx): Promise<Workspace> {
    const doc = await this.workspaces.insertOne(
      {
        _id: ws.id,
        name: ws.name,
        nameKey: workspaceNameKey(ws.name),
        activeListingLimit: ws.activeListingLimit,
        rateLimits: ws.rateLimits,
        createdAt: ws.createdAt,
        updatedAt: ws.updatedAt,
      },
      { tx },
    );
    return toWorkspace(doc);
  }

  async get(id: string): Promise<Workspace | null> {
    const doc = await this.workspaces.findOne({ _id: id });
    return doc ? toWorkspace(doc) : null;
  }

  /** The oldest workspace with this name (names are not unique; the bootstrap reuses the first). */
  async findByName(name: string): Promise<Workspace | null> {
    const doc = await this.workspaces.findOne({ nameKey: workspaceNameKey(name) }, { sort: { createdAt: 1, _id: 1 } });
    return doc ? toWorkspace(doc) : null;
  }

  /** Replaces the plan's rate limit overrides (the caller merged them). */
  async setRateLimits(id: string, rateLimits: RateLimitOverrides, now: Date): Promise<Workspace | null> {
    const doc = await this.cache.around(
      (key) => key === id,
      () => this.workspaces.findOneAndUpdate({ _id: id }, { $set: { rateLimits, updatedAt: now } }, { returnDocument: 'after' }),
    );
    return doc ? toWorkspace(doc) : null;
  }

  async setActiveListingLimit(id: string, activeListingLimit: number, now: Date): Promise<Workspace | null> {
    const doc = await this.cache.around(
      (key) => key === id,
      () => this.workspaces.findOneAndUpdate({ _id: id }, { $set: { activeListingLimit, updatedAt: now } }, { returnDocument: 'after' }),
    );
    return doc ? toWorkspace(doc) : null;
  }
}
