// Workspace queries, written once as Mongo documents for both engines.
import type { Collection, DocumentStore, Tx } from '@vrp/platform';
import type { RateLimitOverrides } from '../domain/rate-limits';
import { workspaceNameKey, type Workspace } from '../domain/workspace';
import { workspaceSchema } from './schemas';

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

  constructor(store: DocumentStore) {
    this.workspaces = store.collection<WorkspaceDoc>({ name: 'workspaces', schema: workspaceSchema });
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
    const doc = await this.workspaces.findOneAndUpdate({ _id: id }, { $set: { rateLimits, updatedAt: now } }, { returnDocument: 'after' });
    return doc ? toWorkspace(doc) : null;
  }

  async setActiveListingLimit(id: string, activeListingLimit: number, now: Date): Promise<Workspace | null> {
    const doc = await this.workspaces.findOneAndUpdate({ _id: id }, { $set: { activeListingLimit, updatedAt: now } }, { returnDocument: 'after' });
    return doc ? toWorkspace(doc) : null;
  }
}
