// Embedded engine: in-process topics with the same delivery semantics as the Kafka engine.
//
// - Topics have N partitions (ensureTopics; a topic first used by publish/subscribe without
//   ensureTopics is created with `defaultPartitions`, default 3). ensureTopics on an existing
//   topic leaves it unchanged, like the Kafka engine ("already exists" is ignored).
// - A message goes to partition = murmur2(key) mod N, the same function as kafkajs's default
//   partitioner, so a key keeps its partition (and its order) and matches Kafka's placement.
// - Offsets are per partition: "0", "1", ... Nothing is ever deleted: a compacted topic keeps
//   every message (which includes the latest per key), so replays see the full history. With
//   persistence (DATA_DIR) the retention rule of persistence.ts removes old messages at start.
// - Persistence (DATA_DIR): topics, messages and committed offsets are written to LMDB; a
//   publish resolves once its messages are on disk, and consumers see them only then. The offsets
//   written are the committed ones (with redelivery, the lazily committed ones), so a restart
//   resumes where the group had committed, as a Kafka consumer does.
// - Consumer groups: each group sees every message; inside a group, partition i of a topic goes
//   to member (i mod members) among the members subscribed to that topic, in join order, and
//   is reassigned when members join or leave.
// - Committed offsets per (group, topic, partition). The start position of a partition that
//   has none is decided when the group first subscribes to the topic: 0 with fromBeginning,
//   else the current end; it is committed at once, so later rebalances keep it.
// - One delivery per (group, partition) at a time, in offset order. The offset is committed
//   after the handler resolves; a handler that throws (or rejects) gets the same message again
//   after a backoff (retryInitialMs, doubling up to retryMaxMs) and the partition waits for it.
// - Redelivery mode (`redelivery: { duplicates, seed, maxCommitLag }`, on for the whole test
//   suite through setMemoryBusDefaults in scripts/jest-setup.ts): offsets are committed lazily, after
//   1..maxCommitLag handled messages (drawn from the seed), as a consumer committing in batches
//   does. After each handled message, with probability `duplicates`, the partition rewinds to
//   its committed offset, as a consumer that crashed before committing would: the message and
//   every handled-but-uncommitted one before it are delivered again, in order. A rebalance
//   (member joins or leaves, stop()) also rewinds the group's partitions to their committed
//   offsets (eager rebalancing: uncommitted progress is lost), and stop() does not flush the
//   lagging commit. Every draw comes from a PRNG seeded by (seed, group, topic, partition), so
//   a run is reproducible with the same seed.
// - Delivery is asynchronous (never inside publish/subscribe) and event driven: publish wakes
//   the partition's consumers, nothing polls.
// - whenIdle() (test helper) resolves once every group with members has consumed and committed
//   everything published so far.

import {
  type BusMessage,
  type ConsumerLag,
  type DeliveredMessage,
  type EventBus,
  type SubscribeOptions,
  type Subscription,
  type SubscriptionHealth,
  type TopicSpec,
  registerLagSource,
} from '@vrp/platform/bus';
import { murmur2, partitionForKey } from './partitioner';
import { offsetKey, type AppendedMessage, type BusPersistence } from './persistence';

export interface MemoryBusOptions {
  /** Partitions of a topic created implicitly by publish/subscribe. Default 3. */
  defaultPartitions?: number;
  /** First redelivery delay after a handler failure. Default 50 ms. */
  retryInitialMs?: number;
  /** The delay doubles after each failure of the same message up to this. Default 1000 ms. */
  retryMaxMs?: number;
  /** Told about each handler failure before the backoff. Default: one console.error line. */
  onHandlerError?: (error: unknown, message: DeliveredMessage, groupId: string) => void;
  /**
   * Where topics, messages and committed offsets are kept (DATA_DIR/bus); loaded at creation.
   * A publish then resolves once its messages are on disk, and consumers see them only then.
   */
  persistence?: BusPersistence;
  /**
   * At-least-once for real: lazy commits and duplicate deliveries (see the header). `false`
   * turns it off. Default: what setMemoryBusDefaults() set (the test suite turns it on), else off.
   */
  redelivery?: RedeliveryOptions | false;
}

export interface RedeliveryOptions {
  /** Probability, after each handled message, of a rewind to the committed offset. 0..1. */
  duplicates: number;
  /** Seed of every draw; the same seed gives the same duplicates and commit points. */
  seed: number;
  /** A commit happens after 1..maxCommitLag handled messages (uniform draw). Default 4. */
  maxCommitLag?: number;
}

let defaultOptions: Pick<MemoryBusOptions, 'redelivery'> = {};

/**
 * Defaults of every memory bus created afterwards in this process (options passed to
 * createMemoryBus win). The jest setup turns redelivery on this way for the whole suite.
 */
export function setMemoryBusDefaults(options: Pick<MemoryBusOptions, 'redelivery'>): void {
  defaultOptions = { ...options };
}

export interface MemoryEventBus extends EventBus {
  readonly engine: 'memory';
  /**
   * Resolves when every group that has members has handled everything published so far
   * (including what handlers publish while being waited for); without redelivery that is
   * also committed, with it commits may lag behind (see consumerLag). With
   * `timeoutMs` it rejects after that long, naming the partitions still behind.
   * Never resolves while a handler keeps failing, unless the timeout fires.
   */
  whenIdle(timeoutMs?: number): Promise<void>;
  /**
   * Fault injection: the consumers of `groupId` on this bus die as a kafkajs consumer does
   * after a non-retriable crash (they leave the group, fetch nothing more, and report
   * `running: false` with `reason` from health()). Returns how many subscriptions died.
   */
  crashConsumers(groupId: string, reason: string): number;
}

interface StoredMessage {
  readonly key: string;
  readonly value: Uint8Array;
  readonly headers: Readonly<Record<string, string>>;
  readonly timestamp: string;
}

interface MemoryTopic {
  readonly name: string;
  readonly compacted: boolean;
  readonly partitions: StoredMessage[][];
  /** Per partition: offset of partitions[p][0] (older messages were removed by retention). */
  readonly starts: number[];
  /** Per partition: end of what consumers may read (what is on disk, with persistence). */
  readonly readable: number[];
}

interface IdleWaiter {
  resolve: () => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout | undefined;
}

export function createMemoryBus(options: MemoryBusOptions = {}): MemoryEventBus {
  return new MemoryBus({ ...options, redelivery: options.redelivery !== undefined ? options.redelivery : defaultOptions.redelivery });
}

type Redelivery = Required<RedeliveryOptions>;

function redeliveryFrom(options: RedeliveryOptions | false | undefined): Redelivery | undefined {
  if (!options) return undefined;
  const { duplicates, seed } = options;
  if (!(duplicates >= 0 && duplicates < 1)) throw new Error(`redelivery.duplicates must be in [0, 1), got ${duplicates}`);
  if (!Number.isInteger(seed)) throw new Error(`redelivery.seed must be an integer, got ${seed}`);
  return { duplicates, seed, maxCommitLag: positiveInt(options.maxCommitLag ?? 4, 'redelivery.maxCommitLag') };
}

class MemoryBus implements MemoryEventBus {
  readonly engine = 'memory' as const;
  readonly defaultPartitions: number;
  readonly retryInitialMs: number;
  readonly retryMaxMs: number;
  readonly redelivery: Redelivery | undefined;
  readonly onHandlerError: (error: unknown, message: DeliveredMessage, groupId: string) => void;
  closed = false;
  private readonly topics = new Map<string, MemoryTopic>();
  private readonly groups = new Map<string, Group>();
  private readonly members = new Set<Member>();
  private readonly idleWaiters = new Set<IdleWaiter>();
  private readonly unregisterLag: () => void;
  readonly persistence: BusPersistence | undefined;
  /** Committed offsets read from disk, taken by a group's runners when it first subscribes. */
  readonly savedOffsets = new Map<string, number>();

  constructor(options: MemoryBusOptions) {
    this.defaultPartitions = positiveInt(options.defaultPartitions ?? 3, 'defaultPartitions');
    this.retryInitialMs = Math.max(0, options.retryInitialMs ?? 50);
    this.retryMaxMs = Math.max(this.retryInitialMs, options.retryMaxMs ?? 1000);
    this.redelivery = redeliveryFrom(options.redelivery);
    this.onHandlerError =
      options.onHandlerError ??
      ((error, message, groupId) => {
        const reason = error instanceof Error ? error.message : String(error);
        console.error(`memory bus: handler of group ${groupId} failed on ${message.topic}/${message.partition}@${message.offset}, redelivering: ${reason}`);
      });
    this.persistence = options.persistence;
    if (this.persistence) this.loadPersisted(this.persistence);
    this.unregisterLag = registerLagSource(this);
  }

  /** Topics, messages and committed offsets from disk; a failed write drops what is not on disk. */
  private loadPersisted(persistence: BusPersistence): void {
    const snapshot = persistence.load();
    for (const saved of snapshot.topics) {
      const topic = this.createTopic(saved.name, saved.partitions, saved.compacted, false);
      saved.logs.forEach((log, p) => {
        topic.starts[p] = log.start;
        topic.partitions[p] = [...log.messages];
        topic.readable[p] = log.start + log.messages.length;
      });
    }
    for (const [key, offset] of snapshot.offsets) this.savedOffsets.set(key, offset);
    persistence.onFailure(() => {
      for (const topic of this.topics.values()) {
        topic.partitions.forEach((log, p) => {
          log.length = (topic.readable[p] as number) - (topic.starts[p] as number);
        });
      }
    });
  }

  async ensureTopics(topics: TopicSpec[]): Promise<void> {
    this.assertOpen();
    for (const spec of topics) {
      if (this.topics.has(spec.name)) continue;
      this.createTopic(spec.name, positiveInt(spec.partitions, `partitions of ${spec.name}`), spec.compacted ?? false);
    }
  }

  async publish(topic: string, messages: BusMessage[]): Promise<void> {
    // Appends synchronously (before the first await), so whenIdle() called right after an
    // un-awaited publish already counts these messages.
    this.assertOpen();
    const t = this.topicFor(topic);
    const touched = new Set<number>();
    const timestamp = Date.now().toString();
    for (const m of messages) {
      if (typeof m.key !== 'string') throw new TypeError(`publish(${topic}): key must be a string`);
      if (!(m.value instanceof Uint8Array)) throw new TypeError(`publish(${topic}): value must be a Uint8Array`);
    }
    const appended: AppendedMessage[] = [];
    for (const m of messages) {
      const p = partitionForKey(m.key, t.partitions.length);
      const log = partitionLog(t, p);
      const stored: StoredMessage = {
        key: m.key,
        value: new Uint8Array(m.value), // copy: the caller may reuse its buffer
        headers: { ...(m.headers ?? {}) },
        timestamp,
      };
      log.push(stored);
      appended.push({ topic, partition: p, offset: (t.starts[p] as number) + log.length - 1, message: stored });
      touched.add(p);
    }
    const readable = (): void => {
      for (const a of appended) t.readable[a.partition] = Math.max(t.readable[a.partition] as number, a.offset + 1);
      for (const group of this.groups.values()) group.wake(topic, touched);
    };
    if (this.persistence) await this.persistence.append(appended, readable);
    else readable();
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    this.assertOpen();
    if (!options.groupId) throw new Error('subscribe: groupId is required');
    if (options.topics.length === 0) throw new Error('subscribe: at least one topic is required');
    let group = this.groups.get(options.groupId);
    if (!group) {
      group = new Group(this, options.groupId);
      this.groups.set(options.groupId, group);
    }
    const member = new Member(group, new Set(options.topics), options.fromBeginning, options.handler);
    this.members.add(member);
    group.join(
      member,
      options.topics.map((name) => this.topicFor(name)),
    );
    let stopping: Promise<void> | undefined;
    return {
      // Partitions are assigned synchronously in join().
      ready: Promise.resolve(),
      health: () => member.health(),
      stop: () => {
        stopping ??= this.stopMember(member);
        return stopping;
      },
    };
  }

  async ready(): Promise<boolean> {
    return !this.closed;
  }

  async consumerLag(): Promise<ConsumerLag[]> {
    return [...this.groups.values()].flatMap((g) => g.lag());
  }

  crashConsumers(groupId: string, reason: string): number {
    let crashed = 0;
    for (const member of this.members) {
      if (member.group.id !== groupId || !member.active) continue;
      member.failure = reason;
      member.active = false;
      member.group.leave(member);
      crashed++;
    }
    this.checkIdle();
    return crashed;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.unregisterLag();
    for (const waiter of this.idleWaiters) {
      if (waiter.timer) clearTimeout(waiter.timer);
      waiter.reject(new Error('memory bus closed'));
    }
    this.idleWaiters.clear();
    await Promise.all([...this.members].map((m) => this.stopMember(m)));
    for (const group of this.groups.values()) group.shutdown();
    await this.persistence?.close();
  }

  whenIdle(timeoutMs?: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.closed) return reject(new Error('memory bus closed'));
      const waiter: IdleWaiter = { resolve, reject, timer: undefined };
      if (timeoutMs !== undefined) {
        waiter.timer = setTimeout(() => {
          this.idleWaiters.delete(waiter);
          reject(new Error(`memory bus not idle after ${timeoutMs}ms: ${this.describeBacklog()}`));
        }, timeoutMs);
      }
      this.idleWaiters.add(waiter);
      this.checkIdle();
    });
  }

  /** Called whenever a partition may have caught up (commit, member left). */
  checkIdle(): void {
    if (this.idleWaiters.size === 0 || !this.isIdle()) return;
    for (const waiter of this.idleWaiters) {
      if (waiter.timer) clearTimeout(waiter.timer);
      waiter.resolve();
    }
    this.idleWaiters.clear();
  }

  private isIdle(): boolean {
    for (const group of this.groups.values()) if (!group.isIdle()) return false;
    return true;
  }

  private describeBacklog(): string {
    const behind = [...this.groups.values()].flatMap((g) => g.backlog());
    return behind.length ? behind.join(', ') : 'a delivery is in flight';
  }

  private async stopMember(member: Member): Promise<void> {
    if (member.active) {
      member.active = false;
      member.group.leave(member);
    }
    // Each in-flight delivery includes its commit.
    await Promise.all([...member.inflight]);
    this.members.delete(member);
    this.checkIdle();
  }

  private topicFor(name: string): MemoryTopic {
    return this.topics.get(name) ?? this.createTopic(name, this.defaultPartitions, false);
  }

  private createTopic(name: string, partitions: number, compacted: boolean, save = true): MemoryTopic {
    if (!name) throw new Error('topic name must not be empty');
    const topic: MemoryTopic = {
      name,
      compacted,
      partitions: Array.from({ length: partitions }, (): StoredMessage[] => []),
      starts: new Array<number>(partitions).fill(0),
      readable: new Array<number>(partitions).fill(0),
    };
    this.topics.set(name, topic);
    // Queued before any message of the topic, so a message on disk always has its topic there.
    if (save) this.persistence?.saveTopic({ name, partitions, compacted }).catch(() => undefined);
    return topic;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('memory bus is closed');
  }
}

class Group {
  readonly members: Member[] = [];
  /** topic -> one runner per partition; kept after members leave (committed offsets live here). */
  private readonly runners = new Map<string, PartitionRunner[]>();

  constructor(
    readonly bus: MemoryBus,
    readonly id: string,
  ) {}

  join(member: Member, topics: MemoryTopic[]): void {
    this.members.push(member);
    for (const topic of topics) {
      if (this.runners.has(topic.name)) continue;
      this.runners.set(
        topic.name,
        topic.partitions.map((log, p) => {
          const start = topic.starts[p] as number;
          const end = start + log.length;
          const saved = this.bus.savedOffsets.get(offsetKey(this.id, topic.name, p));
          const from = saved !== undefined ? Math.min(Math.max(saved, start), end) : member.fromBeginning ? start : end;
          if (saved === undefined) this.bus.persistence?.commitOffset(this.id, topic.name, p, from);
          return new PartitionRunner(this, topic, p, from);
        }),
      );
    }
    this.rebalance();
  }

  leave(member: Member): void {
    const i = this.members.indexOf(member);
    if (i >= 0) this.members.splice(i, 1);
    this.rebalance();
  }

  /**
   * Partition i of a topic -> member (i mod n) among the members subscribed to that topic.
   * Eager, as kafkajs: every partition of the group is revoked, so with redelivery each one
   * resumes from its committed offset (handled but uncommitted messages come again).
   */
  private rebalance(): void {
    for (const [topic, runners] of this.runners) {
      const eligible = this.members.filter((m) => m.topics.has(topic));
      runners.forEach((runner, p) => {
        runner.assign(eligible.length > 0 ? eligible[p % eligible.length] : undefined);
      });
    }
  }

  wake(topic: string, partitions: Set<number>): void {
    const runners = this.runners.get(topic);
    if (!runners) return;
    for (const p of partitions) runners[p]?.wake();
  }

  isIdle(): boolean {
    for (const runners of this.runners.values()) for (const r of runners) if (!r.isIdle()) return false;
    return true;
  }

  backlog(): string[] {
    const out: string[] = [];
    for (const runners of this.runners.values()) for (const r of runners) if (!r.isIdle()) out.push(`${this.id} ${r.describe()}`);
    return out;
  }

  lag(): ConsumerLag[] {
    return [...this.runners].map(([topic, runners]) => ({
      groupId: this.id,
      topic,
      lag: runners.reduce((sum, r) => sum + r.lag(), 0),
    }));
  }

  shutdown(): void {
    for (const runners of this.runners.values()) for (const r of runners) r.shutdown();
  }
}

class Member {
  active = true;
  /** Set when the consumer crashed for good (crashConsumers). */
  failure: string | undefined;
  /** Deliveries in flight (handler + commit); stop() waits for them. */
  readonly inflight = new Set<Promise<boolean>>();

  constructor(
    readonly group: Group,
    readonly topics: ReadonlySet<string>,
    readonly fromBeginning: boolean,
    private readonly handler: (message: DeliveredMessage) => Promise<void>,
  ) {}

  health(): SubscriptionHealth {
    if (this.active) return { running: true };
    return { running: false, reason: this.failure ?? (this.group.bus.closed ? 'bus closed' : 'stopped') };
  }

  /** Runs the handler, then `commit`. Resolves true on success, false if the handler failed. */
  deliver(message: DeliveredMessage, commit: () => void): Promise<boolean> {
    const attempt = (async (): Promise<boolean> => {
      try {
        await this.handler(message);
      } catch (error) {
        try {
          this.group.bus.onHandlerError(error, message, this.group.id);
        } catch {
          // a failing error hook must not break delivery
        }
        return false;
      }
      // A crashed consumer commits nothing more; its partitions resume from the last commit.
      if (this.failure === undefined) commit();
      return true;
    })();
    this.inflight.add(attempt);
    void attempt.then(() => this.inflight.delete(attempt));
    return attempt;
  }
}

/** Delivers one (group, topic, partition) in order, one message at a time, to its owner. */
class PartitionRunner {
  private owner: Member | undefined;
  private busy = false;
  private stopped = false;
  private backoffMs: number;
  private waiter: (() => void) | undefined;
  private cancelBackoff: (() => void) | undefined;
  /** Next offset to deliver; ahead of `committed` by the handled but uncommitted messages. */
  private position: number;
  /** Bumped by each rebalance: a delivery that straddles one does not move the position. */
  private generation = 0;
  private readonly random: (() => number) | undefined;
  private sinceCommit = 0;
  private commitAfter = 1;

  constructor(
    private readonly group: Group,
    private readonly topic: MemoryTopic,
    private readonly partition: number,
    /** Committed offset = the next offset a new owner starts from. */
    private committed: number,
  ) {
    this.position = committed;
    this.backoffMs = group.bus.retryInitialMs;
    const redelivery = group.bus.redelivery;
    if (redelivery) {
      this.random = mulberry32(murmur2(`${redelivery.seed}/${group.id}/${topic.name}/${partition}`));
      this.commitAfter = this.drawCommitLag();
    }
    void this.loop();
  }

  private get log(): StoredMessage[] {
    return partitionLog(this.topic, this.partition);
  }

  assign(owner: Member | undefined): void {
    this.owner = owner;
    if (this.random) {
      this.position = this.committed;
      this.sinceCommit = 0;
      this.generation++;
    }
    this.wake();
  }

  wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }

  /** Offset after the last message of the partition (retention may have removed its first ones). */
  private get end(): number {
    return (this.topic.starts[this.partition] as number) + this.log.length;
  }

  isIdle(): boolean {
    return this.owner === undefined || (!this.busy && this.position >= this.end);
  }

  lag(): number {
    return this.end - this.committed;
  }

  describe(): string {
    const committed = this.committed === this.position ? '' : ` (committed ${this.committed})`;
    return `${this.topic.name}/${this.partition} at ${this.position} of ${this.end}${committed}${this.busy ? ' (delivering)' : ''}`;
  }

  shutdown(): void {
    this.stopped = true;
    this.cancelBackoff?.();
    this.wake();
  }

  private drawCommitLag(): number {
    const max = this.group.bus.redelivery?.maxCommitLag ?? 1;
    return 1 + Math.floor((this.random?.() ?? 0) * max);
  }

  /** After a successful handler: move on, commit (at once, or lazily), maybe rewind. */
  private handled(offset: number, generation: number): void {
    if (generation !== this.generation) return; // rebalanced meanwhile: the progress is lost
    this.position = offset + 1;
    const redelivery = this.group.bus.redelivery;
    if (!redelivery || !this.random) {
      this.commit(this.position);
      return;
    }
    if (this.random() < redelivery.duplicates) {
      // The consumer "crashed" before committing: replay from the committed offset.
      this.position = this.committed;
      this.sinceCommit = 0;
      return;
    }
    if (++this.sinceCommit >= this.commitAfter) {
      this.commit(this.position);
      this.sinceCommit = 0;
      this.commitAfter = this.drawCommitLag();
    }
  }

  /** Commits an offset; with persistence it is written (queued behind the messages before it). */
  private commit(offset: number): void {
    if (offset === this.committed) return;
    this.committed = offset;
    this.group.bus.persistence?.commitOffset(this.group.id, this.topic.name, this.partition, offset);
  }

  private async loop(): Promise<void> {
    // Start outside the caller's stack: never deliver synchronously inside subscribe().
    await Promise.resolve();
    while (!this.stopped && !this.group.bus.closed) {
      const owner = this.owner;
      const stored = readableAt(this.topic, this.partition, this.position);
      if (!owner || !stored) {
        await new Promise<void>((resolve) => {
          this.waiter = resolve;
        });
        continue;
      }
      const offset = this.position;
      const generation = this.generation;
      this.busy = true;
      const ok = await owner.deliver(
        {
          topic: this.topic.name,
          partition: this.partition,
          offset: String(offset),
          timestamp: stored.timestamp,
          key: stored.key,
          value: new Uint8Array(stored.value),
          headers: { ...stored.headers },
        },
        () => this.handled(offset, generation),
      );
      if (ok) {
        this.backoffMs = this.group.bus.retryInitialMs;
      } else {
        await this.backoff(this.backoffMs);
        this.backoffMs = Math.min(this.backoffMs * 2, this.group.bus.retryMaxMs);
      }
      this.busy = false;
      this.group.bus.checkIdle();
    }
  }

  private backoff(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.cancelBackoff = undefined;
        resolve();
      }, ms);
      this.cancelBackoff = () => {
        clearTimeout(timer);
        this.cancelBackoff = undefined;
        resolve();
      };
    });
  }
}

/** A small seeded PRNG (mulberry32): uniform in [0, 1), the same sequence for the same seed. */
function mulberry32(seed: number): () => number {
  let a = seed | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function partitionLog(topic: MemoryTopic, partition: number): StoredMessage[] {
  const log = topic.partitions[partition];
  if (!log) throw new Error(`topic ${topic.name} has no partition ${partition}`);
  return log;
}

/** The message at `offset` if consumers may read it (on disk, not removed by retention). */
function readableAt(topic: MemoryTopic, partition: number, offset: number): StoredMessage | undefined {
  if (offset >= (topic.readable[partition] as number)) return undefined;
  return partitionLog(topic, partition)[offset - (topic.starts[partition] as number)];
}

function positiveInt(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 1) throw new Error(`${what} must be a positive integer, got ${value}`);
  return value;
}
