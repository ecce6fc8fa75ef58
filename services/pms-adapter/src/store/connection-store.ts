// Queries of the pms-adapter service, written once as Mongo documents for both engines.
import { AppError } from '@vrp/platform/errors';
import { DuplicateKeyError, type Collection, type DocumentStore, type Tx } from '@vrp/platform/store';
import { INITIAL_CURSOR, type ConnectionRecord, type ConnectionStatus, type PmsProvider } from '../domain/connection';
import { connectionSchema, listingRefSchema } from './schemas';

type ConnectionDoc = Omit<ConnectionRecord, 'id'> & { _id: string; [field: string]: unknown };
type ListingRefDoc = { _id: string; workspaceId: string; provider: PmsProvider; connectionId: string; listingExternalId: string; [field: string]: unknown };

const toRecord = ({ _id, ...rest }: ConnectionDoc): ConnectionRecord => ({ id: _id, ...rest, cursor: rest.cursor ?? INITIAL_CURSOR });

export class ConnectionStore {
  readonly connections: Collection<ConnectionDoc>;
  readonly listingRefs: Collection<ListingRefDoc>;

  constructor(readonly store: DocumentStore) {
    this.connections = store.collection<ConnectionDoc>({ name: 'connections', schema: connectionSchema });
    this.listingRefs = store.collection<ListingRefDoc>({ name: 'listing_refs', schema: listingRefSchema });
  }

  /** All of a workspace's connections (a handful per workspace, so no paging). */
  async list(workspaceId: string): Promise<ConnectionRecord[]> {
    const docs = await this.connections.find({ workspaceId }, { sort: { createdAt: 1, _id: 1 } });
    return docs.map(toRecord);
  }

  async insert(connection: ConnectionRecord, tx?: Tx): Promise<ConnectionRecord> {
    const { id, ...rest } = connection;
    try {
      return toRecord(await this.connections.insertOne({ _id: id, ...rest }, { tx }));
    } catch (err) {
      // A raw DuplicateKeyError would reach the gRPC layer as internal_error.
      if (err instanceof DuplicateKeyError) {
        throw new AppError('conflict', `This workspace is already connected to ${connection.provider} account '${connection.accountId}'.`);
      }
      throw err;
    }
  }

  async get(workspaceId: string, id: string, tx?: Tx): Promise<ConnectionRecord | null> {
    const doc = await this.connections.findOne({ _id: id, workspaceId }, { tx });
    return doc ? toRecord(doc) : null;
  }

  async byAccount(workspaceId: string, provider: PmsProvider, accountId: string): Promise<ConnectionRecord | null> {
    const doc = await this.connections.findOne({ workspaceId, provider, accountId });
    return doc ? toRecord(doc) : null;
  }

  /** Sets the status; reconnecting also rewinds the cursor so the account is imported again. */
  async setStatus(workspaceId: string, id: string, status: ConnectionStatus): Promise<ConnectionRecord | null> {
    const set: Record<string, unknown> = { status };
    if (status === 'connected') set.cursor = INITIAL_CURSOR;
    const doc = await this.connections.findOneAndUpdate({ _id: id, workspaceId }, { $set: set }, { returnDocument: 'after' });
    return doc ? toRecord(doc) : null;
  }

  /** Connected accounts of a workspace's PMS, oldest first. */
  async connectedOf(workspaceId: string, provider: PmsProvider): Promise<ConnectionRecord[]> {
    const docs = await this.connections.find({ workspaceId, provider, status: 'connected' }, { sort: { createdAt: 1, _id: 1 } });
    return docs.map(toRecord);
  }

  /** Every connected account of every workspace (the scheduled sync). */
  async allConnected(): Promise<ConnectionRecord[]> {
    const docs = await this.connections.find({ status: 'connected' }, { sort: { _id: 1 } });
    return docs.map(toRecord);
  }

  /**
   * Moves the cursor from `from` to `to` if the connection is still connected and still at
   * `from`: a concurrent sync of the same connection, or a disconnect, makes it return false
   * and the caller's transaction publishes nothing.
   */
  async advanceCursor(id: string, from: string, to: string, at: Date, tx: Tx): Promise<boolean> {
    const res = await this.connections.updateOne({ _id: id, status: 'connected', cursor: from }, { $set: { cursor: to, lastSyncedAt: at } }, { tx });
    return res.matchedCount === 1;
  }

  async recordListings(connection: ConnectionRecord, listingExternalIds: string[], tx: Tx): Promise<void> {
    const ids = [...new Set(listingExternalIds)];
    if (ids.length === 0) return;
    // Most syncs change listings already recorded: one read, then only the new ones are written.
    const known = new Set((await this.listingRefs.find({ _id: { $in: ids.map((l) => `${connection.id}:${l}`) } }, { tx })).map((r) => r.listingExternalId));
    const fresh = ids.filter((l) => !known.has(l));
    if (fresh.length === 0) return;
    await this.listingRefs.insertMany(
      fresh.map((listingExternalId) => ({
        _id: `${connection.id}:${listingExternalId}`,
        workspaceId: connection.workspaceId,
        provider: connection.provider,
        connectionId: connection.id,
        listingExternalId,
      })),
      { tx },
    );
  }

  /**
   * The listings (ids in the PMS) a connection imported that no other connected account of the
   * same PMS in the workspace manages too: what its disconnection deactivates.
   */
  async listingsOnlyManagedBy(connection: ConnectionRecord): Promise<string[]> {
    const mine = await this.listingRefs.find({ workspaceId: connection.workspaceId, connectionId: connection.id });
    const ids = mine.map((r) => r.listingExternalId);
    if (ids.length === 0) return [];
    const shared = await this.listingRefs.find({
      workspaceId: connection.workspaceId,
      provider: connection.provider,
      listingExternalId: { $in: ids },
      connectionId: { $ne: connection.id },
    });
    if (shared.length === 0) return ids;
    const connected = new Set(
      (
        await this.connections.find({ workspaceId: connection.workspaceId, _id: { $in: [...new Set(shared.map((r) => r.connectionId))] }, status: 'connected' })
      ).map((c) => c._id),
    );
    const stillManaged = new Set(shared.filter((r) => connected.has(r.connectionId)).map((r) => r.listingExternalId));
    return ids.filter((id) => !stillManaged.has(id));
  }

  /** The connections that imported a PMS listing (normally one). */
  async connectionIdsOfListing(workspaceId: string, provider: PmsProvider, listingExternalId: string): Promise<string[]> {
    const refs = await this.listingRefs.find({ workspaceId, provider, listingExternalId });
    return refs.map((r) => r.connectionId);
  }
}
