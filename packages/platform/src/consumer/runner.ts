// The consumer runner: every consumer group of every service subscribes through it, so that no
// message blocks a partition. A handler's failure is classified (failure.ts): a transient one is
// retried in place with jittered exponential backoff; a permanent one, or a transient one past
// the retry budget, becomes a dead letter (stored in the service's `dead_letters` collection and
// published on `<topic>.dlq` through the outbox, in one transaction) and the handler returns, so
// the offset is committed and the partition moves on. Only when the dead letter itself cannot be
// stored (the store is down) does the handler throw: the bus then redelivers the message later,
// which is the one case where waiting is right. Operators list, replay and delete dead letters
// through DeadLetterService (grpc.ts) and the gateway's admin API.
import client from 'prom-client';
import { z } from 'zod';
import { ops, syncHealth, TOPICS } from '@vrp/contracts';
import type { DeliveredMessage, EventBus, Subscription, TopicSpec } from '../bus/port';
import { AppError, notFound } from '../errors/app-error';
import { sortableId } from '../ids';
import type { Logger } from '../logging';
import type { Outbox } from '../outbox';
import { findPage, type PageWindow } from '../paging';
import type { DocumentStore } from '../store/port';
import { DeadLetterStore, type DeadLetterDoc, type DeadLetterQuery, type DeadLetterReason } from './dead-letter-store';
import { classifyFailure, PermanentError, type Failure } from './failure';

export interface RetryPolicy {
  /** Attempts of one delivery, the first included, before a transient failure is dead-lettered. */
  maxAttempts: number;
  /** Time from the first failure after which a transient failure is dead-lettered. */
  maxElapsedMs: number;
  /** Backoff before the 2nd attempt; doubled per attempt up to maxDelayMs, with jitter. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Time limit of one attempt of the handler; past it the attempt counts as a transient failure. */
  attemptTimeoutMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 5, maxElapsedMs: 30_000, baseDelayMs: 100, maxDelayMs: 5_000, attemptTimeoutMs: 10_000 };

/** The retry budget from the environment (every service): attempts and time before a dead letter. */
export const consumerRetryConfig = {
  CONSUMER_RETRY_ATTEMPTS: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(DEFAULT_RETRY_POLICY.maxAttempts)
    .describe('attempts of a transiently failing message before it becomes a dead letter'),
  CONSUMER_RETRY_MAX_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3_600_000)
    .default(DEFAULT_RETRY_POLICY.maxElapsedMs)
    .describe('time from the first failure after which a message becomes a dead letter, ms'),
};

export function consumerRetryFrom(c: { CONSUMER_RETRY_ATTEMPTS: number; CONSUMER_RETRY_MAX_MS: number }): Partial<RetryPolicy> {
  return { maxAttempts: c.CONSUMER_RETRY_ATTEMPTS, maxElapsedMs: c.CONSUMER_RETRY_MAX_MS };
}

/** "Equal jitter": between half and all of the exponential step, so retries of many consumers spread. */
export function backoffDelay(attempt: number, policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>, random: () => number = Math.random): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(step / 2 + (random() * step) / 2);
}

/** The dead-letter topic of a topic: same partitions, never compacted (every record is kept). */
export function deadLetterTopicOf(topic: TopicSpec): TopicSpec {
  return { name: `${topic.name}.dlq`, partitions: topic.partitions };
}

/** What a consumer can tell about a message for its dead letter ('' when it cannot). */
export interface MessageContext {
  workspaceId?: string;
  listingId?: string;
  /**
   * The pms.sync.v1 change this message is, when this consumer group owns it (applies its
   * entity): what became of it (applied, failed, dead-lettered) is published on
   * pms.sync.outcomes.v1 for the connection's sync health. Absent for changes the group skips.
   */
  syncChange?: { connectionId: string; changeId: string };
}

/**
 * describe() of a pms.sync.v1 consumer: the change's workspace, and the change itself when this
 * group owns its entity (its outcome then counts toward the connection's sync health).
 */
export function describeSyncChange(change: { workspaceId: string; connectionId: string; changeId: string }, owned: boolean): MessageContext {
  return {
    workspaceId: change.workspaceId,
    ...(owned && change.connectionId ? { syncChange: { connectionId: change.connectionId, changeId: change.changeId } } : {}),
  };
}

/** What became of an owned PMS sync change (SyncChangeOutcome.outcome). */
export type SyncOutcomeKind = 'applied' | 'failed' | 'dead_lettered' | 'discarded';

export interface ConsumerSpec<T> {
  groupId: string;
  topics: TopicSpec[];
  /** For a group with no committed offset: start at the beginning (true) or the end. */
  fromBeginning: boolean;
  /** Payload bytes -> message; a throw is a permanent `malformed_payload`. */
  decode: (bytes: Uint8Array, message: DeliveredMessage) => T;
  /** Applies one message; must be idempotent (at-least-once delivery, replays). */
  handle: (payload: T, message: DeliveredMessage) => Promise<void>;
  /** Workspace and listing of a message, recorded on its dead letter for operators' filters. */
  describe?: (payload: T, message: DeliveredMessage) => MessageContext;
  /** The consumer's own classification of an error; undefined falls back to classifyFailure. */
  classify?: (err: unknown) => Failure | undefined;
  /**
   * The group applies pms.sync.v1 changes and reports their outcomes (see MessageContext.syncChange):
   * pms.sync.outcomes.v1 is created with the group's topics.
   */
  reportsSyncOutcomes?: boolean;
}

const deadLettersTotal = new client.Counter({
  name: 'vrp_dead_letters_total',
  help: 'Messages set aside as dead letters, by service, topic, consumer group, reason (permanent, budget_exhausted) and error code',
  labelNames: ['service', 'topic', 'group', 'reason', 'code'] as const,
});

const consumerRetries = new client.Counter({
  name: 'vrp_consumer_retries_total',
  help: 'Transient handler failures retried in place, by service, topic, consumer group and error code',
  labelNames: ['service', 'topic', 'group', 'code'] as const,
});

const running = new Set<ConsumerRunner>();

new client.Gauge({
  name: 'vrp_dead_letters_open',
  help: 'Dead letters stored and not replayed, by service and consumer group',
  labelNames: ['service', 'group'] as const,
  async collect() {
    this.reset();
    for (const runner of running) {
      for (const [group, count] of await runner.openCounts().catch(() => new Map<string, number>())) this.set({ service: runner.service, group }, count);
    }
  },
});

/** Thrown out of a handler when its consumer stops during a backoff: the offset stays uncommitted. */
class ConsumerStopping extends Error {
  constructor(group: string) {
    super(`consumer ${group} is stopping; the message is delivered again after the restart`);
    this.name = 'ConsumerStopping';
  }
}

function sleep(ms: number, signal: AbortSignal, group: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new ConsumerStopping(group));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ConsumerStopping(group));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The handler applied the message but its outcome could not be stored: the bus must redeliver it. */
class OutcomeNotReported extends Error {
  constructor(override readonly cause: unknown) {
    super('the outcome of an applied sync change could not be stored');
    this.name = 'OutcomeNotReported';
  }
}

class AttemptTimeout extends Error {
  readonly code = 'handler_timeout';
  constructor(ms: number) {
    super(`the handler did not finish within ${ms} ms`);
    this.name = 'AttemptTimeout';
  }
}

async function withTimeout(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new AttemptTimeout(ms)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

interface Registered {
  topics: TopicSpec[];
  /** One attempt: decode and handle, within the attempt time limit; answers what describe() tells. */
  applyOnce(message: DeliveredMessage): Promise<MessageContext>;
  classify(err: unknown): Failure;
  /** What describe() tells of a message, {} when it cannot be decoded. */
  contextOf(message: DeliveredMessage): MessageContext;
}

export interface ConsumerRunnerDeps {
  /** The service that owns the consumers (listing, reservation, guest, webhook). */
  service: string;
  store: DocumentStore;
  bus: EventBus;
  /** The service's transactional outbox: dead letters reach `<topic>.dlq` through it. */
  outbox: Outbox;
  logger: Logger;
  retry?: Partial<RetryPolicy>;
  now?: () => Date;
}

export class ConsumerRunner {
  readonly service: string;
  readonly deadLetters: DeadLetterStore;
  readonly policy: RetryPolicy;
  private readonly groups = new Map<string, Registered>();
  private readonly now: () => Date;

  constructor(private readonly deps: ConsumerRunnerDeps) {
    this.service = deps.service;
    this.deadLetters = new DeadLetterStore(deps.store);
    this.policy = { ...DEFAULT_RETRY_POLICY, ...deps.retry };
    this.now = deps.now ?? (() => new Date());
  }

  /** Subscribes a consumer group; creates its topics and their `.dlq` topics first. */
  async subscribe<T>(spec: ConsumerSpec<T>): Promise<Subscription> {
    if (this.groups.has(spec.groupId)) throw new Error(`${this.service}: consumer group ${spec.groupId} is already subscribed`);
    await this.deps.bus.ensureTopics([...spec.topics, ...spec.topics.map(deadLetterTopicOf), ...(spec.reportsSyncOutcomes ? [TOPICS.pmsSyncOutcomes] : [])]);
    const stopping = new AbortController();
    /** describe() never fails a message: an exception in it tells nothing. */
    const describe = (payload: T, message: DeliveredMessage): MessageContext => {
      try {
        return spec.describe?.(payload, message) ?? {};
      } catch {
        return {};
      }
    };
    const registered: Registered = {
      topics: spec.topics,
      applyOnce: async (message) => {
        let payload: T;
        try {
          payload = spec.decode(message.value, message);
        } catch (err) {
          throw new PermanentError('malformed_payload', `cannot decode the ${message.topic} message: ${(err as Error).message}`, { cause: err });
        }
        await withTimeout(spec.handle(payload, message), this.policy.attemptTimeoutMs);
        return describe(payload, message);
      },
      classify: (err) => spec.classify?.(err) ?? classifyFailure(err),
      contextOf: (message) => {
        try {
          return describe(spec.decode(message.value, message), message);
        } catch {
          // An undecodable message has no workspace, listing or change to tell.
          return {};
        }
      },
    };
    this.groups.set(spec.groupId, registered);
    running.add(this);
    let subscription: Subscription;
    try {
      subscription = await this.deps.bus.subscribe({
        groupId: spec.groupId,
        topics: spec.topics.map((t) => t.name),
        fromBeginning: spec.fromBeginning,
        handler: (message) => this.deliver(spec, registered, message, stopping.signal),
      });
    } catch (err) {
      this.groups.delete(spec.groupId);
      throw err;
    }
    return {
      ready: subscription.ready,
      health: () => subscription.health(),
      stop: async () => {
        stopping.abort();
        await subscription.stop();
        this.groups.delete(spec.groupId);
        if (this.groups.size === 0) running.delete(this);
      },
    };
  }

  /** The bus handler: returns once the message is applied or dead-lettered. */
  private async deliver<T>(spec: ConsumerSpec<T>, consumer: Registered, message: DeliveredMessage, signal: AbortSignal): Promise<void> {
    let firstFailedAt: Date | undefined;
    for (let attempt = 1; ; attempt++) {
      if (signal.aborted) throw new ConsumerStopping(spec.groupId);
      let failure: Failure;
      try {
        const applied = await consumer.applyOnce(message);
        // Reported before the offset is committed: if this write fails, the bus delivers the
        // message again, the handler re-applies it idempotently and the outcome is written then.
        if (applied.syncChange) await this.report(applied, 'applied');
        return;
      } catch (err) {
        if (err instanceof OutcomeNotReported) throw err.cause;
        failure = consumer.classify(err);
        // A redelivery (at-least-once) of a message already set aside: it is not retried through
        // its whole budget again, the partition moves on at once.
        if (attempt === 1 && (await this.deadLetters.isRecorded(spec.groupId, message))) {
          this.deps.logger.info(
            { group: spec.groupId, topic: message.topic, partition: message.partition, offset: message.offset },
            'consumer: message already dead-lettered (redelivery); moving on',
          );
          return;
        }
        firstFailedAt ??= this.now();
        if (failure.class === 'permanent') return this.deadLetter(spec, consumer, message, failure, 'permanent', attempt, firstFailedAt);
        // The first transient failure of an owned sync change tells its connection's health
        // (best effort: the store may well be the reason it failed).
        if (attempt === 1) await this.reportBestEffort(consumer.contextOf(message), 'failed', failure);
      }
      const delay = backoffDelay(attempt, this.policy);
      const elapsed = this.now().getTime() - firstFailedAt.getTime();
      if (attempt >= this.policy.maxAttempts || elapsed + delay > this.policy.maxElapsedMs) {
        return this.deadLetter(spec, consumer, message, failure, 'budget_exhausted', attempt, firstFailedAt);
      }
      consumerRetries.inc({ service: this.service, topic: message.topic, group: spec.groupId, code: failure.code });
      this.deps.logger.warn(
        {
          group: spec.groupId,
          topic: message.topic,
          partition: message.partition,
          offset: message.offset,
          attempt,
          code: failure.code,
          err: failure.message,
          delayMs: delay,
        },
        'consumer: transient failure, retrying in place',
      );
      // A long retry must not look like a dead member to Kafka's group coordinator.
      await message.heartbeat?.().catch((err: unknown) => this.deps.logger.warn({ err, group: spec.groupId }, 'consumer: heartbeat during a retry failed'));
      await sleep(delay, signal, spec.groupId);
    }
  }

  private async deadLetter<T>(
    spec: ConsumerSpec<T>,
    consumer: Registered,
    message: DeliveredMessage,
    failure: Failure,
    reason: DeadLetterReason,
    attempts: number,
    firstFailedAt: Date,
  ): Promise<void> {
    const context = consumer.contextOf(message);
    const id = sortableId(`dlq_${this.service}`);
    const log = { group: spec.groupId, topic: message.topic, partition: message.partition, offset: message.offset, reason, code: failure.code, attempts };
    let recorded: DeadLetterDoc | null;
    try {
      recorded = await this.deps.store.transaction(async (tx) => {
        const doc = await this.deadLetters.record(
          {
            id,
            service: this.service,
            group: spec.groupId,
            message,
            failure,
            reason,
            attempts,
            firstFailedAt,
            lastFailedAt: this.now(),
            workspaceId: context.workspaceId ?? '',
            listingId: context.listingId ?? '',
          },
          tx,
        );
        if (doc) {
          const envelope = ops.DeadLetter.encode(toProtoDeadLetter(doc)).finish();
          await this.deps.outbox.add(tx, [
            {
              topic: `${message.topic}.dlq`,
              key: message.key,
              value: envelope,
              headers: { 'event-type': 'DeadLetter', 'consumer-group': spec.groupId, 'workspace-id': doc.workspaceId, 'error-code': failure.code },
            },
            // The connection's sync health learns it in the same transaction as the dead letter.
            ...(context.syncChange ? [this.outcomeRow(context, 'dead_lettered', failure)] : []),
          ]);
        }
        return doc;
      });
    } catch (err) {
      // Infrastructure failure: the message must not be lost, so the bus redelivers it later.
      this.deps.logger.error({ ...log, err }, 'consumer: the dead letter could not be stored; the message will be delivered again');
      throw err;
    }
    if (!recorded) {
      this.deps.logger.info(log, 'consumer: message already dead-lettered (redelivery); moving on');
      return;
    }
    deadLettersTotal.inc({ service: this.service, topic: message.topic, group: spec.groupId, reason, code: failure.code });
    this.deps.logger.error(
      { ...log, id, err: failure.message, workspaceId: recorded.workspaceId, listingId: recorded.listingId },
      'consumer: message dead-lettered; the partition moves on',
    );
    this.deps.outbox.flushSoon();
  }

  /** Dead letters of this service, newest first. */
  async list(query: DeadLetterQuery, window: PageWindow): Promise<{ docs: DeadLetterDoc[]; total: number }> {
    return findPage(this.deadLetters.docs, this.deadLetters.filterOf(query), { firstFailedAt: -1, _id: -1 }, window);
  }

  /**
   * Runs the group's handler once on the stored message. Applied: marked replayed (a replayed
   * dead letter is never applied again). Failed: kept, with one more attempt and the new error,
   * and the failure is thrown as an AppError (409 conflict when permanent, 503 otherwise).
   */
  async replay(id: string): Promise<DeadLetterDoc> {
    const doc = await this.own(id);
    if (doc.replayedAt)
      throw new AppError(
        'conflict',
        `Dead letter '${id}' was already replayed at ${doc.replayedAt.toISOString()}; it is never applied twice.`,
        {},
        'Nothing to do: the message is applied. Delete the dead letter to remove it from the list.',
      );
    const consumer = this.groups.get(doc.group);
    if (!consumer) throw new AppError('service_unavailable', `The consumer group '${doc.group}' is not running in the ${this.service} service.`);
    try {
      const context = await consumer.applyOnce(toDelivered(doc));
      // Before it is marked replayed: if this fails the dead letter stays open and a second
      // replay re-applies (idempotently) and reports again.
      if (context.syncChange) await this.report(context, 'applied');
    } catch (err) {
      if (err instanceof OutcomeNotReported)
        throw new AppError('service_unavailable', `Dead letter '${id}' was applied but its outcome could not be stored; replay it again.`);
      const failure = consumer.classify(err);
      await this.deadLetters.replayFailed(id, failure, this.now());
      this.deps.logger.warn({ id, group: doc.group, code: failure.code, err: failure.message }, 'dead letter replay failed');
      throw new AppError(
        failure.class === 'permanent' ? 'conflict' : 'service_unavailable',
        `Replaying dead letter '${id}' failed again (${failure.code}): ${failure.message}`,
        {},
        failure.class === 'permanent'
          ? 'Fix the cause named in the message (see docs/operations.md, "Dead letters"), then replay again, or delete the dead letter.'
          : undefined,
      );
    }
    const replayed = await this.deadLetters.replayed(id, this.now());
    this.deps.logger.info({ id, group: doc.group }, 'dead letter replayed');
    return replayed ?? (await this.own(id));
  }

  async delete(id: string): Promise<DeadLetterDoc> {
    const doc = await this.own(id);
    const removed = await this.deadLetters.remove(id);
    if (!removed) throw notFound('dead letter', id);
    // An open dead letter deleted unapplied no longer counts against its connection's health.
    const consumer = this.groups.get(doc.group);
    if (!doc.replayedAt && consumer) await this.reportBestEffort(consumer.contextOf(toDelivered(doc)), 'discarded', null);
    return removed;
  }

  /** The outbox row of a sync change's outcome (topic pms.sync.outcomes.v1, key = connection id). */
  private outcomeRow(context: MessageContext, outcome: SyncOutcomeKind, failure: Failure | null) {
    const change = context.syncChange!;
    const message = syncHealth.SyncChangeOutcome.create({
      eventId: sortableId('sco'),
      changeId: change.changeId,
      connectionId: change.connectionId,
      workspaceId: context.workspaceId ?? '',
      service: this.service,
      outcome,
      errorCode: failure?.code ?? '',
      errorMessage: failure?.message.slice(0, 1000) ?? '',
      occurredAt: this.now(),
    });
    return {
      topic: TOPICS.pmsSyncOutcomes.name,
      key: change.connectionId,
      value: syncHealth.SyncChangeOutcome.encode(message).finish(),
      headers: { 'event-id': message.eventId, 'event-type': 'SyncChangeOutcome', 'workspace-id': message.workspaceId },
    };
  }

  /** Publishes an owned sync change's outcome through the outbox; throws OutcomeNotReported when it cannot be stored. */
  private async report(context: MessageContext, outcome: SyncOutcomeKind, failure: Failure | null = null): Promise<void> {
    if (!context.syncChange) return;
    try {
      await this.deps.store.transaction((tx) => this.deps.outbox.add(tx, [this.outcomeRow(context, outcome, failure)]));
    } catch (err) {
      throw new OutcomeNotReported(err);
    }
    this.deps.outbox.flushSoon();
  }

  private async reportBestEffort(context: MessageContext, outcome: SyncOutcomeKind, failure: Failure | null): Promise<void> {
    await this.report(context, outcome, failure).catch((err: unknown) =>
      this.deps.logger.warn(
        { err, outcome, changeId: context.syncChange?.changeId },
        'consumer: the outcome of a sync change could not be reported; its connection health misses it',
      ),
    );
  }

  /** Open dead letters per consumer group of this runner (the vrp_dead_letters_open gauge). */
  async openCounts(): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const group of this.groups.keys()) out.set(group, await this.deadLetters.docs.countDocuments({ group, replayedAt: null }));
    return out;
  }

  private async own(id: string): Promise<DeadLetterDoc> {
    const doc = id.startsWith(`dlq_${this.service}_`) ? await this.deadLetters.get(id) : null;
    if (!doc) throw notFound('dead letter', id);
    return doc;
  }
}

function toDelivered(doc: DeadLetterDoc): DeliveredMessage {
  return {
    topic: doc.topic,
    partition: doc.partition,
    offset: doc.offset,
    key: doc.key,
    value: new Uint8Array(Buffer.from(doc.value, 'base64')),
    headers: { ...doc.headers },
    timestamp: String(doc.firstFailedAt.getTime()),
  };
}

export function toProtoDeadLetter(doc: DeadLetterDoc): ops.DeadLetter {
  return ops.DeadLetter.create({
    id: doc._id,
    service: doc.service,
    consumerGroup: doc.group,
    topic: doc.topic,
    partition: doc.partition,
    offset: doc.offset,
    key: doc.key,
    headers: { ...doc.headers },
    value: Buffer.from(doc.value, 'base64'),
    errorCode: doc.errorCode,
    errorMessage: doc.errorMessage,
    reason: doc.reason,
    attempts: doc.attempts,
    firstFailedAt: doc.firstFailedAt,
    lastFailedAt: doc.lastFailedAt,
    workspaceId: doc.workspaceId,
    listingId: doc.listingId,
    ...(doc.replayedAt ? { replayedAt: doc.replayedAt } : {}),
  });
}
