// Connections of a workspace to PMS accounts: connect (the account must exist in the PMS before
// anything is stored; the first sync imports its listings), disconnect (the listings only this
// account managed go inactive), on-demand sync, and the list.
import { AppError, notFound, validationFailed } from '@vrp/platform/errors';
import { connectPlan, newConnection, requireProvider, type ConnectionRecord } from '../domain/connection';
import type { PmsAdapterDeps } from './deps';

/**
 * How long Connect and SyncNow wait for a sync before answering with what was published so far
 * (the rest keeps syncing in the background): well below the gateway's upstream deadline.
 */
export const SYNC_CALL_BUDGET_MS = 1500;

export type ConnectionsDeps = Pick<PmsAdapterDeps, 'connections' | 'connectors' | 'syncer' | 'listings'>;

export function listConnections(deps: ConnectionsDeps, workspaceId: string): Promise<ConnectionRecord[]> {
  return deps.connections.list(workspaceId);
}

export async function getConnection(deps: ConnectionsDeps, workspaceId: string, id: string): Promise<ConnectionRecord> {
  const found = await deps.connections.get(workspaceId, id);
  if (!found) throw notFound('PMS connection', id);
  return found;
}

export async function connect(
  deps: ConnectionsDeps,
  workspaceId: string,
  input: { provider: string; accountId: string },
): Promise<{ connection: ConnectionRecord; importedExternalIds: string[] }> {
  const { connections, connectors, syncer } = deps;
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

export async function disconnect(
  deps: ConnectionsDeps,
  workspaceId: string,
  id: string,
): Promise<{ connection: ConnectionRecord; deactivatedListingIds: string[] }> {
  const connection = await getConnection(deps, workspaceId, id);
  // Marked first, so that no sync publishes after the listings went inactive. Repeating a
  // disconnect repeats the deactivation, so a failed call can simply be retried.
  const updated = (await deps.connections.setStatus(workspaceId, connection.id, 'disconnected')) ?? connection;
  const pmsExternalIds = await deps.connections.listingsOnlyManagedBy(updated);
  const deactivatedListingIds = await deps.listings.deactivateConnectionListings(workspaceId, connection.provider, pmsExternalIds);
  return { connection: updated, deactivatedListingIds };
}

/** Syncs one connection (409 when it is disconnected), or every connected one of the workspace; returns the changes published. */
export async function syncNow(deps: ConnectionsDeps, workspaceId: string, connectionId: string): Promise<number> {
  let targets: ConnectionRecord[];
  if (connectionId) {
    const connection = await getConnection(deps, workspaceId, connectionId);
    if (connection.status !== 'connected') {
      throw new AppError('conflict', `Connection '${connection.id}' is disconnected; nothing to sync.`, {}, 'Connect the account again to resume syncing.');
    }
    targets = [connection];
  } else {
    targets = (await deps.connections.list(workspaceId)).filter((c) => c.status === 'connected');
  }
  let published = 0;
  const started = Date.now();
  for (const c of targets) published += (await deps.syncer.syncWithin(c, Math.max(1, SYNC_CALL_BUDGET_MS - (Date.now() - started)))).published;
  return published;
}
