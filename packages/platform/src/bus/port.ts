// The event-bus port. Production engine: Kafka through kafkajs. Embedded engine: in-process
// topics. Both give: per-key order (a key always maps to the same partition), consumer groups
// (each message goes to one member of a group, every group sees every message), committed
// offsets (a group resumes after its last committed offset), replay from the start for a new
// group with fromBeginning, and at-least-once delivery (a handler that throws sees the message
// again; offsets are committed only after the handler resolves).
//
// At-least-once means handlers must be idempotent: a message may be delivered again after it
// was handled (a commit lost in a crash or a rebalance, a consumer restart before its commit).
// A redelivery replays the partition from its committed offset, so per-key order holds for
// first deliveries, and a repeated message comes back together with the ones after it.

export interface BusMessage {
  key: string;
  value: Uint8Array;
  headers?: Record<string, string>;
}

export interface DeliveredMessage extends BusMessage {
  topic: string;
  partition: number;
  offset: string;
  timestamp: string;
  /**
   * Kafka: tells the group coordinator this member is alive while a handler takes long (the
   * consumer runner calls it between retries); absent on the memory engine, which has no sessions.
   */
  heartbeat?: () => Promise<void>;
}

export interface TopicSpec {
  name: string;
  partitions: number;
  /** Log compaction (keep the latest message per key), e.g. listing.activity.v1. */
  compacted?: boolean;
}

export interface SubscribeOptions {
  groupId: string;
  topics: string[];
  /** For a group with no committed offset: start at the beginning (true) or the end. */
  fromBeginning: boolean;
  handler: (message: DeliveredMessage) => Promise<void>;
}

export interface SubscriptionHealth {
  /** False once the consumer will fetch nothing more: stopped, or crashed for good. */
  running: boolean;
  /** Why it is not running (stopped, crash reason). */
  reason?: string;
}

export interface Subscription {
  /** Resolves once the consumer has joined and received its partitions. */
  readonly ready: Promise<void>;
  /** Whether the consumer still runs; readiness checks read it (a dead consumer is not ready). */
  health(): SubscriptionHealth;
  /** Stops fetching, lets the in-flight handler finish, commits, leaves the group. */
  stop(): Promise<void>;
}

export interface EventBus {
  readonly engine: 'memory' | 'kafka';
  ensureTopics(topics: TopicSpec[]): Promise<void>;
  publish(topic: string, messages: BusMessage[]): Promise<void>;
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  ready(): Promise<boolean>;
  /** Consumer lag per subscribed group and topic (end minus committed offsets). */
  consumerLag(): Promise<ConsumerLag[]>;
  close(): Promise<void>;
}

/** Consumer lag of one group on one topic: end offsets minus committed offsets, summed. */
export interface ConsumerLag {
  groupId: string;
  topic: string;
  lag: number;
}
