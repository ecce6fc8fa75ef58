// Queries of a connection's sync health (docs/architecture.md, "Per-connection sync health"):
// the counters per connection and the changes published but not settled, written once as Mongo
// documents for both engines. Every outcome is counted once per change: its transition of the
// change document (pending -> removed, pending -> dead_lettered, failed false -> true) guards the
// counter's $inc in the same transaction, so redelivered outcomes change nothing.
import type { Collection, DocumentStore, Tx } from '@vrp/platform/store';
import { emptyCounters, type SyncBacklog, type SyncCounters, type SyncError } from '../domain/sync-health';
import { syncChangeSchema, syncHealthSchema } from './schemas';

type HealthDoc = Partial<Omit<SyncCounters, 'connectionId'>> & { _id: string; workspaceId: string; provider: string; [field: string]: unknown };
type ChangeDoc = {
  _id: string;
  connectionId: string;
  workspaceId: string;
  readAt: Date;
  status: 'pending' | 'dead_lettered';
  failed: boolean;
  [field: string]: unknown;
};

export type OutcomeKind = 'applied' | 'failed' | 'dead_lettered' | 'discarded';

export interface Outcome {
  changeId: string;
  connectionId: string;
  service: string;
  outcome: OutcomeKind;
  errorCode: string;
  errorMessage: string;
  at: Date;
}

const toCounters = (doc: HealthDoc): SyncCounters => ({
  ...emptyCounters({ connectionId: doc._id, workspaceId: doc.workspaceId, provider: doc.provider }),
  lastSuccessfulSyncAt: doc.lastSuccessfulSyncAt ?? null,
  lastAttemptAt: doc.lastAttemptAt ?? null,
  consecutiveFailures: doc.consecutiveFailures ?? 0,
  published: doc.published ?? 0,
  applied: doc.applied ?? 0,
  failed: doc.failed ?? 0,
  deadLettered: doc.deadLettered ?? 0,
  lastError: doc.lastError ?? null,
});

export interface ConnectionRef {
  id: string;
  workspaceId: string;
  provider: string;
}

export class SyncHealthStore {
  readonly health: Collection<HealthDoc>;
  readonly changes: Collection<ChangeDoc>;

  constructor(readonly store: DocumentStore) {
    this.health = store.collection<HealthDoc>({ name: 'sync_health', schema: syncHealthSchema });
    this.changes = store.collection<ChangeDoc>({ name: 'sync_changes', schema: syncChangeSchema });
  }

  private ensure(c: ConnectionRef) {
    return { workspaceId: c.workspaceId, provider: c.provider };
  }

  /**
   * Changes published for the connection, in the transaction that publishes them. A change
   * published again (a reconnect rewinds the cursor) is pending again unless it is still
   * pending or dead-lettered; only new ones count as published.
   */
  async published(c: ConnectionRef, changeIds: string[], readAt: Date, tx: Tx): Promise<void> {
    let added = 0;
    for (const id of changeIds) {
      const res = await this.changes.updateOne(
        { _id: id },
        { $setOnInsert: { connectionId: c.id, workspaceId: c.workspaceId, readAt, status: 'pending', failed: false } },
        { upsert: true, tx },
      );
      if (res.upsertedId) added += 1;
    }
    if (added > 0) await this.health.updateOne({ _id: c.id }, { $inc: { published: added }, $setOnInsert: this.ensure(c) }, { upsert: true, tx });
  }

  /** A pull of the PMS's change feed completed. */
  async pullSucceeded(c: ConnectionRef, at: Date): Promise<void> {
    await this.health.updateOne(
      { _id: c.id },
      { $set: { lastSuccessfulSyncAt: at, lastAttemptAt: at, consecutiveFailures: 0 }, $setOnInsert: this.ensure(c) },
      { upsert: true },
    );
  }

  /** A pull of the PMS's change feed failed with `error`. */
  async pullFailed(c: ConnectionRef, error: Omit<SyncError, 'source' | 'service' | 'changeId'>): Promise<void> {
    const lastError: SyncError = { source: 'pms', service: '', changeId: '', ...error };
    await this.health.updateOne(
      { _id: c.id },
      { $set: { lastAttemptAt: error.at, lastError }, $inc: { consecutiveFailures: 1 }, $setOnInsert: this.ensure(c) },
      { upsert: true },
    );
  }

  /** Folds one reported outcome in, once per change and kind. */
  async apply(o: Outcome): Promise<void> {
    await this.store.transaction(async (tx) => {
      const lastError: SyncError = { source: 'apply', code: o.errorCode, message: o.errorMessage, at: o.at, service: o.service, changeId: o.changeId };
      switch (o.outcome) {
        case 'applied': {
          const { deletedCount } = await this.changes.deleteOne({ _id: o.changeId, connectionId: o.connectionId }, { tx });
          if (deletedCount) await this.health.updateOne({ _id: o.connectionId }, { $inc: { applied: 1 } }, { tx });
          return;
        }
        case 'failed': {
          const res = await this.changes.updateOne({ _id: o.changeId, connectionId: o.connectionId, failed: false }, { $set: { failed: true } }, { tx });
          if (res.modifiedCount) await this.health.updateOne({ _id: o.connectionId }, { $inc: { failed: 1 }, $set: { lastError } }, { tx });
          return;
        }
        case 'dead_lettered': {
          const res = await this.changes.updateOne(
            { _id: o.changeId, connectionId: o.connectionId, status: 'pending' },
            { $set: { status: 'dead_lettered' } },
            { tx },
          );
          if (res.modifiedCount) await this.health.updateOne({ _id: o.connectionId }, { $inc: { deadLettered: 1 }, $set: { lastError } }, { tx });
          return;
        }
        case 'discarded':
          await this.changes.deleteOne({ _id: o.changeId, connectionId: o.connectionId, status: 'dead_lettered' }, { tx });
          return;
      }
    });
  }

  async counters(c: ConnectionRef): Promise<SyncCounters> {
    const doc = await this.health.findOne({ _id: c.id });
    return doc ? toCounters(doc) : emptyCounters({ connectionId: c.id, ...this.ensure(c) });
  }

  /** Every connection's counters (the metrics). */
  async all(): Promise<SyncCounters[]> {
    return (await this.health.find({})).map(toCounters);
  }

  async backlog(connectionId: string): Promise<SyncBacklog> {
    const [oldest, pending, deadLettersOpen] = await Promise.all([
      this.changes.find({ connectionId, status: 'pending' }, { sort: { readAt: 1 }, limit: 1 }),
      this.changes.countDocuments({ connectionId, status: 'pending' }),
      this.changes.countDocuments({ connectionId, status: 'dead_lettered' }),
    ]);
    return { oldestPendingAt: oldest[0]?.readAt ?? null, pending, deadLettersOpen };
  }
}
