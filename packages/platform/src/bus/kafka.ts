// Production engine: Kafka through kafkajs 2.2.x.
//
// Producer: idempotent, one request in flight, acks=all, kafkajs's DefaultPartitioner (Java
// murmur2, the same placement as the memory engine). Connected lazily on first publish.
//
// Consumers: one kafkajs consumer per subscribe(), autoCommit off. After the handler resolves
// the message's offset + 1 is committed (inside eachMessage, so the next message of that
// partition is only handed out after the commit). When the handler throws, nothing is
// committed and the error is rethrown to kafkajs: the runner abandons the batch and fetches
// again from the last resolved offset, i.e. the failed message (retrier backoff, 5 retries by
// default); once retries are exhausted the consumer crashes and restarts, rejoining at the
// committed offset - the same message again either way. The handler's error is wrapped in a
// retriable error because kafkajs treats TypeError/RangeError/... (and errors marked
// retriable: false) as fatal and would otherwise stop the consumer for good.
//
// ready: resolves after GROUP_JOIN *and* the first fetch after it has completed. kafkajs only
// resolves a new group's start offset ("latest" for fromBeginning=false) on that first fetch,
// so resolving on GROUP_JOIN alone would lose messages published right after `ready`.
// The consumer's fetch long-poll (maxWaitTimeInMs) is lowered to 1 s to keep that short.
//
// stop(): marks the subscription stopping (messages handed out afterwards are skipped and left
// uncommitted, so the group re-reads them), waits for the in-flight handler and its commit,
// then disconnects (kafkajs leaves the group).

import {
  Kafka,
  Partitioners,
  type Admin,
  type Consumer,
  type IHeaders,
  type ITopicConfig,
  type KafkaMessage,
  type logLevel,
  type Producer,
} from 'kafkajs';
import type { BusMessage, DeliveredMessage, EventBus, SubscribeOptions, Subscription, TopicSpec } from './port';

export interface KafkaBusOptions {
  brokers: string[];
  clientId: string;
  /** kafkajs log level (kafkajs default: INFO). */
  logLevel?: logLevel;
  /** Consumer fetch long-poll, kafkajs maxWaitTimeInMs. Default 1000 (kafkajs: 5000). */
  consumerMaxWaitMs?: number;
  /** Timeout of the ready() health check. Default 5000 ms. */
  healthTimeoutMs?: number;
}

/** Handler failure, marked retriable so kafkajs retries/restarts instead of giving up. */
export class BusHandlerError extends Error {
  readonly retriable = true;
  constructor(
    readonly topic: string,
    readonly partition: number,
    readonly offset: string,
    cause: unknown,
  ) {
    super(
      `bus handler failed on ${topic}/${partition}@${offset}: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
    this.name = 'BusHandlerError';
  }
}

export function createKafkaBus(opts: KafkaBusOptions): EventBus {
  if (opts.brokers.length === 0) throw new Error('createKafkaBus: at least one broker is required');
  const kafka = new Kafka({ clientId: opts.clientId, brokers: opts.brokers, logLevel: opts.logLevel });
  const consumerMaxWaitMs = opts.consumerMaxWaitMs ?? 1000;
  const healthTimeoutMs = opts.healthTimeoutMs ?? 5000;

  const producer: Producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  const admin: Admin = kafka.admin();
  const connectProducer = lazyConnect(() => producer.connect());
  const connectAdmin = lazyConnect(() => admin.connect());
  const subscriptions = new Set<Subscription>();
  let closed = false;

  const assertOpen = (): void => {
    if (closed) throw new Error('kafka bus is closed');
  };

  return {
    engine: 'kafka',

    async ensureTopics(topics: TopicSpec[]): Promise<void> {
      assertOpen();
      if (topics.length === 0) return;
      await connectAdmin.connect();
      // One topic per call: when several are requested and some exist, kafkajs reports
      // "already exists" for the batch and skips waiting for the new topics' leaders.
      for (const spec of topics) {
        const config: ITopicConfig = {
          topic: spec.name,
          numPartitions: spec.partitions,
          ...(spec.compacted ? { configEntries: [{ name: 'cleanup.policy', value: 'compact' }] } : {}),
        };
        try {
          // Resolves false when the topic already exists.
          await admin.createTopics({ topics: [config], waitForLeaders: true });
        } catch (error) {
          if (!isTopicAlreadyExists(error)) throw error;
        }
      }
    },

    async publish(topic: string, messages: BusMessage[]): Promise<void> {
      assertOpen();
      if (messages.length === 0) return;
      await connectProducer.connect();
      await producer.send({
        topic,
        acks: -1,
        messages: messages.map((m) => ({
          key: m.key,
          value: Buffer.from(m.value.buffer, m.value.byteOffset, m.value.byteLength),
          headers: m.headers ? { ...m.headers } : undefined,
        })),
      });
    },

    async subscribe(options: SubscribeOptions): Promise<Subscription> {
      assertOpen();
      if (!options.groupId) throw new Error('subscribe: groupId is required');
      if (options.topics.length === 0) throw new Error('subscribe: at least one topic is required');
      const consumer = kafka.consumer({ groupId: options.groupId, maxWaitTimeInMs: consumerMaxWaitMs });
      const subscription = startSubscription(consumer, options, () => subscriptions.delete(subscription));
      subscriptions.add(subscription);
      try {
        await consumer.connect();
        await consumer.subscribe({ topics: options.topics, fromBeginning: options.fromBeginning });
      } catch (error) {
        await subscription.stop().catch(() => undefined);
        throw error;
      }
      subscription.run();
      return subscription;
    },

    async ready(): Promise<boolean> {
      if (closed) return false;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), healthTimeoutMs);
      });
      const check = (async (): Promise<boolean> => {
        await connectAdmin.connect();
        await admin.describeCluster();
        return true;
      })().catch(() => false);
      try {
        return await Promise.race([check, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await Promise.allSettled([...subscriptions].map((s) => s.stop()));
      await Promise.allSettled([
        connectProducer.disconnect(() => producer.disconnect()),
        connectAdmin.disconnect(() => admin.disconnect()),
      ]);
    },
  };
}

interface RunnableSubscription extends Subscription {
  run(): void;
}

function startSubscription(
  consumer: Consumer,
  options: SubscribeOptions,
  onStopped: () => void,
): RunnableSubscription {
  let stopping = false;
  let stopPromise: Promise<void> | undefined;
  const inflight = new Set<Promise<void>>();

  // ready: GROUP_JOIN, then a fetch that started after the join has completed.
  let settled = false;
  let resolveReady!: () => void;
  let rejectReady!: (error: unknown) => void;
  const ready = new Promise<void>((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  ready.catch(() => undefined); // callers that never await ready must not get an unhandled rejection
  const settleReady = (error?: unknown): void => {
    if (settled) return;
    settled = true;
    removeListeners();
    if (error === undefined) resolveReady();
    else rejectReady(error);
  };

  let joined = false;
  const fetchesAfterJoin = new Set<number>();
  const listeners = [
    consumer.on(consumer.events.GROUP_JOIN, () => {
      joined = true;
      fetchesAfterJoin.clear();
    }),
    consumer.on(consumer.events.FETCH_START, (event) => {
      if (joined) fetchesAfterJoin.add(event.payload.nodeId);
    }),
    consumer.on(consumer.events.FETCH, (event) => {
      if (joined && fetchesAfterJoin.has(event.payload.nodeId)) settleReady();
    }),
    consumer.on(consumer.events.CRASH, (event) => {
      if (!event.payload.restart) settleReady(event.payload.error);
    }),
  ];
  function removeListeners(): void {
    for (const remove of listeners) remove();
  }

  const eachMessage = async ({
    topic,
    partition,
    message,
  }: {
    topic: string;
    partition: number;
    message: KafkaMessage;
  }): Promise<void> => {
    // Stopping: skip without committing; the group's next owner of the partition re-reads it.
    if (stopping) return;
    const delivered = toDelivered(topic, partition, message);
    const work = (async (): Promise<void> => {
      try {
        await options.handler(delivered);
      } catch (error) {
        throw new BusHandlerError(topic, partition, message.offset, error);
      }
      await consumer.commitOffsets([{ topic, partition, offset: (BigInt(message.offset) + 1n).toString() }]);
    })();
    inflight.add(work);
    try {
      await work;
    } finally {
      inflight.delete(work);
    }
  };

  return {
    ready,
    run(): void {
      consumer.run({ autoCommit: false, eachMessage }).catch((error: unknown) => settleReady(error));
    },
    stop(): Promise<void> {
      stopPromise ??= (async () => {
        stopping = true;
        await Promise.allSettled([...inflight]);
        try {
          await consumer.disconnect();
        } finally {
          settleReady(new Error(`subscription of group ${options.groupId} stopped before it was ready`));
          onStopped();
        }
      })();
      return stopPromise;
    },
  };
}

function toDelivered(topic: string, partition: number, message: KafkaMessage): DeliveredMessage {
  const value = message.value;
  return {
    topic,
    partition,
    offset: message.offset,
    timestamp: message.timestamp,
    key: message.key ? message.key.toString('utf8') : '',
    // A plain Uint8Array view, like the memory engine (no Buffer-only methods to rely on).
    value: value ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength) : new Uint8Array(0),
    headers: decodeHeaders(message.headers),
  };
}

/** Header values as UTF-8 strings; for a header repeated on the record, the last value. */
export function decodeHeaders(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  for (const [name, raw] of Object.entries(headers)) {
    const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
    if (value === undefined) continue;
    out[name] = typeof value === 'string' ? value : value.toString('utf8');
  }
  return out;
}

function isTopicAlreadyExists(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { type?: unknown; errors?: unknown };
  if (e.type === 'TOPIC_ALREADY_EXISTS') return true;
  return Array.isArray(e.errors) && e.errors.length > 0 && e.errors.every((inner) => isTopicAlreadyExists(inner));
}

/** connect() once (retried after a failure); disconnect() only if a connect was attempted. */
function lazyConnect(connect: () => Promise<void>): {
  connect(): Promise<void>;
  disconnect(disconnect: () => Promise<void>): Promise<void>;
} {
  let connecting: Promise<void> | undefined;
  return {
    connect() {
      connecting ??= connect().catch((error: unknown) => {
        connecting = undefined;
        throw error;
      });
      return connecting;
    },
    async disconnect(disconnect) {
      if (!connecting) return;
      connecting = undefined;
      await disconnect();
    },
  };
}
