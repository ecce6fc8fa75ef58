// Per-connection sync health (docs/operations.md, "PMS sync health"): read a connection's health
// for the admin API, fold the owning services' reports in, and give the metrics a bounded view.
import { notFound } from '@vrp/platform/errors';
import { requireId, requireWorkspace } from '@vrp/platform/paging';
import type { ConnectionRecord } from '../domain/connection';
import { syncHealthOf, type SyncHealthView } from '../domain/sync-health';
import type { ConnectionStore } from '../store/connection-store';
import type { Outcome, SyncHealthStore } from '../store/sync-health-store';

export class SyncHealth {
  constructor(private readonly deps: { connections: ConnectionStore; health: SyncHealthStore; now?: () => Date }) {}

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  /** The connection and its health; not_found when the workspace has no such connection. */
  async of(workspaceId: string, connectionId: string): Promise<{ connection: ConnectionRecord; health: SyncHealthView }> {
    requireWorkspace(workspaceId);
    requireId(connectionId, 'connectionId');
    const connection = await this.deps.connections.get(workspaceId, connectionId);
    if (!connection) throw notFound('PMS connection', connectionId);
    return { connection, health: await this.view({ id: connection.id, workspaceId, provider: connection.provider }) };
  }

  private async view(ref: { id: string; workspaceId: string; provider: string }): Promise<SyncHealthView> {
    const [counters, backlog] = await Promise.all([this.deps.health.counters(ref), this.deps.health.backlog(ref.id)]);
    return syncHealthOf(counters, backlog, this.now());
  }

  /** One outcome reported on pms.sync.outcomes.v1 (idempotent). */
  record(outcome: Outcome): Promise<void> {
    return this.deps.health.apply(outcome);
  }

  /** The health of every connection that has synced, connected ones only (the metrics). */
  async all(): Promise<SyncHealthView[]> {
    const counters = await this.deps.health.all();
    const views: SyncHealthView[] = [];
    for (const c of counters) {
      const connection = await this.deps.connections.get(c.workspaceId, c.connectionId);
      if (connection?.status !== 'connected') continue;
      views.push(syncHealthOf(c, await this.deps.health.backlog(c.connectionId), this.now()));
    }
    return views;
  }
}
