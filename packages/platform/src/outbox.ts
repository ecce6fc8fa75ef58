// Transactional outbox: a service writes its events into its own `outbox` collection in the
// same transaction as the change they describe, so no event is lost between a write and its
// publication. A relay publishes pending entries to the bus in creation order and marks them
// published; after a crash the next relay simply publishes what is still pending
// (at-least-once: consumers de-duplicate by event id).
//
// N replicas, one publisher: every replica runs a relay, but only the holder of the outbox
// lease (one document in `outbox_lease`: owner + expiry, taken with a guarded update) publishes.
// One publisher reading pending rows in `_id` order is what keeps per-key and per-topic order;
// two relays publishing the same rows at once would interleave them. The holder renews the
// lease before every publish call and gives up the pass as soon as a renewal fails; a relay
// whose holder crashed takes over once the lease has expired. A publish call is bounded by
// `publishTimeoutMs`, well below the lease, so a renewed lease outlives the call it covers.
//
// Retention: published rows are removed `retentionMs` after publication: on MongoDB by a TTL
// index on `publishedAt` (pending rows have `publishedAt: null` and never expire), and on both
// engines by the lease holder's periodic sweep (one deleteMany with the same rule), because
// the embedded engine has no TTL monitor.
import { Schema } from 'mongoose';
import { z } from 'zod';
import type { EventBus } from './bus/port';
import { newId, sortableIdAfter } from './ids';
import { isDryRun } from './context';
import type { Logger } from './logging';
import { DuplicateKeyError, type Collection, type DocumentStore, type Tx } from './store/port';

export interface OutboxEntry {
  _id: string;
  topic: string;
  key: string;
  /** Protobuf bytes, base64 (the same in both store engines). */
  value: string;
  headers: Record<string, string>;
  createdAt: Date;
  publishedAt: Date | null;
  [field: string]: unknown;
}

interface LeaseDoc {
  _id: string;
  owner: string;
  expiresAt: Date;
  [field: string]: unknown;
}

export interface OutboxOptions {
  /** Pending rows read and published per pass. */
  batchSize: number;
  /** How long the relay lease lasts without renewal; a crashed holder is replaced after it. */
  leaseMs: number;
  /** Time limit of one publish call; at most half the lease. */
  publishTimeoutMs: number;
  /** Published rows are removed this long after their publication (TTL index + sweep). */
  retentionMs: number;
  /** Identity of this relay in the lease document (unique per process). */
  relayId: string;
  /** The relay's clock (lease expiry, retention); tests inject a manual one. */
  now: () => Date;
  /** How often the lease holder passes over pending rows (OUTBOX_POLL_MS). */
  pollMs: number;
}

/** How often the lease holder passes over pending rows, and how often the other relays look at the lease. */
export const OUTBOX_POLL = { holderMs: 50, watcherMs: 1000 };

/** Defaults; OUTBOX_RETENTION_SECONDS and OUTBOX_LEASE_MS override them in a service process. */
export const DEFAULT_OUTBOX_OPTIONS: Omit<OutboxOptions, 'relayId' | 'now'> = {
  batchSize: 200,
  leaseMs: 15_000,
  publishTimeoutMs: 5_000,
  retentionMs: 24 * 3600 * 1000,
  pollMs: OUTBOX_POLL.holderMs,
};

/** The relay's settings in a service's config (docs/operations.md): retention of published rows, the lease, the holder's pass interval. */
export const outboxConfig = {
  OUTBOX_RETENTION_SECONDS: z.coerce.number().int().min(1).max(2_147_483_647).default(86_400).describe('how long published outbox rows are kept, s'),
  OUTBOX_LEASE_MS: z.coerce.number().int().min(2_000).default(15_000).describe('outbox relay lease, ms: a crashed relay is replaced after it'),
  OUTBOX_POLL_MS: z.coerce.number().int().min(10).max(10_000).default(50).describe('how often the outbox lease holder publishes what any replica wrote, ms'),
};

export function outboxOptionsFrom(c: { OUTBOX_RETENTION_SECONDS: number; OUTBOX_LEASE_MS: number; OUTBOX_POLL_MS: number }): Partial<OutboxOptions> {
  return {
    retentionMs: c.OUTBOX_RETENTION_SECONDS * 1000,
    leaseMs: c.OUTBOX_LEASE_MS,
    publishTimeoutMs: Math.floor(c.OUTBOX_LEASE_MS / 3),
    pollMs: c.OUTBOX_POLL_MS,
  };
}

const LEASE_ID = 'relay';

function outboxSchema(retentionSeconds: number): Schema {
  const schema = new Schema(
    {
      _id: { type: String, required: true },
      topic: { type: String, required: true },
      key: { type: String, required: true },
      value: { type: String, required: true },
      headers: { type: Schema.Types.Mixed, default: {} },
      createdAt: { type: Date, required: true },
      publishedAt: { type: Date, default: null },
    },
    { versionKey: false },
  );
  // The relay's scan: pending rows in creation order.
  schema.index({ publishedAt: 1, _id: 1 });
  // The latest row of a key, so that a new row sorts after it (see `add`).
  schema.index({ topic: 1, key: 1, _id: -1 });
  // MongoDB's TTL monitor removes published rows; a TTL index must be single-field, and a
  // null `publishedAt` (pending) never expires. Changing the retention of an existing
  // deployment needs `collMod` (docs/operations.md): createIndex cannot change it.
  schema.index({ publishedAt: 1 }, { expireAfterSeconds: retentionSeconds });
  return schema;
}

const leaseSchema = new Schema(
  {
    _id: { type: String, required: true },
    owner: { type: String, required: true },
    expiresAt: { type: Date, required: true },
  },
  { versionKey: false },
);

export interface OutboxMessage {
  topic: string;
  key: string;
  value: Uint8Array;
  headers?: Record<string, string>;
}

/** The lease was lost while publishing: stop the pass, the new holder goes on from the oldest pending row. */
class LeaseLost extends Error {
  constructor() {
    super('outbox relay lease lost');
    this.name = 'LeaseLost';
  }
}

export class Outbox {
  private readonly entries: Collection<OutboxEntry>;
  private readonly leases: Collection<LeaseDoc>;
  private readonly options: OutboxOptions;
  private draining: Promise<void> | null = null;
  private again = false;
  /** A pass is scheduled by flushSoon for the end of this turn. */
  private soon = false;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** Whether the last pass held the lease: the holder passes often, the others only watch for its expiry. */
  private holding = false;
  /** Expiry of the lease as this relay last wrote or read it while holding it (0: not held). */
  private heldUntil = 0;
  private lastSweep = 0;

  constructor(
    store: DocumentStore,
    private readonly bus: EventBus,
    private readonly logger: Logger,
    options: Partial<OutboxOptions> = {},
  ) {
    this.options = { ...DEFAULT_OUTBOX_OPTIONS, relayId: newId('relay'), now: () => new Date(), ...options };
    const { leaseMs, publishTimeoutMs, retentionMs, batchSize } = this.options;
    if (publishTimeoutMs * 2 > leaseMs) throw new Error('outbox: publishTimeoutMs must be at most half of leaseMs');
    if (retentionMs < 1000 || batchSize < 1) throw new Error('outbox: retentionMs must be at least 1 s and batchSize at least 1');
    this.entries = store.collection<OutboxEntry>({ name: 'outbox', schema: outboxSchema(Math.ceil(retentionMs / 1000)) });
    this.leases = store.collection<LeaseDoc>({ name: 'outbox_lease', schema: leaseSchema });
  }

  /** Records messages inside the caller's transaction. Call `flush()` after the commit. */
  async add(tx: Tx, messages: OutboxMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const now = this.options.now();
    // A row must sort after the previous row of its key even when this replica's clock is
    // behind the one that wrote it: writers of one key are serialized by their transactions
    // (they write the same aggregate), so the latest row of the key is visible here.
    const latest = new Map<string, string | null>();
    const rows: OutboxEntry[] = [];
    for (const m of messages) {
      const slot = `${m.topic}\u0000${m.key}`;
      if (!latest.has(slot)) {
        const [last] = await this.entries.find({ topic: m.topic, key: m.key }, { sort: { _id: -1 }, limit: 1, projection: { _id: 1 }, tx });
        latest.set(slot, last?._id ?? null);
      }
      const id = sortableIdAfter('obx', latest.get(slot) ?? null);
      latest.set(slot, id);
      rows.push({
        _id: id,
        topic: m.topic,
        key: m.key,
        value: Buffer.from(m.value).toString('base64'),
        headers: m.headers ?? {},
        createdAt: now,
        publishedAt: null,
      });
    }
    await this.entries.insertMany(rows, { tx });
  }

  /**
   * Publishes what was just committed, in one pass after the I/O callbacks of this turn of the
   * event loop: the commits of concurrent requests that complete together (one group commit)
   * share one pass, one publish call and one mark, instead of a pass each. Fire-and-forget: a
   * failed pass leaves the rows to the relay's timer.
   */
  flushSoon(): void {
    // A dry run committed nothing, and must not take the turn's pass from the requests that did.
    if (this.soon || this.stopped || isDryRun()) return;
    this.soon = true;
    setImmediate(() => {
      this.soon = false;
      // Stopped meanwhile: its lease is handed over, and a pass now would take it back.
      if (!this.stopped) this.flush().catch(() => undefined);
    });
  }

  /** Publishes everything pending if this relay holds the lease; concurrent calls coalesce into one more pass. */
  flush(): Promise<void> {
    // A dry run wrote nothing to publish, and a relay pass must not run in its context.
    if (isDryRun()) return Promise.resolve();
    if (this.draining) {
      this.again = true;
      return this.draining;
    }
    this.draining = (async () => {
      try {
        do {
          this.again = false;
          await this.drainOnce();
        } while (this.again && !this.stopped);
      } finally {
        this.draining = null;
      }
    })();
    return this.draining;
  }

  private async drainOnce(): Promise<void> {
    this.holding = await this.holdLease();
    if (!this.holding) return;
    try {
      await this.sweep();
      for (;;) {
        const batch = await this.entries.find({ publishedAt: null }, { sort: { _id: 1 }, limit: this.options.batchSize });
        if (batch.length > 0) await this.publishBatch(batch);
        if (batch.length < this.options.batchSize) break;
      }
    } catch (err) {
      if (err instanceof LeaseLost) {
        this.logger.warn({ relayId: this.options.relayId }, 'outbox relay lost its lease while publishing; another relay goes on');
        return;
      }
      throw err;
    }
  }

  private async publishBatch(batch: OutboxEntry[]): Promise<void> {
    // One publish per topic, in order; the bus keeps per-key order within a publish call.
    const byTopic = new Map<string, OutboxEntry[]>();
    for (const e of batch) byTopic.set(e.topic, [...(byTopic.get(e.topic) ?? []), e]);
    for (const [topic, entries] of byTopic) {
      // Renewed right before the call: the lease then outlives the (time-limited) call.
      if (!(await this.holdLease())) throw new LeaseLost();
      await this.publishWithin(
        topic,
        entries.map((e) => ({ key: e.key, value: Buffer.from(e.value, 'base64'), headers: { 'event-id': e._id, ...e.headers } })),
      );
      await this.entries.updateMany({ _id: { $in: entries.map((e) => e._id) }, publishedAt: null }, { $set: { publishedAt: this.options.now() } });
    }
  }

  private async publishWithin(topic: string, messages: { key: string; value: Uint8Array; headers: Record<string, string> }[]): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`outbox: publishing to ${topic} took longer than ${this.options.publishTimeoutMs} ms`)),
        this.options.publishTimeoutMs,
      );
    });
    try {
      await Promise.race([this.bus.publish(topic, messages), limit]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Takes or renews the lease: a guarded update that matches only when this relay holds it or
   * it has expired. When another relay holds a live lease, the upsert collides with the
   * existing document on `_id` (DuplicateKeyError), which means "not ours".
   */
  private async holdLease(): Promise<boolean> {
    const now = this.options.now();
    const { relayId, leaseMs } = this.options;
    // Held, and renewed less than publishTimeoutMs ago: no other relay can take it before it
    // expires, and what is left (more than leaseMs - publishTimeoutMs, at least twice a publish's
    // time limit) outlives the call it covers as a renewal now would. Neither a read nor a write
    // is needed: a relay passes several times a second under load, and only an expired lease
    // changes hands.
    const fresh = (expiresAt: number) => expiresAt - now.getTime() > leaseMs - this.options.publishTimeoutMs;
    if (fresh(this.heldUntil)) return true;
    this.heldUntil = 0;
    // The common case for every replica but one: a live lease held by another relay. A read
    // answers it without a failing write on every pass.
    const current = await this.leases.findOne({ _id: LEASE_ID });
    if (current && current.owner !== relayId && current.expiresAt > now) return false;
    if (current && current.owner === relayId && fresh(current.expiresAt.getTime())) {
      this.heldUntil = current.expiresAt.getTime();
      return true;
    }
    try {
      const lease = await this.leases.findOneAndUpdate(
        { _id: LEASE_ID, $or: [{ owner: relayId }, { expiresAt: { $lte: now } }] },
        { $set: { owner: relayId, expiresAt: new Date(now.getTime() + leaseMs) } },
        { upsert: true, returnDocument: 'after' },
      );
      if (lease?.owner !== relayId) return false;
      this.heldUntil = lease.expiresAt.getTime();
      return true;
    } catch (err) {
      if (err instanceof DuplicateKeyError) return false;
      throw err;
    }
  }

  /** Hands the lease over at once (graceful stop), instead of making the others wait for its expiry. */
  private async releaseLease(): Promise<void> {
    this.heldUntil = 0;
    await this.leases.updateOne({ _id: LEASE_ID, owner: this.options.relayId }, { $set: { expiresAt: this.options.now() } });
  }

  /** Removes rows published longer than the retention ago, at most once per tenth of the retention. */
  private async sweep(): Promise<void> {
    const now = this.options.now().getTime();
    const { retentionMs } = this.options;
    if (now - this.lastSweep < Math.min(retentionMs / 10, 60_000)) return;
    this.lastSweep = now;
    const { deletedCount } = await this.entries.deleteMany({ publishedAt: { $lt: new Date(now - retentionMs) } });
    if (deletedCount > 0) this.logger.debug({ deletedCount }, 'outbox: removed published rows past their retention');
  }

  /**
   * Periodic relay pass: publishes what a failed flush, a crash or another replica's writes left
   * pending. Another replica cannot hand its rows to the lease holder, so the holder passes every
   * `pollMs` (OUTBOX_POLL_MS, 50 ms): a write committed on any replica is published within about
   * that. The other replicas pass once a second, to take the lease over when it expires.
   */
  start(pollMs = this.options.pollMs): void {
    this.stopped = false;
    const pass = () => {
      this.timer = null;
      this.flush()
        .catch((err: unknown) => this.logger.warn({ err }, 'outbox relay could not publish; will retry'))
        .finally(() => {
          if (this.stopped) return;
          this.timer = setTimeout(pass, this.holding ? pollMs : Math.max(pollMs, OUTBOX_POLL.watcherMs));
          this.timer.unref();
        });
    };
    this.timer = setTimeout(pass, pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush().catch((err: unknown) => this.logger.warn({ err }, 'outbox relay could not publish at stop'));
    await this.releaseLease().catch((err: unknown) => this.logger.warn({ err }, 'outbox relay could not release its lease; it expires'));
  }

  /** Entries not yet published (for readiness details and tests). */
  pending(): Promise<number> {
    return this.entries.countDocuments({ publishedAt: null });
  }

  /** Every row still stored, published or not (for tests of the retention). */
  stored(): Promise<number> {
    return this.entries.countDocuments({});
  }
}
