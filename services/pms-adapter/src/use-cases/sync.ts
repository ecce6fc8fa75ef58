// Sync use case: pull a connection's changes from its PMS page by page, and publish each page
// on pms.sync.v1 in one transaction with the cursor advance. Runs on a schedule and on demand;
// the syncs of one connection never overlap in this process, and the cursor's compare-and-set
// keeps two processes from publishing the same page twice.
import { AppError } from '@vrp/platform/errors';
import type { DocumentStore } from '@vrp/platform/store';
import type { Logger } from '@vrp/platform/logging';
import type { Outbox } from '@vrp/platform/outbox';
import type { ConnectionRecord } from '../domain/connection';
import { MalformedChange, normalizeChange, type NormalizedChange } from '../domain/normalize';
import { changeIdOf, recordSyncChanges } from '../publishers/sync-changes';
import type { ConnectorRegistry } from '../ports/pms-connector';
import type { ConnectionStore } from '../store/connection-store';
import type { SyncHealthStore } from '../store/sync-health-store';

export interface SyncOutcome {
  published: number;
  /** External ids of the listings whose changes were published (imports on connect). */
  listingExternalIds: string[];
}

export class Syncer {
  private readonly running = new Map<string, Promise<SyncOutcome>>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: DocumentStore,
    private readonly connections: ConnectionStore,
    private readonly outbox: Outbox,
    private readonly connectors: ConnectorRegistry,
    private readonly logger: Logger,
    /** Sync health: each pull's result and the changes published (docs/operations.md, "PMS sync health"). */
    private readonly health: SyncHealthStore,
    private readonly pageSize = 200,
  ) {}

  /** Syncs one connection; a call while it is already syncing waits for that sync, then runs again. */
  sync(connection: ConnectionRecord, outcome: SyncOutcome = { published: 0, listingExternalIds: [] }): Promise<SyncOutcome> {
    const previous = this.running.get(connection.id) ?? Promise.resolve(null);
    const next = previous
      .catch(() => null)
      .then(() => this.pull(connection.id, connection.workspaceId, outcome))
      .then(
        async (done) => {
          await this.recordPull(connection, null);
          return done;
        },
        async (err: unknown) => {
          await this.recordPull(connection, err);
          throw err;
        },
      )
      .finally(() => {
        if (this.running.get(connection.id) === next) this.running.delete(connection.id);
      });
    this.running.set(connection.id, next);
    return next;
  }

  /** The pull's result in the connection's sync health; a failure to record it is only logged. */
  private async recordPull(connection: ConnectionRecord, err: unknown): Promise<void> {
    const ref = { id: connection.id, workspaceId: connection.workspaceId, provider: connection.provider };
    const at = new Date();
    const write = err
      ? this.health.pullFailed(ref, { code: err instanceof AppError ? err.code : 'internal', message: err instanceof Error ? err.message : String(err), at })
      : this.health.pullSucceeded(ref, at);
    await write.catch((e: unknown) => this.logger.warn({ err: e, connectionId: connection.id }, 'the sync health of a connection could not be recorded'));
  }

  /**
   * Syncs one connection for at most `budgetMs` from the caller's point of view: a large backlog
   * keeps syncing in the background after the call returns what was published so far (the
   * callers' gRPC deadline must not cut a sync, nor make an on-demand sync look failed). A
   * failure within the budget propagates; after it, it is logged and the next sync retries.
   */
  async syncWithin(connection: ConnectionRecord, budgetMs: number): Promise<SyncOutcome & { complete: boolean }> {
    const outcome: SyncOutcome = { published: 0, listingExternalIds: [] };
    const running = this.sync(connection, outcome);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), budgetMs);
    });
    try {
      const first = await Promise.race([running, timeout]);
      if (first !== 'timeout') return { ...first, complete: true };
      running.catch((err: unknown) => this.logger.warn({ err, connectionId: connection.id }, 'background part of a sync failed; the next sync retries'));
      return { published: outcome.published, listingExternalIds: [...outcome.listingExternalIds], complete: false };
    } finally {
      clearTimeout(timer);
    }
  }

  private async pull(id: string, workspaceId: string, outcome: SyncOutcome): Promise<SyncOutcome> {
    for (;;) {
      // Re-read each page: the cursor (and the status) are the store's, not the caller's copy.
      const connection = await this.connections.get(workspaceId, id);
      if (!connection || connection.status !== 'connected') return outcome;
      const page = await this.connectors.of(connection.provider).changes(connection.accountId, connection.cursor, this.pageSize);
      const changes: NormalizedChange[] = [];
      for (const raw of page.changes) {
        try {
          changes.push(normalizeChange(raw));
        } catch (err) {
          if (!(err instanceof MalformedChange)) throw err;
          // One entry the adapter cannot read must not stop the feed; it is logged for support.
          this.logger.warn({ connectionId: id, seq: raw.seq, reason: err.message }, 'skipping a PMS change that cannot be normalized');
        }
      }
      const listingIds = changes.filter((c) => c.entity === 'listing').map((c) => c.externalId);
      const readAt = new Date();
      const advanced = await this.store.transaction(async (tx) => {
        if (!(await this.connections.advanceCursor(id, connection.cursor, page.cursor, readAt, tx))) return false;
        await this.connections.recordListings(connection, listingIds, tx);
        await recordSyncChanges(this.outbox, tx, connection, changes);
        await this.health.published(
          connection,
          changes.map((c) => changeIdOf(connection, c.seq)),
          readAt,
          tx,
        );
        return true;
      });
      // Another sync moved the cursor, or the connection was disconnected meanwhile.
      if (!advanced) return outcome;
      outcome.published += changes.length;
      for (const l of listingIds) if (!outcome.listingExternalIds.includes(l)) outcome.listingExternalIds.push(l);
      if (changes.length > 0) await this.outbox.flush().catch((err: unknown) => this.logger.warn({ err }, 'outbox flush failed; the relay retries'));
      if (!page.hasMore || page.cursor === connection.cursor) return outcome;
    }
  }

  /** Syncs every connected account now; failures are logged, one PMS never blocks another. */
  async syncAll(): Promise<number> {
    let published = 0;
    const all = await this.connections.allConnected();
    await Promise.all(
      all.map(async (c) => {
        try {
          published += (await this.sync(c)).published;
        } catch (err) {
          this.logger.warn({ err, connectionId: c.id, provider: c.provider }, 'scheduled sync failed; the next run retries');
        }
      }),
    );
    return published;
  }

  /** The schedule: one pass every `intervalMs` (a pass still running delays the next). */
  start(intervalMs: number): void {
    if (intervalMs <= 0) return;
    const tick = () => {
      this.timer = setTimeout(() => {
        void this.syncAll().finally(() => {
          if (this.timer) tick();
        });
      }, intervalMs);
      this.timer.unref();
    };
    tick();
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await Promise.allSettled([...this.running.values()]);
  }
}
