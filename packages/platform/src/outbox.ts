// Transactional outbox: a service writes its events into its own `outbox` collection in the
// same transaction as the change they describe, so no event is lost between a write and its
// publication. A relay publishes pending entries to the bus in creation order and marks them
// published; after a crash it simply publishes what is still pending (at-least-once: consumers
// de-duplicate by event id).
import { Schema } from 'mongoose';
import type { EventBus } from './bus/port';
import { sortableId } from './ids';
import type { Logger } from './logging';
import type { Collection, DocumentStore, Tx } from './store/port';

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

const outboxSchema = new Schema(
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
outboxSchema.index({ publishedAt: 1, _id: 1 });

export interface OutboxMessage {
  topic: string;
  key: string;
  value: Uint8Array;
  headers?: Record<string, string>;
}

export class Outbox {
  private readonly entries: Collection<OutboxEntry>;
  private draining: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    store: DocumentStore,
    private readonly bus: EventBus,
    private readonly logger: Logger,
    private readonly batchSize = 200,
  ) {
    this.entries = store.collection<OutboxEntry>({ name: 'outbox', schema: outboxSchema });
  }

  /** Records messages inside the caller's transaction. Call `flush()` after the commit. */
  async add(tx: Tx, messages: OutboxMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const now = new Date();
    await this.entries.insertMany(
      messages.map((m) => ({
        _id: sortableId('obx'),
        topic: m.topic,
        key: m.key,
        value: Buffer.from(m.value).toString('base64'),
        headers: m.headers ?? {},
        createdAt: now,
        publishedAt: null,
      })),
      { tx },
    );
  }

  /** Publishes everything pending; concurrent calls coalesce into one more pass. */
  flush(): Promise<void> {
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
    for (;;) {
      const batch = await this.entries.find({ publishedAt: null }, { sort: { _id: 1 }, limit: this.batchSize });
      if (batch.length === 0) return;
      // One publish per topic, in order; the bus keeps per-key order within a publish call.
      const byTopic = new Map<string, OutboxEntry[]>();
      for (const e of batch) byTopic.set(e.topic, [...(byTopic.get(e.topic) ?? []), e]);
      for (const [topic, entries] of byTopic) {
        await this.bus.publish(
          topic,
          entries.map((e) => ({ key: e.key, value: Buffer.from(e.value, 'base64'), headers: { 'event-id': e._id, ...e.headers } })),
        );
      }
      await this.entries.updateMany({ _id: { $in: batch.map((e) => e._id) } }, { $set: { publishedAt: new Date() } });
      if (batch.length < this.batchSize) return;
    }
  }

  /** Periodic safety net: publishes entries left pending by a failed flush or a crash. */
  start(intervalMs = 1000): void {
    this.stopped = false;
    this.timer = setInterval(() => {
      this.flush().catch((err: unknown) => this.logger.warn({ err }, 'outbox relay could not publish; will retry'));
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush().catch((err: unknown) => this.logger.warn({ err }, 'outbox relay could not publish at stop'));
  }

  /** Entries not yet published (for readiness details and tests). */
  pending(): Promise<number> {
    return this.entries.countDocuments({ publishedAt: null });
  }
}
