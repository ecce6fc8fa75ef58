// Persistence of the embedded bus: topics, partition logs and committed offsets in one LMDB
// database (`bus` in the data directory's journal, or an environment of its own), written through
// the ordered group-commit queue of DurableEnv.
//
// Layout (lmdb-js ordered keys):
//   ['t', topic]                        -> { partitions, compacted }
//   ['m', topic, partition, offset]     -> [key, value, headers, timestamp]
//   ['o', group, topic, partition]      -> next offset to deliver (committed offset)
//
// A publish resolves once its messages are on disk, and consumers see a message only then (as a
// Kafka consumer sees only what is below the high watermark). Offsets are written in the same
// ordered queue, after the messages they follow, but not awaited: losing the last commits in a
// crash means a redelivery, which at-least-once allows. The offsets committed while one offsets
// entry waits in the queue join it, the latest per partition (as a Kafka consumer commits its
// latest offsets every few seconds rather than one per message).
//
// Retention, applied at every start: in each partition, the leading messages older than the
// retention period are deleted; in a compacted topic only those a later message with the same key
// supersedes, so the latest value of every key stays whatever its age. The last message of a
// partition always stays (it keeps the offset counter). Only a prefix is removed,
// so offsets stay contiguous; a group whose committed offset fell below the first kept message
// resumes at it (Kafka's auto.offset.reset=earliest).
import { decodeValue, DurableEnv, encodeValue, type CommitEntry, type Journal, type OwnEnvOptions } from '../persistence/lmdb';

export interface PersistedMessage {
  readonly key: string;
  readonly value: Uint8Array;
  readonly headers: Readonly<Record<string, string>>;
  readonly timestamp: string;
}

export interface PersistedTopic {
  name: string;
  partitions: number;
  compacted: boolean;
  /** Per partition: the offset of its first kept message, and the messages from there on. */
  logs: { start: number; messages: PersistedMessage[] }[];
}

export interface BusSnapshot {
  topics: PersistedTopic[];
  /** `offsetKey(group, topic, partition)` -> committed offset. */
  offsets: Map<string, number>;
}

export interface AppendedMessage {
  topic: string;
  partition: number;
  offset: number;
  message: PersistedMessage;
}

export interface BusPersistence {
  /** What is on disk, after applying the retention rule. */
  load(): BusSnapshot;
  saveTopic(topic: { name: string; partitions: number; compacted: boolean }): Promise<void>;
  /** Resolves once the messages are on disk; `onDurable` runs just before. */
  append(messages: AppendedMessage[], onDurable: () => void): Promise<void>;
  /** Queued behind the messages written before it; not awaited (see the header). */
  commitOffset(group: string, topic: string, partition: number, offset: number): void;
  /** Called synchronously when a write fails: everything not yet on disk is gone. */
  onFailure(handler: () => void): void;
  close(): Promise<void>;
}

export function offsetKey(group: string, topic: string, partition: number): string {
  return `${group}\u0000${topic}\u0000${partition}`;
}

/** Where it is written: the `bus` database of a data directory's journal, or an environment of its own. */
type BusPlace = { journal: Journal } | Pick<OwnEnvOptions, 'path' | 'readOnly'>;

export type BusPersistenceOptions = BusPlace & {
  /** Messages older than this may be deleted at start (see the header). */
  retentionMs: number;
  /** Told when an offset commit could not be written (the next one will carry it). */
  onOffsetError?: (error: unknown) => void;
  now?: () => number;
};

export function openBusPersistence(options: BusPersistenceOptions): BusPersistence {
  const failureHandlers: (() => void)[] = [];
  const onFailure = () => {
    for (const handler of failureHandlers) handler();
  };
  const env =
    'journal' in options
      ? new DurableEnv({ journal: options.journal, name: 'bus', label: 'bus', onFailure })
      : new DurableEnv({ path: options.path, label: 'bus', readOnly: options.readOnly ?? false, onFailure });
  const root = env.root;
  const now = options.now ?? Date.now;
  /** Offsets committed since the queued offsets entry was written (see commitOffset). */
  const pendingOffsets = new Map<string, { key: [string, string, string, number]; offset: number }>();
  let offsetsEntry: CommitEntry | null = null;

  return {
    load() {
      const cutoff = now() - options.retentionMs;
      const topics: PersistedTopic[] = [];
      const expired: unknown[][] = [];
      for (const { key, value } of root.getRange({ start: ['t'], end: ['t', '\uffff'] })) {
        const name = (key as [string, string])[1];
        const meta = decodeValue<{ partitions: number; compacted: boolean }>(value as Uint8Array);
        const logs: PersistedTopic['logs'] = [];
        for (let p = 0; p < meta.partitions; p++) {
          const messages: PersistedMessage[] = [];
          let start = -1;
          for (const entry of root.getRange({ start: ['m', name, p], end: ['m', name, p + 1] })) {
            const offset = (entry.key as [string, string, number, number])[3];
            const [k, v, headers, timestamp] = decodeValue<[string, Uint8Array, Record<string, string>, string]>(entry.value as Uint8Array);
            if (start === -1) start = offset;
            messages.push({ key: k, value: v, headers, timestamp });
          }
          const drop = expiredPrefix(messages, cutoff, meta.compacted);
          for (let i = 0; i < drop; i++) expired.push(['m', name, p, start + i]);
          logs.push({ start: start === -1 ? 0 : start + drop, messages: drop > 0 ? messages.slice(drop) : messages });
        }
        topics.push({ name, partitions: meta.partitions, compacted: meta.compacted, logs });
      }
      const offsets = new Map<string, number>();
      for (const { key, value } of root.getRange({ start: ['o'], end: ['o', '\uffff'] })) {
        const [, group, topic, partition] = key as [string, string, string, number];
        offsets.set(offsetKey(group, topic, partition), decodeValue<number>(value as Uint8Array));
      }
      if (expired.length > 0) {
        env
          .commit({
            write(db) {
              for (const key of expired) void db.remove(key as never);
            },
          })
          .catch((error: unknown) => options.onOffsetError?.(error));
      }
      return { topics, offsets };
    },
    // `void db.put/remove`: inside a commit entry they settle with the batch's transaction, whose
    // failure DurableEnv rejects the entry with (persistence/lmdb.ts, CommitEntry).
    saveTopic(topic) {
      return env.commit({
        write(db) {
          void db.put(['t', topic.name], encodeValue({ partitions: topic.partitions, compacted: topic.compacted }));
        },
      });
    },
    append(messages, onDurable) {
      return env.commit({
        write(db) {
          for (const m of messages) {
            void db.put(['m', m.topic, m.partition, m.offset], encodeValue([m.message.key, m.message.value, m.message.headers, m.message.timestamp]));
          }
        },
        onDurable,
      });
    },
    commitOffset(group, topic, partition, offset) {
      pendingOffsets.set(offsetKey(group, topic, partition), { key: ['o', group, topic, partition], offset });
      if (offsetsEntry) return;
      // Every offset committed until the entry is written joins it, the latest per partition.
      const entry: CommitEntry = {
        write(db) {
          if (offsetsEntry === entry) offsetsEntry = null;
          for (const { key, offset: next } of pendingOffsets.values()) void db.put(key, encodeValue(next));
          pendingOffsets.clear();
        },
      };
      offsetsEntry = entry;
      env.commit(entry).catch((error: unknown) => {
        // A batch that failed before this entry was written: the offsets wait for the next commit.
        if (offsetsEntry === entry) offsetsEntry = null;
        options.onOffsetError?.(error);
      });
    },
    onFailure(handler) {
      failureHandlers.push(handler);
    },
    close: () => env.close(),
  };
}

/** How many leading messages the retention rule removes (see the header). */
export function expiredPrefix(messages: readonly PersistedMessage[], cutoff: number, compacted: boolean): number {
  let latest: Map<string, number> | null = null;
  if (compacted) {
    latest = new Map();
    messages.forEach((m, i) => latest?.set(m.key, i));
  }
  let n = 0;
  // The last message always stays: it carries the partition's next offset across restarts.
  for (; n < messages.length - 1; n++) {
    const m = messages[n] as PersistedMessage;
    if (Number(m.timestamp) >= cutoff) break;
    if (latest && latest.get(m.key) === n) break;
  }
  return n;
}
