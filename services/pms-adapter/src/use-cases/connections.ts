// Connections of a workspace to PMS accounts: connect (the account must exist in the PMS before
// anything is stored; the first sync imports its listings), disconnect (the listings only this
// account managed go inactive), on-demand sync, and the list.
import { AppError, notFound, validationFailed } from '@vrp/platform/errors';
import { connectPlan, newConnection, requireProvider, type ConnectionRecord } from '../domain/connection';
import type { ListingsPort } from '../ports/listings';
import type { ConnectorRegistry } from '../ports/pms-connector';
import type { ConnectionStore } from '../store/connection-store';
import type { Syncer } from './sync';

/**
 * How long Connect and SyncNow wait for a sync before answering with what was published so far
 * (the rest keeps syncing in the background): well below the gateway's upstream deadline.
 */
export const SYNC_CALL_BUDGET_MS = 1500;

export interface ConnectionsDeps {
  connections: ConnectionStore;
  connectors: ConnectorRegistry;
  syncer: Syncer;
  listings: ListingsPort;
}

export class Connections {
  constructor(private readonly deps: ConnectionsDeps) {}

  list(workspaceId: string): Promise<ConnectionRecord[]> {
    return this.deps.connections.list(workspaceId);
  }

  async get(workspaceId: string, id: string): Promise<ConnectionRecord> {
    const found = await this.deps.connections.get(workspaceId, id);
    if (!found) throw notFound('PMS connection', id);
    return found;
  }

  async connect(workspaceId: string, input: { provider: string; accountId: string }): Promise<{ connection: ConnectionRecord; importedExternalIds: string[] }> {
    const { connections, connectors, syncer } = this.deps;
    const provider = requireProvider(input.provider);
    if (!input.accountId.trim()) throw validationFailed({ accountId: 'is required' });
    const accountId = input.accountId.trim();
    // The account must exist in the PMS (and the PMS answer) before anything is stored.
    await connectors.of(provider).account(accountId);
    const existing = await connections.byAccount(workspaceId, provider, accountId);
    let connection: ConnectionRecord;
    switch (connectPlan(existing)) {
      case 'create':
        connection = await connections.insert(newConnection(workspaceId, provider, accountId, new Date()));
        break;
      case 'reconnect':
        connection = (await connections.setStatus(workspaceId, existing!.id, 'connected'))!;
        break;
      default:
        connection = existing!;
    }
    // The import: the first sync publishes every listing of the account (unlisted ones are
    // created inactive by the listing service).
    const outcome = await syncer.syncWithin(connection, SYNC_CALL_BUDGET_MS);
    const current = (await connections.get(workspaceId, connection.id)) ?? connection;
    return { connection: current, importedExternalIds: outcome.listingExternalIds };
  }

  async disconnect(workspaceId: string, id: string): Promise<{ connection: ConnectionRecord; deactivatedListingIds: string[] }> {
    const connection = await this.get(workspaceId, id);
    // Marked first, so that no sync publishes after the listings went inactive. Repeating a
    // disconnect repeats the deactivation, so a failed call can simply be retried.
    const updated = (await this.deps.connections.setStatus(workspaceId, connection.id, 'disconnected')) ?? connection;
    const pmsExternalIds = await this.deps.connections.listingsOnlyManagedBy(updated);
    const deactivatedListingIds = await this.deps.listings.deactivateConnectionListings(workspaceId, connection.provider, pmsExternalIds);
    return { connection: updated, deactivatedListingIds };
  }

  /** Syncs one connection (409 when it is disconnected), or every connected one of the workspace; returns the changes published. */
  async syncNow(workspaceId: string, connectionId: string): Promise<number> {
    let targets: ConnectionRecord[];
    if (connectionId) {
      const connection = await this.get(workspaceId, connectionId);
      if (connection.status !== 'connected') {
        throw new AppError('conflict', `Connection '${connection.id}' is disconnected; nothing to sync.`, {}, 'Connect the account again to resume syncing.');
      }
      targets = [connection];
    } else {
      targets = (await this.deps.connections.list(workspaceId)).filter((c) => c.status === 'connected');
    }
    let published = 0;
    const started = Date.now();
    for (const c of targets) published += (await this.deps.syncer.syncWithin(c, Math.max(1, SYNC_CALL_BUDGET_MS - (Date.now() - started)))).published;
    return published;
  }
}
