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
// Topics: ensureTopics lists the cluster's topics first and creates only the missing ones, each
// with its partitions, the configured replication factor and min.insync.replicas (production:
// 3 and 2, so acks=all survives one broker down), and cleanup.policy compact or delete. An
// existing topic is left as it is (no "already exists" error logged by kafkajs on a normal
// boot; two replicas racing to create the same topic get a warning, see kafkaLogCreator).
//
// health(): a subscription reports running until stop(), or until kafkajs gives up on the
// consumer (CRASH with restart=false, or run() rejecting): readiness checks read it.
// consumerLag(): per group subscribed through this bus (running or not) and topic,
// admin.fetchTopicOffsets (high watermark) minus admin.fetchOffsets (committed; a partition
// without a commit counts from its low watermark), bounded by healthTimeoutMs.
//
// stop(): marks the subscription stopping (messages handed out afterwards are skipped and left
// uncommitted, so the group re-reads them), waits for the in-flight handler and its commit,
// then disconnects (kafkajs leaves the group).

import {
  Kafka,
  logLevel as KafkaLogLevel,
  Partitioners,
  type Admin,
  type Consumer,
  type IHeaders,
  type ITopicConfig,
  type KafkaMessage,
  type LogEntry,
  type logCreator,
  type logLevel,
  type Producer,
} from 'kafkajs';
import { createLogger, type Logger } from '@vrp/platform/logging';
import {
  registerLagSource,
  type BusMessage,
  type ConsumerLag,
  type DeliveredMessage,
  type EventBus,
  type SubscribeOptions,
  type Subscription,
  type SubscriptionHealth,
  type TopicSpec,
} from '@vrp/platform/bus';

export interface KafkaBusOptions {
  brokers: string[];
  clientId: string;
  /** kafkajs log level (kafkajs default: INFO). */
  logLevel?: logLevel;
  /** Where kafkajs logs go (pino JSON lines like the rest of the process). Default: a logger named after clientId. */
  logger?: Logger;
  /** Consumer fetch long-poll, kafkajs maxWaitTimeInMs. Default 1000 (kafkajs: 5000). */
  consumerMaxWaitMs?: number;
  /** Timeout of the ready() health check and of a consumer-lag query. Default 5000 ms. */
  healthTimeoutMs?: number;
  /** Replication factor of the topics ensureTopics creates. Default 3. */
  replicationFactor?: number;
  /** min.insync.replicas of the topics ensureTopics creates. Default 2. */
  minInsyncReplicas?: number;
}

/** Production defaults of created topics: three copies, writes acknowledged by two. */
export const KAFKA_TOPIC_DEFAULTS = { replicationFactor: 3, minInsyncReplicas: 2 } as const;

/** The kafkajs createTopics entry of a topic spec. */
export function topicConfig(spec: TopicSpec, settings: { replicationFactor: number; minInsyncReplicas: number }): ITopicConfig {
  return {
    topic: spec.name,
    numPartitions: spec.partitions,
    replicationFactor: settings.replicationFactor,
    configEntries: [
      { name: 'cleanup.policy', value: spec.compacted ? 'compact' : 'delete' },
      { name: 'min.insync.replicas', value: String(settings.minInsyncReplicas) },
    ],
  };
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
    super(`bus handler failed on ${topic}/${partition}@${offset}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'BusHandlerError';
  }
}

export function createKafkaBus(opts: KafkaBusOptions): EventBus {
  if (opts.brokers.length === 0) throw new Error('createKafkaBus: at least one broker is required');
  const kafka = new Kafka({
    clientId: opts.clientId,
    brokers: opts.brokers,
    logLevel: opts.logLevel,
    logCreator: kafkaLogCreator(opts.logger ?? createLogger(opts.clientId)),
  });
  const consumerMaxWaitMs = opts.consumerMaxWaitMs ?? 1000;
  const healthTimeoutMs = opts.healthTimeoutMs ?? 5000;
  const topicSettings = {
    replicationFactor: opts.replicationFactor ?? KAFKA_TOPIC_DEFAULTS.replicationFactor,
    minInsyncReplicas: opts.minInsyncReplicas ?? KAFKA_TOPIC_DEFAULTS.minInsyncReplicas,
  };
  if (!Number.isInteger(topicSettings.replicationFactor) || topicSettings.replicationFactor < 1) {
    throw new Error(`createKafkaBus: replicationFactor must be a positive integer, got ${topicSettings.replicationFactor}`);
  }
  if (
    !Number.isInteger(topicSettings.minInsyncReplicas) ||
    topicSettings.minInsyncReplicas < 1 ||
    topicSettings.minInsyncReplicas > topicSettings.replicationFactor
  ) {
    throw new Error(
      `createKafkaBus: minInsyncReplicas must be between 1 and the replication factor (${topicSettings.replicationFactor}), got ${topicSettings.minInsyncReplicas}`,
    );
  }

  const producer: Producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  const admin: Admin = kafka.admin();
  const connectProducer = lazyConnect(() => producer.connect());
  const connectAdmin = lazyConnect(() => admin.connect());
  const subscriptions = new Set<KafkaSubscription>();
  /** Every group subscribed through this bus and its topics: its lag is reported even once its consumer stopped. */
  const groups = new Map<string, Set<string>>();
  let closed = false;

  const assertOpen = (): void => {
    if (closed) throw new Error('kafka bus is closed');
  };

  const bus: EventBus = {
    engine: 'kafka',

    async ensureTopics(topics: TopicSpec[]): Promise<void> {
      assertOpen();
      if (topics.length === 0) return;
      await connectAdmin.connect();
      // Create only what is missing: asking the broker to create an existing topic makes
      // kafkajs log the TOPIC_ALREADY_EXISTS response at ERROR level on every boot.
      const existing = new Set(await admin.listTopics());
      // One topic per call: when several are requested and some exist, kafkajs reports
      // "already exists" for the batch and skips waiting for the new topics' leaders.
      for (const spec of topics) {
        if (existing.has(spec.name)) continue;
        try {
          // Resolves false when the topic already exists (another replica created it meanwhile).
          await admin.createTopics({ topics: [topicConfig(spec, topicSettings)], waitForLeaders: true });
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
      const groupTopics = groups.get(options.groupId) ?? new Set<string>();
      for (const topic of options.topics) groupTopics.add(topic);
      groups.set(options.groupId, groupTopics);
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

    async consumerLag(): Promise<ConsumerLag[]> {
      if (groups.size === 0) return [];
      return withTimeout(
        (async () => {
          await connectAdmin.connect();
          const ends = new Map<string, Map<number, { high: bigint; low: bigint }>>();
          for (const topic of new Set([...groups.values()].flatMap((t) => [...t]))) {
            const offsets = await admin.fetchTopicOffsets(topic);
            ends.set(topic, new Map(offsets.map((o) => [o.partition, { high: BigInt(o.high), low: BigInt(o.low) }])));
          }
          const out: ConsumerLag[] = [];
          for (const [groupId, topics] of groups) {
            const committed = await admin.fetchOffsets({ groupId, topics: [...topics] });
            for (const { topic, partitions } of committed) {
              let lag = 0n;
              for (const { partition, offset } of partitions) {
                const end = ends.get(topic)?.get(partition);
                if (!end) continue;
                const from = BigInt(offset) >= 0n ? BigInt(offset) : end.low; // -1: nothing committed
                if (end.high > from) lag += end.high - from;
              }
              out.push({ groupId, topic, lag: Number(lag) });
            }
          }
          return out;
        })(),
        healthTimeoutMs,
        'consumer lag query',
      );
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      unregisterLag();
      await Promise.allSettled([...subscriptions].map((s) => s.stop()));
      await Promise.allSettled([connectProducer.disconnect(() => producer.disconnect()), connectAdmin.disconnect(() => admin.disconnect())]);
    },
  };
  const unregisterLag = registerLagSource(bus);
  return bus;
}

/**
 * Broker answers that belong to a healthy cluster's life: a group rebalancing when members join
 * or leave, a coordinator or partition leader moving or loading, a topic another replica has
 * just created. kafkajs rejoins or retries by itself, yet logs the answer at ERROR; these are
 * logged as warnings, so ERROR lines mean something an operator must look at.
 */
const ROUTINE_BROKER_ANSWERS = [
  'The group is rebalancing', // REBALANCE_IN_PROGRESS (and the runner's "re-joining")
  'The group coordinator is not available', // GROUP_COORDINATOR_NOT_AVAILABLE
  'This is not the correct coordinator', // NOT_COORDINATOR_FOR_GROUP
  'The coordinator is loading', // GROUP_LOAD_IN_PROGRESS
  'There is no leader for this topic-partition', // LEADER_NOT_AVAILABLE
  'Topic with this name already exists', // TOPIC_ALREADY_EXISTS
];

/** kafkajs logs as pino lines of `logger`; routine broker answers at warn instead of error. */
export function kafkaLogCreator(logger: Logger): logCreator {
  return () =>
    ({ namespace, level, log }: LogEntry) => {
      const { message, timestamp: _timestamp, ...extra } = log;
      const text = `${message} ${typeof extra.error === 'string' ? extra.error : ''}`;
      const routine = ROUTINE_BROKER_ANSWERS.some((answer) => text.includes(answer));
      const fields = { kafkajs: namespace, ...extra };
      if (level === KafkaLogLevel.ERROR && !routine) logger.error(fields, message);
      else if (level === KafkaLogLevel.ERROR || level === KafkaLogLevel.WARN) logger.warn(fields, message);
      else if (level === KafkaLogLevel.INFO) logger.info(fields, message);
      else logger.debug(fields, message);
    };
}

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms}ms`)), ms);
  });
  work.catch(() => undefined); // a late failure after the timeout is not unhandled
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

interface KafkaSubscription extends Subscription {
  run(): void;
}

function startSubscription(consumer: Consumer, options: SubscribeOptions, onStopped: () => void): KafkaSubscription {
  let stopping = false;
  let stopPromise: Promise<void> | undefined;
  let failure: string | undefined;
  const died = (error: unknown): void => {
    failure ??= `consumer crashed: ${error instanceof Error ? error.message : String(error)}`;
  };
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
    consumer.on(consumer.events.GROUP_JOIN, (event) => {
      joined = true;
      fetchesAfterJoin.clear();
      // A member given no partition (more members than partitions) fetches nothing: it is ready
      // once it has joined, and takes partitions over at a later rebalance.
      if (Object.values(event.payload.memberAssignment ?? {}).every((partitions) => partitions.length === 0)) settleReady();
    }),
    consumer.on(consumer.events.FETCH_START, (event) => {
      if (joined) fetchesAfterJoin.add(event.payload.nodeId);
    }),
    consumer.on(consumer.events.FETCH, (event) => {
      if (joined && fetchesAfterJoin.has(event.payload.nodeId)) settleReady();
    }),
  ];
  function removeListeners(): void {
    for (const remove of listeners) remove();
  }
  // Kept for the consumer's whole life: after a crash without restart it fetches nothing more.
  consumer.on(consumer.events.CRASH, (event) => {
    if (event.payload.restart) return;
    died(event.payload.error);
    settleReady(event.payload.error);
  });

  const eachMessage = async ({
    topic,
    partition,
    message,
    heartbeat,
  }: {
    topic: string;
    partition: number;
    message: KafkaMessage;
    heartbeat: () => Promise<void>;
  }): Promise<void> => {
    // Stopping: skip without committing; the group's next owner of the partition re-reads it.
    if (stopping) return;
    // heartbeat() sends only once heartbeatInterval has passed, so callers may call it often.
    const delivered = { ...toDelivered(topic, partition, message), heartbeat };
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
    health(): SubscriptionHealth {
      if (failure !== undefined) return { running: false, reason: failure };
      if (stopping) return { running: false, reason: 'stopped' };
      return { running: true };
    },
    run(): void {
      consumer.run({ autoCommit: false, eachMessage }).catch((error: unknown) => {
        died(error);
        settleReady(error);
      });
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
