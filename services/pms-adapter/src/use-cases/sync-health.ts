// Per-connection sync health (docs/operations.md, "PMS sync health"): read a connection's health
// for the admin API, fold the owning services' reports in, and give the metrics a bounded view.
import { notFound } from '@vrp/platform/errors';
import { requireId, requireWorkspace } from '@vrp/platform/paging';
import type { ConnectionRecord } from '../domain/connection';
import { syncHealthOf, type SyncHealthView } from '../domain/sync-health';
import type { Outcome } from '../store/sync-health-store';
import type { PmsAdapterDeps } from './deps';

export type SyncHealthDeps = Pick<PmsAdapterDeps, 'connections' | 'health' | 'now'>;

function nowOf(deps: SyncHealthDeps): Date {
  return deps.now?.() ?? new Date();
}

/** The connection and its health; not_found when the workspace has no such connection. */
export async function connectionSyncHealth(
  deps: SyncHealthDeps,
  workspaceId: string,
  connectionId: string,
): Promise<{ connection: ConnectionRecord; health: SyncHealthView }> {
  requireWorkspace(workspaceId);
  requireId(connectionId, 'connectionId');
  const connection = await deps.connections.get(workspaceId, connectionId);
  if (!connection) throw notFound('PMS connection', connectionId);
  return { connection, health: await healthView(deps, { id: connection.id, workspaceId, provider: connection.provider }) };
}

async function healthView(deps: SyncHealthDeps, ref: { id: string; workspaceId: string; provider: string }): Promise<SyncHealthView> {
  const [counters, backlog] = await Promise.all([deps.health.counters(ref), deps.health.backlog(ref.id)]);
  return syncHealthOf(counters, backlog, nowOf(deps));
}

/** One outcome reported on pms.sync.outcomes.v1 (idempotent). */
export function recordSyncOutcome(deps: SyncHealthDeps, outcome: Outcome): Promise<void> {
  return deps.health.apply(outcome);
}

/** The health of every connection that has synced, connected ones only (the metrics). */
export async function allSyncHealth(deps: SyncHealthDeps): Promise<SyncHealthView[]> {
  const counters = await deps.health.all();
  const views: SyncHealthView[] = [];
  for (const c of counters) {
    const connection = await deps.connections.get(c.workspaceId, c.connectionId);
    if (connection?.status !== 'connected') continue;
    views.push(syncHealthOf(c, await deps.health.backlog(c.connectionId), nowOf(deps)));
  }
  return views;
}
