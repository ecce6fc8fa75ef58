// Component test of the consumer runner: one small service (a consumer group plus
// DeadLetterService over real gRPC) on the embedded engines. It proves that no message blocks a
// partition: a permanent failure is dead-lettered at once, a transient one is retried in place
// and dead-lettered past the budget, and the later messages of the partition are applied; that a
// dead letter is stored once and published on <topic>.dlq; that a store outage makes the bus
// redeliver instead of losing the message; and the operators' list, replay and delete.
import { ops, syncHealth, TOPICS } from '@vrp/contracts';
import { createMemoryBus, type MemoryEventBus } from '../../engines/src/bus';
import type { DeliveredMessage, EventBus, TopicSpec } from '../src/bus/port';
import { PermanentError, TransientError } from '../src/consumer/failure';
import { deadLetterService } from '../src/consumer/grpc';
import { ConsumerRunner, describeSyncChange, type RetryPolicy } from '../src/consumer/runner';
import { AppError } from '../src/errors/app-error';
import { createUpstream, type Upstream } from '../src/grpc/client';
import { createLogger } from '../src/logging';
import { registry } from '../src/metrics';
import { Outbox } from '../src/outbox';
import { startService, type RunningService } from '../src/service';
import { createMemoryStore } from '../../engines/src/store';
import type { DocumentStore } from '../src/store/port';
// By path: @vrp/testkit depends on this package; these modules of it depend on nothing.
import { rejectionOf } from '../../testkit/src/rejection';
import { until } from '../../testkit/src/wait';

const logger = createLogger('test', 'silent');
const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);
const TOPIC: TopicSpec = { name: 'things.v1', partitions: 3 };
const GROUP = 'things-applier';
/** Tiny budget so the test does not wait: 3 attempts, 1-2 ms apart. */
const FAST: Partial<RetryPolicy> = { maxAttempts: 3, baseDelayMs: 2, maxDelayMs: 4 };

const errorOf = (p: Promise<unknown>): Promise<AppError> => rejectionOf(p, AppError);

/** A store whose transactions fail while `down` is set (the dead letter cannot be stored). */
function flakyStore(inner: DocumentStore): DocumentStore & { down: boolean } {
  const store = {
    down: false,
    engine: inner.engine,
    collection: inner.collection.bind(inner),
    transaction<R>(work: Parameters<DocumentStore['transaction']>[0]): Promise<R> {
      if (store.down) return Promise.reject(Object.assign(new Error('store unavailable'), { name: 'StoreUnavailableError' }));
      return inner.transaction(work) as Promise<R>;
    },
    ready: () => inner.ready(),
    close: () => inner.close(),
  };
  return store as DocumentStore & { down: boolean };
}

/**
 * The message "body" decides what the handler does: "ok:<x>" applies x, "perm:<x>" fails for
 * good until x is in `fixed`, "busy:<x>" fails transiently until x is in `fixed`.
 */
async function startWorld(retry: Partial<RetryPolicy> = FAST) {
  // These tests count the runner's own attempts, so the bus delivers each message once; the
  // redelivery case has its own test below.
  const bus: MemoryEventBus = createMemoryBus({ retryInitialMs: 5, retryMaxMs: 20, onHandlerError: () => undefined, redelivery: false });
  const store = flakyStore(createMemoryStore());
  const outbox = new Outbox(store, bus, logger);
  const runner = new ConsumerRunner({ service: 'things', store, bus, outbox, logger, retry });
  const applied: string[] = [];
  const calls = new Map<string, number>();
  const fixed = new Set<string>();
  const sub = await runner.subscribe({
    groupId: GROUP,
    topics: [TOPIC],
    fromBeginning: true,
    decode: (bytes) => {
      const body = dec(bytes);
      if (!/^(ok|perm|busy):/.test(body)) throw new Error(`not a thing: ${body}`);
      return body;
    },
    describe: (body) => ({ workspaceId: 'ws_things', listingId: body.split(':')[1] }),
    handle: async (body) => {
      calls.set(body, (calls.get(body) ?? 0) + 1);
      const [kind, x] = body.split(':') as [string, string];
      if (kind === 'perm' && !fixed.has(x)) throw new PermanentError('thing_missing', `thing ${x} does not exist`);
      if (kind === 'busy' && !fixed.has(x)) throw new AppError('service_unavailable', `upstream of ${x} is down`);
      if (!applied.includes(x)) applied.push(x);
    },
  });
  await sub.ready;
  const service: RunningService = await startService({
    name: 'things',
    grpcPort: 0,
    opsPort: 0,
    host: '127.0.0.1',
    services: [deadLetterService(runner)],
    checks: {},
    logger,
  });
  const client: Upstream<ops.DeadLetterServiceClient> = createUpstream(ops.DeadLetterServiceClient, {
    name: 'things-dlq',
    address: `127.0.0.1:${service.grpcPort}`,
  });
  const dlq: ops.DeadLetter[] = [];
  const dlqSub = await bus.subscribe({
    groupId: 'dlq-reader',
    topics: [`${TOPIC.name}.dlq`],
    fromBeginning: true,
    handler: async (m) => void dlq.push(ops.DeadLetter.decode(m.value)),
  });
  const publish = (key: string, ...bodies: string[]) =>
    bus.publish(
      TOPIC.name,
      bodies.map((b) => ({ key, value: enc(b), headers: { 'event-id': `evt_${b}` } })),
    );
  const list = async (req: Partial<ops.ListDeadLettersRequest> = {}) =>
    (await client.call('listDeadLetters', ops.ListDeadLettersRequest.create(req))).deadLetters;
  return {
    bus,
    store,
    runner,
    applied,
    calls,
    fixed,
    client,
    dlq,
    publish,
    list,
    async stop() {
      client.close();
      await dlqSub.stop();
      await sub.stop();
      await service.stop();
      await outbox.stop();
    },
  };
}

type World = Awaited<ReturnType<typeof startWorld>>;

describe('consumer runner', () => {
  let w: World;
  afterEach(async () => {
    await w?.stop();
  });

  it('dead-letters a permanent failure at once, and the later messages of its partition are applied', async () => {
    w = await startWorld();
    await w.publish('k1', 'ok:a', 'perm:b', 'ok:c');
    await w.bus.whenIdle(5000);
    expect(w.applied).toEqual(['a', 'c']);
    expect(w.calls.get('perm:b')).toBe(1);
    const [dl, ...more] = await w.list();
    expect(more).toEqual([]);
    expect(dl).toMatchObject({
      service: 'things',
      consumerGroup: GROUP,
      topic: TOPIC.name,
      offset: '1',
      key: 'k1',
      headers: { 'event-id': 'evt_perm:b' },
      errorCode: 'thing_missing',
      errorMessage: 'thing b does not exist',
      reason: 'permanent',
      attempts: 1,
      workspaceId: 'ws_things',
      listingId: 'b',
    });
    expect(dec(dl!.value)).toBe('perm:b');
    expect(dl!.id).toMatch(/^dlq_things_/);
    expect(dl!.replayedAt).toBeUndefined();
    // The same envelope is published on things.v1.dlq (outbox, same transaction as the record).
    await until(
      () => w.dlq.length,
      (n) => n === 1,
      { what: 'the .dlq message' },
    );
    expect(w.dlq[0]).toEqual(dl);
    const metrics = await registry.getSingleMetricAsString('vrp_dead_letters_total');
    expect(metrics).toContain(`vrp_dead_letters_total{service="things",topic="things.v1",group="${GROUP}",reason="permanent",code="thing_missing"}`);
    expect(await registry.getSingleMetricAsString('vrp_dead_letters_open')).toContain(`vrp_dead_letters_open{service="things",group="${GROUP}"} 1`);
  });

  it('dead-letters an undecodable payload as malformed_payload without calling the handler', async () => {
    w = await startWorld();
    await w.publish('k1', 'garbage', 'ok:a');
    await w.bus.whenIdle(5000);
    expect(w.applied).toEqual(['a']);
    const [dl] = await w.list();
    expect(dl).toMatchObject({ errorCode: 'malformed_payload', reason: 'permanent', attempts: 1, workspaceId: '' });
    expect(dl!.errorMessage).toContain('not a thing: garbage');
  });

  it('retries a transient failure in place and applies it once it passes, without a dead letter', async () => {
    w = await startWorld({ maxAttempts: 50, baseDelayMs: 2, maxDelayMs: 4 });
    await w.publish('k1', 'busy:a', 'ok:b');
    await until(
      () => w.calls.get('busy:a') ?? 0,
      (n) => n >= 3,
      { what: 'three attempts' },
    );
    expect(w.applied).toEqual([]); // b waits behind a: order within the partition holds
    w.fixed.add('a');
    await w.bus.whenIdle(5000);
    expect(w.applied).toEqual(['a', 'b']);
    expect(await w.list({ status: 'all' })).toEqual([]);
  });

  it('dead-letters a transient failure past the attempt budget, then moves on', async () => {
    w = await startWorld();
    await w.publish('k1', 'busy:a', 'ok:b');
    await w.bus.whenIdle(5000);
    expect(w.calls.get('busy:a')).toBe(3);
    expect(w.applied).toEqual(['b']);
    expect(await w.list()).toEqual([expect.objectContaining({ errorCode: 'service_unavailable', reason: 'budget_exhausted', attempts: 3 })]);
  });

  it('dead-letters a transient failure past the time budget even with attempts left', async () => {
    w = await startWorld({ maxAttempts: 1000, maxElapsedMs: 60, baseDelayMs: 10, maxDelayMs: 20 });
    await w.publish('k1', 'busy:a', 'ok:b');
    await w.bus.whenIdle(5000);
    const [dl] = await w.list();
    expect(dl).toMatchObject({ reason: 'budget_exhausted' });
    expect(dl!.attempts).toBeLessThan(20);
    expect(dl!.lastFailedAt!.getTime() - dl!.firstFailedAt!.getTime()).toBeLessThanOrEqual(60 + 50);
    expect(w.applied).toEqual(['b']);
  });

  it('lets the bus redeliver when the dead letter cannot be stored, and records it once the store is back', async () => {
    w = await startWorld();
    w.store.down = true;
    await w.publish('k1', 'perm:a', 'ok:b');
    // Each delivery fails at once and is dead-lettered; the dead letter cannot be stored: redelivered.
    await until(
      () => w.calls.get('perm:a') ?? 0,
      (n) => n >= 3,
      { what: 'redeliveries while the store is down' },
    );
    expect(w.applied).toEqual([]);
    w.store.down = false;
    await w.bus.whenIdle(5000);
    expect(w.applied).toEqual(['b']);
    expect(await w.list()).toEqual([expect.objectContaining({ offset: '0', errorCode: 'thing_missing', attempts: 1 })]);
  });

  it('records a redelivered message once (unique on group, topic, partition and offset)', async () => {
    w = await startWorld();
    await w.publish('k1', 'perm:a');
    await w.bus.whenIdle(5000);
    const [first] = await w.list();
    // The same group meets the same message again (a redelivery after a crash before the commit).
    const message: DeliveredMessage = {
      topic: first!.topic,
      partition: first!.partition,
      offset: first!.offset,
      key: first!.key,
      value: first!.value,
      headers: first!.headers,
      timestamp: '0',
    };
    const again = await w.runner.deadLetters.docs.countDocuments({});
    await w.store.transaction(async (tx) => {
      const res = await w.runner.deadLetters.record(
        {
          id: 'dlq_things_dup',
          service: 'things',
          group: GROUP,
          message,
          failure: { class: 'permanent', code: 'x', message: 'x' },
          reason: 'permanent',
          attempts: 1,
          firstFailedAt: new Date(),
          lastFailedAt: new Date(),
          workspaceId: '',
          listingId: '',
        },
        tx,
      );
      expect(res).toBeNull();
    });
    expect(again).toBe(1);
    expect(await w.list()).toEqual([first]);
  });

  it('replays: a failed replay keeps the dead letter with the new error, a successful one applies once and marks it', async () => {
    w = await startWorld();
    await w.publish('k1', 'perm:a');
    await w.bus.whenIdle(5000);
    const [dl] = await w.list();
    const id = dl!.id;

    const failed = await errorOf(w.client.call('replayDeadLetter', { id }));
    expect(failed.code).toBe('conflict');
    expect(failed.message).toContain('thing_missing');
    expect(await w.list()).toEqual([expect.objectContaining({ id, attempts: 2, errorCode: 'thing_missing' })]);

    w.fixed.add('a');
    const replayed = (await w.client.call('replayDeadLetter', { id })).deadLetter!;
    expect(replayed.replayedAt).toBeInstanceOf(Date);
    expect(replayed.attempts).toBe(3);
    expect(w.applied).toEqual(['a']);
    expect(w.calls.get('perm:a')).toBe(3);

    // Replaying again never runs the handler a second time.
    expect((await errorOf(w.client.call('replayDeadLetter', { id }))).code).toBe('conflict');
    expect(w.calls.get('perm:a')).toBe(3);
    expect(await w.list()).toEqual([]);
    expect(await w.list({ status: 'replayed' })).toEqual([expect.objectContaining({ id })]);
  });

  it('answers 503 service_unavailable when a replay fails transiently', async () => {
    w = await startWorld();
    await w.publish('k1', 'busy:a');
    await w.bus.whenIdle(5000);
    const [dl] = await w.list();
    expect((await errorOf(w.client.call('replayDeadLetter', { id: dl!.id }))).code).toBe('service_unavailable');
    expect(await w.list()).toEqual([expect.objectContaining({ id: dl!.id, attempts: 4 })]);
  });

  it('lists with filters and pages, deletes, and answers not_found for unknown or foreign ids', async () => {
    w = await startWorld();
    await w.publish('k1', 'perm:a', 'perm:b', 'perm:c');
    await w.bus.whenIdle(5000);
    const all = await w.list();
    expect(all.map((d) => d.listingId)).toEqual(['c', 'b', 'a']); // newest first
    expect(await w.list({ topic: 'other.v1' })).toEqual([]);
    expect(await w.list({ consumerGroup: 'other' })).toEqual([]);
    expect(await w.list({ workspaceId: 'ws_things' })).toHaveLength(3);
    const page = await w.client.call('listDeadLetters', { topic: '', consumerGroup: '', workspaceId: '', status: '', page: { limit: 2, offset: 1 } });
    expect(page.deadLetters.map((d) => d.listingId)).toEqual(['b', 'a']);
    expect(page.page).toEqual({ total: 3, limit: 2, offset: 1, hasMore: false });
    expect((await errorOf(w.client.call('listDeadLetters', { topic: '', consumerGroup: '', workspaceId: '', status: 'weird' }))).code).toBe(
      'validation_failed',
    );

    const deleted = (await w.client.call('deleteDeadLetter', { id: all[0]!.id })).deadLetter!;
    expect(deleted.listingId).toBe('c');
    expect((await w.list()).map((d) => d.listingId)).toEqual(['b', 'a']);
    expect((await errorOf(w.client.call('deleteDeadLetter', { id: all[0]!.id }))).code).toBe('not_found');
    expect((await errorOf(w.client.call('replayDeadLetter', { id: 'dlq_other_123' }))).code).toBe('not_found');
    expect((await errorOf(w.client.call('replayDeadLetter', { id: '' }))).code).toBe('validation_failed');
  });

  it('stops at once during a long backoff, leaving the message uncommitted for the next member', async () => {
    w = await startWorld({ maxAttempts: 100, maxElapsedMs: 600_000, baseDelayMs: 60_000, maxDelayMs: 60_000 });
    await w.publish('k1', 'busy:a');
    await until(
      () => w.calls.get('busy:a') ?? 0,
      (n) => n === 1,
      { what: 'the first attempt' },
    );
    const started = Date.now();
    await w.stop();
    expect(Date.now() - started).toBeLessThan(5000);
    expect((await w.runner.list({ status: 'all' }, { limit: 10, offset: 0 })).total).toBe(0);
    // Not committed: the next member of the group receives the message.
    const seen: string[] = [];
    const next = await w.bus.subscribe({ groupId: GROUP, topics: [TOPIC.name], fromBeginning: true, handler: async (m) => void seen.push(dec(m.value)) });
    await w.bus.whenIdle(5000);
    await next.stop();
    expect(seen).toEqual(['busy:a']);
    w = undefined as unknown as World;
  });
});

describe('heartbeats during retries', () => {
  it('calls the engine’s heartbeat before each backoff, so a long retry keeps the Kafka member in its group', async () => {
    const inner = createMemoryBus({ onHandlerError: () => undefined, redelivery: false });
    let beats = 0;
    // The Kafka engine hands each message a heartbeat(); this bus does the same over the memory engine.
    const bus: EventBus = {
      engine: inner.engine,
      ensureTopics: (topics) => inner.ensureTopics(topics),
      publish: (topic, messages) => inner.publish(topic, messages),
      subscribe: (o) => inner.subscribe({ ...o, handler: (m) => o.handler({ ...m, heartbeat: async () => void beats++ }) }),
      ready: () => inner.ready(),
      consumerLag: () => inner.consumerLag(),
      close: () => inner.close(),
    };
    const store = createMemoryStore();
    const outbox = new Outbox(store, bus, logger);
    const runner = new ConsumerRunner({ service: 'beat', store, bus, outbox, logger, retry: { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 2 } });
    const sub = await runner.subscribe({
      groupId: 'beat',
      topics: [TOPIC],
      fromBeginning: true,
      decode: (b) => dec(b),
      handle: async () => Promise.reject(new TransientError('busy', 'busy')),
    });
    await sub.ready;
    await inner.publish(TOPIC.name, [{ key: 'k', value: enc('x') }]);
    await inner.whenIdle(5000);
    expect(beats).toBe(3); // between the four attempts
    await sub.stop();
    await outbox.stop();
  });
});

describe('redelivery of a dead-lettered message', () => {
  it('moves on after one attempt instead of running the retry budget again', async () => {
    const inner = createMemoryBus({ onHandlerError: () => undefined, redelivery: false });
    // Every message is delivered twice at the same offset, as Kafka does after a crash before the commit.
    const bus: EventBus = {
      engine: inner.engine,
      ensureTopics: (topics) => inner.ensureTopics(topics),
      publish: (topic, messages) => inner.publish(topic, messages),
      subscribe: (o) =>
        inner.subscribe({
          ...o,
          handler: async (m) => {
            await o.handler(m);
            await o.handler(m);
          },
        }),
      ready: () => inner.ready(),
      consumerLag: () => inner.consumerLag(),
      close: () => inner.close(),
    };
    const store = createMemoryStore();
    const outbox = new Outbox(store, bus, logger);
    const runner = new ConsumerRunner({ service: 'dup', store, bus, outbox, logger, retry: FAST });
    let calls = 0;
    const sub = await runner.subscribe({
      groupId: 'dup',
      topics: [TOPIC],
      fromBeginning: true,
      decode: (b) => dec(b),
      handle: async () => {
        calls++;
        throw new TransientError('busy', 'busy');
      },
    });
    await sub.ready;
    await inner.publish(TOPIC.name, [{ key: 'k', value: enc('x') }]);
    await inner.whenIdle(5000);
    expect(calls).toBe(FAST.maxAttempts! + 1);
    expect(await runner.deadLetters.docs.countDocuments({})).toBe(1);
    await sub.stop();
    await outbox.stop();
  });
});

describe('retry classification through the runner', () => {
  it('retries TransientError and unknown errors, dead-letters DocumentValidationError at once', async () => {
    const bus = createMemoryBus({ onHandlerError: () => undefined });
    const store = createMemoryStore();
    const outbox = new Outbox(store, bus, logger);
    const runner = new ConsumerRunner({ service: 'cls', store, bus, outbox, logger, retry: FAST });
    const calls = new Map<string, number>();
    const sub = await runner.subscribe({
      groupId: 'cls',
      topics: [TOPIC],
      fromBeginning: true,
      decode: (b) => dec(b),
      handle: async (body) => {
        calls.set(body, (calls.get(body) ?? 0) + 1);
        if (body === 'transient') throw new TransientError('listing_not_imported', 'not yet');
        if (body === 'unknown') throw new Error('something odd');
        if (body === 'invalid') throw Object.assign(new Error('bad doc'), { name: 'DocumentValidationError' });
      },
    });
    await sub.ready;
    await bus.publish(
      TOPIC.name,
      ['transient', 'unknown', 'invalid'].map((b) => ({ key: 'k', value: enc(b) })),
    );
    await bus.whenIdle(5000);
    expect(Object.fromEntries(calls)).toEqual({ transient: 3, unknown: 3, invalid: 1 });
    const { docs } = await runner.list({ status: 'open' }, { limit: 10, offset: 0 });
    expect(docs.map((d) => [dec(Buffer.from(d.value, 'base64')), d.reason, d.errorCode]).sort()).toEqual([
      ['invalid', 'permanent', 'validation_failed'],
      ['transient', 'budget_exhausted', 'listing_not_imported'],
      ['unknown', 'budget_exhausted', 'Error'],
    ]);
    await sub.stop();
    await outbox.stop();
  });
});

describe('outcomes of owned PMS sync changes (pms.sync.outcomes.v1)', () => {
  it('reports applied, failed once, dead-lettered, replayed and discarded for owned changes only', async () => {
    const bus: MemoryEventBus = createMemoryBus({ retryInitialMs: 5, retryMaxMs: 20, onHandlerError: () => undefined, redelivery: false });
    const store = createMemoryStore();
    const outbox = new Outbox(store, bus, logger);
    const runner = new ConsumerRunner({ service: 'things', store, bus, outbox, logger, retry: FAST });
    const failedOnce = new Set<string>();
    const fixed = new Set<string>();
    // "<kind>:<x>": ok applies, perm fails for good until fixed, once fails transiently the first time.
    // Changes named own* belong to this group; the others are skipped by it (no outcome).
    const sub = await runner.subscribe({
      groupId: GROUP,
      topics: [TOPIC],
      fromBeginning: true,
      reportsSyncOutcomes: true,
      decode: (bytes) => dec(bytes),
      describe: (body) =>
        describeSyncChange({ workspaceId: 'ws_sync', connectionId: 'pmc_1', changeId: `chg_${body.split(':')[1]}` }, body.split(':')[1]!.startsWith('own')),
      handle: async (body) => {
        const [kind, x] = body.split(':') as [string, string];
        if (kind === 'perm' && !fixed.has(x)) throw new PermanentError('thing_missing', `thing ${x} does not exist`);
        if (kind === 'once' && !failedOnce.has(x)) {
          failedOnce.add(x);
          throw new TransientError('busy', `${x} is busy`);
        }
      },
    });
    await sub.ready;
    const outcomes: syncHealth.SyncChangeOutcome[] = [];
    const reader = await bus.subscribe({
      groupId: 'outcome-reader',
      topics: [TOPICS.pmsSyncOutcomes.name],
      fromBeginning: true,
      handler: async (m) => void outcomes.push(syncHealth.SyncChangeOutcome.decode(m.value)),
    });
    try {
      await bus.publish(
        TOPIC.name,
        ['ok:own1', 'ok:other', 'perm:own2', 'once:own3', 'perm:own4', 'perm:other2'].map((b) => ({ key: 'k', value: enc(b) })),
      );
      const summary = () => outcomes.map((o) => `${o.changeId}:${o.outcome}${o.errorCode ? `:${o.errorCode}` : ''}`);
      await until(summary, (s) => s.length >= 5, { what: 'the outcomes' });
      expect(summary()).toEqual([
        'chg_own1:applied',
        'chg_own2:dead_lettered:thing_missing',
        'chg_own3:failed:busy',
        'chg_own3:applied',
        'chg_own4:dead_lettered:thing_missing',
      ]);
      expect(outcomes.every((o) => o.connectionId === 'pmc_1' && o.workspaceId === 'ws_sync' && o.service === 'things')).toBe(true);

      const letters = (await runner.list({ status: 'all' }, { limit: 10, offset: 0 })).docs;
      const idOf = (x: string) => letters.find((d) => Buffer.from(d.value, 'base64').toString().endsWith(`:${x}`))!._id;
      fixed.add('own2');
      await runner.replay(idOf('own2'));
      await runner.delete(idOf('own4'));
      // The skipped change's dead letter reports nothing when deleted.
      await runner.delete(idOf('other2'));
      await until(summary, (s) => s.length >= 7, { what: 'replay and delete outcomes' });
      expect(summary().slice(5)).toEqual(['chg_own2:applied', 'chg_own4:discarded']);
    } finally {
      await reader.stop();
      await sub.stop();
      await outbox.stop();
    }
  });
});
