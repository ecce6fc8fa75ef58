// Shared contract tests for EventBus engines (jest globals). Every test uses fresh random topic
// and group names, so the suite also runs against a shared, long-lived Kafka cluster. Tests wait
// for conditions by polling (waitFor), never by sleeping and then asserting.
//
// Ordering argument used by the "only these messages" assertions: the messages that must NOT
// arrive are always published with the same keys as (and before) the ones that must, so they
// sit earlier in the same partitions; with per-partition order, any of them that would wrongly
// be delivered arrives before the last expected message, i.e. before waitFor returns.
//
// At-least-once: every engine may deliver a message again (a lost commit, a restart, a
// rebalance). The suite therefore counts and orders *first* deliveries (the first time a
// (partition, offset) arrives), and states what a repeat may be: a replay of the partition from
// an earlier offset, never a message out of order among first deliveries. With
// `redelivery: true` (the memory engine's redelivery mode) it also asserts that repeats really
// happen, and that a restarted consumer gets its handled-but-uncommitted messages again.
//
// Not part of the bus index (it needs jest); import it from tests only.

import type { BusMessage, DeliveredMessage, EventBus, SubscribeOptions, Subscription } from '@vrp/platform/bus';

export interface BusContractOptions {
  /** Longest wait for one condition. Default 5000 ms; use much more for real Kafka. */
  waitTimeoutMs?: number;
  /** Jest timeout of each test and hook. Default 4 x waitTimeoutMs. */
  testTimeoutMs?: number;
  /**
   * The engine simulates lost commits (memory redelivery mode): assert that duplicates and
   * redeliveries after a restart really happen, and that stop() does not flush lagging commits.
   */
  redelivery?: boolean;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
export const enc = (text: string): Uint8Array => encoder.encode(text);
export const dec = (bytes: Uint8Array): string => decoder.decode(bytes);

export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/** Polls `condition` every few ms until it holds; rejects after timeoutMs. */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs: number, description = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs}ms waiting for ${description}`);
    await delay(10);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

interface Collector {
  /** Every delivery, repeats included, in arrival order. */
  readonly received: DeliveredMessage[];
  /** The first delivery of each (topic, partition, offset), in arrival order. */
  readonly first: DeliveredMessage[];
  readonly handler: (message: DeliveredMessage) => Promise<void>;
  /** Values of the first deliveries. */
  ids(): string[];
  /** Deliveries of an already delivered (topic, partition, offset). */
  repeats(): number;
}

const position = (m: DeliveredMessage): string => `${m.topic}/${m.partition}@${m.offset}`;

function collector(): Collector {
  const received: DeliveredMessage[] = [];
  const first: DeliveredMessage[] = [];
  const seen = new Set<string>();
  return {
    received,
    first,
    handler: async (message) => {
      received.push(message);
      if (seen.has(position(message))) return;
      seen.add(position(message));
      first.push(message);
    },
    ids: () => first.map((m) => dec(m.value)),
    repeats: () => received.length - first.length,
  };
}

/**
 * Per partition, each delivery is the next offset after the previous one, or a replay from an
 * earlier offset (a rewind to a committed position); returns the problems found.
 */
function replayViolations(received: DeliveredMessage[]): string[] {
  const last = new Map<number, bigint>();
  const problems: string[] = [];
  for (const m of received) {
    const offset = BigInt(m.offset);
    const previous = last.get(m.partition);
    if (previous !== undefined && offset > previous + 1n) problems.push(`partition ${m.partition}: ${previous} then ${offset}`);
    last.set(m.partition, offset);
  }
  return problems;
}

/** n messages whose value (the id) is `${prefix}${i}` and key cycles through `keys`. */
function batch(prefix: string, n: number, keys: string[]): BusMessage[] {
  return Array.from({ length: n }, (_, i) => ({ key: keys[i % keys.length] ?? 'k', value: enc(`${prefix}${i}`) }));
}

const ids = (messages: BusMessage[]): string[] => messages.map((m) => dec(m.value));
const keyRange = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

function duplicates(values: string[]): string[] {
  const seen = new Set<string>();
  return values.filter((v) => (seen.has(v) ? true : (seen.add(v), false)));
}

export function describeBusContract(name: string, makeBus: () => Promise<EventBus>, options: BusContractOptions = {}): void {
  const waitMs = options.waitTimeoutMs ?? 5000;
  const testMs = options.testTimeoutMs ?? waitMs * 4;

  describe(`event bus contract: ${name}`, () => {
    let bus: EventBus | undefined;
    const subscriptions: Subscription[] = [];

    beforeAll(async () => {
      bus = await makeBus();
    }, testMs);

    afterEach(async () => {
      await Promise.allSettled(subscriptions.splice(0).map((s) => s.stop()));
    }, testMs);

    afterAll(async () => {
      await bus?.close();
    }, testMs);

    const theBus = (): EventBus => {
      if (!bus) throw new Error('bus was not created');
      return bus;
    };

    async function newTopic(partitions = 3): Promise<string> {
      const topic = uniqueName('contract');
      await theBus().ensureTopics([{ name: topic, partitions }]);
      return topic;
    }

    /** Subscribes, registers for cleanup, waits for ready. */
    async function subscribe(opts: SubscribeOptions): Promise<Subscription> {
      const subscription = await theBus().subscribe(opts);
      subscriptions.push(subscription);
      await subscription.ready;
      return subscription;
    }

    const until = (condition: () => boolean, description: string): Promise<void> => waitFor(condition, waitMs, description);

    /** Messages of `topic` that `groupId` has not committed (0 when it is not listed). */
    async function lagOf(groupId: string, topic: string): Promise<number> {
      const lags = await theBus().consumerLag();
      return lags.filter((l) => l.groupId === groupId && l.topic === topic).reduce((sum, l) => sum + l.lag, 0);
    }

    it(
      'delivers every message at least once; a repeat replays its partition from an earlier offset, first deliveries keep per-key order',
      async () => {
        const topic = await newTopic();
        const keys = keyRange('dup-', 12);
        const sent = batch('d', 96, keys);
        await theBus().publish(topic, sent);
        const c = collector();
        await subscribe({ groupId: uniqueName('g'), topics: [topic], fromBeginning: true, handler: c.handler });
        await until(() => c.first.length >= sent.length, `${sent.length} first deliveries`);
        expect(c.ids().sort()).toEqual(ids(sent).sort());
        expect(replayViolations(c.received)).toEqual([]);
        for (const key of keys) {
          const expected = ids(sent.filter((m) => m.key === key));
          expect(c.first.filter((m) => m.key === key).map((m) => dec(m.value))).toEqual(expected);
        }
        if (options.redelivery) expect(c.repeats()).toBeGreaterThan(0);
      },
      testMs,
    );

    it(
      'a restarted consumer gets again exactly what it handled without committing (the lag), then the rest',
      async () => {
        const topic = await newTopic();
        const groupId = uniqueName('g');
        const keys = keyRange('r', 9);
        let sawRedelivery = false;
        // A few rounds: with lazy commits, a round whose last commit happened to land at the
        // end has nothing to redeliver; the rule is checked in every round.
        for (let round = 0; round < 5 && !(sawRedelivery || (!options.redelivery && round > 0)); round++) {
          const before = batch(`r${round}-`, 27, keys);
          await theBus().publish(topic, before);
          const c1 = collector();
          const sub1 = await subscribe({ groupId, topics: [topic], fromBeginning: true, handler: c1.handler });
          const beforeIds = new Set(ids(before));
          await until(() => c1.ids().filter((id) => beforeIds.has(id)).length >= before.length, `round ${round}: the first consumer`);
          await sub1.stop();
          const uncommitted = await lagOf(groupId, topic);

          const after = batch(`a${round}-`, 9, keys);
          await theBus().publish(topic, after);
          const c2 = collector();
          const sub2 = await subscribe({ groupId, topics: [topic], fromBeginning: true, handler: c2.handler });
          const afterIds = new Set(ids(after));
          await until(() => c2.ids().filter((id) => afterIds.has(id)).length >= after.length, `round ${round}: the restarted consumer`);
          await sub2.stop();
          const again = c2.first.filter((m) => !afterIds.has(dec(m.value)));
          expect(again).toHaveLength(uncommitted);
          // Per partition, what comes again is the tail of what the first consumer handled.
          for (const partition of new Set(again.map((m) => m.partition))) {
            const handled = c1.first.filter((m) => m.partition === partition).map((m) => m.offset);
            const repeated = again.filter((m) => m.partition === partition).map((m) => m.offset);
            expect(repeated).toEqual(handled.slice(handled.length - repeated.length));
          }
          if (uncommitted > 0) sawRedelivery = true;
        }
        if (options.redelivery) expect(sawRedelivery).toBe(true);
      },
      testMs,
    );

    it('reports ready and the engine name', async () => {
      await expect(theBus().ready()).resolves.toBe(true);
      expect(['memory', 'kafka']).toContain(theBus().engine);
    });

    it(
      'delivers published messages with key, value and headers intact to a fromBeginning group',
      async () => {
        const topic = await newTopic();
        const binary = Uint8Array.from({ length: 256 }, (_, i) => i);
        const sent: BusMessage[] = [
          { key: 'listing-1', value: enc('{"n":1}'), headers: { 'content-type': 'application/json', 'x-trace': 'abc-123' } },
          { key: 'listing-2', value: binary, headers: { 'x-unicode': 'héllo ☃', empty: '' } },
          { key: 'listing-1', value: enc('{"n":2}') },
          { key: 'ключ-☃', value: enc('unicode key') },
        ];
        const before = Date.now();
        await theBus().publish(topic, sent.slice(0, 2));
        await theBus().publish(topic, sent.slice(2));
        const after = Date.now();

        const c = collector();
        await subscribe({ groupId: uniqueName('g'), topics: [topic], fromBeginning: true, handler: c.handler });
        await until(() => c.first.length >= sent.length, `${sent.length} messages`);
        expect(c.first).toHaveLength(sent.length);

        for (const s of sent) {
          const r = c.first.find((m) => m.key === s.key && dec(m.value) === dec(s.value));
          if (!r) throw new Error(`message ${s.key}/${dec(s.value)} not delivered`);
          expect(Array.from(r.value)).toEqual(Array.from(s.value));
          expect(r.headers ?? {}).toEqual(s.headers ?? {});
          expect(r.topic).toBe(topic);
          expect(Number.isInteger(r.partition) && r.partition >= 0 && r.partition < 3).toBe(true);
          expect(r.offset).toMatch(/^\d+$/);
          expect(r.timestamp).toMatch(/^\d+$/);
          expect(Number(r.timestamp)).toBeGreaterThanOrEqual(before - 60_000);
          expect(Number(r.timestamp)).toBeLessThanOrEqual(after + 60_000);
        }
        const sameKey = c.first.filter((m) => m.key === 'listing-1');
        expect(sameKey.map((m) => dec(m.value))).toEqual(['{"n":1}', '{"n":2}']);
        expect(sameKey[0]?.partition).toBe(sameKey[1]?.partition);
        expect(BigInt(sameKey[0]?.offset ?? '0')).toBeLessThan(BigInt(sameKey[1]?.offset ?? '0'));
      },
      testMs,
    );

    it(
      'keeps per-key order with many keys interleaved',
      async () => {
        const topic = await newTopic();
        const keys = keyRange('key-', 12);
        const perKey = 25;
        const all: BusMessage[] = [];
        for (let i = 0; i < perKey; i++) for (const key of keys) all.push({ key, value: enc(`${key}:${i}`) });
        // Uneven publish calls, so batches cut across keys.
        for (let i = 0; i < all.length; i += 37) await theBus().publish(topic, all.slice(i, i + 37));

        const c = collector();
        await subscribe({ groupId: uniqueName('g'), topics: [topic], fromBeginning: true, handler: c.handler });
        await until(() => c.first.length >= all.length, `${all.length} messages`);
        expect(c.first).toHaveLength(all.length);
        expect(replayViolations(c.received)).toEqual([]);

        for (const key of keys) {
          const mine = c.first.filter((m) => m.key === key);
          expect(mine.map((m) => dec(m.value))).toEqual(Array.from({ length: perKey }, (_, i) => `${key}:${i}`));
          expect(new Set(mine.map((m) => m.partition)).size).toBe(1);
        }
        const lastOffset = new Map<number, bigint>();
        for (const m of c.first) {
          const offset = BigInt(m.offset);
          const previous = lastOffset.get(m.partition);
          if (previous !== undefined) expect(offset).toBeGreaterThan(previous);
          lastOffset.set(m.partition, offset);
        }
        expect(lastOffset.size).toBeGreaterThan(1); // the keys did spread over partitions
      },
      testMs,
    );

    it(
      'gives every group every message',
      async () => {
        const topic = await newTopic();
        const keys = keyRange('k', 10);
        const early = batch('early-', 30, keys);
        await theBus().publish(topic, early);
        const a = collector();
        const b = collector();
        await subscribe({ groupId: uniqueName('ga'), topics: [topic], fromBeginning: true, handler: a.handler });
        await subscribe({ groupId: uniqueName('gb'), topics: [topic], fromBeginning: true, handler: b.handler });
        const late = batch('late-', 30, keys);
        await theBus().publish(topic, late);

        const expected = [...ids(early), ...ids(late)].sort();
        await until(() => a.first.length >= 60 && b.first.length >= 60, 'both groups to receive 60');
        expect(a.ids().sort()).toEqual(expected);
        expect(b.ids().sort()).toEqual(expected);
      },
      testMs,
    );

    it(
      'splits the partitions between the members of one group, each message to one member',
      async () => {
        const topic = await newTopic();
        const groupId = uniqueName('g');
        const a = collector();
        const b = collector();
        await subscribe({ groupId, topics: [topic], fromBeginning: true, handler: a.handler });
        await subscribe({ groupId, topics: [topic], fromBeginning: true, handler: b.handler });
        const sent = batch('m', 60, keyRange('k', 30));
        await theBus().publish(topic, sent);

        await until(() => new Set([...a.ids(), ...b.ids()]).size >= sent.length, 'all messages across members');
        expect(duplicates([...a.ids(), ...b.ids()])).toEqual([]);
        expect([...a.ids(), ...b.ids()].sort()).toEqual(ids(sent).sort());
        expect(a.received.length).toBeGreaterThan(0);
        expect(b.received.length).toBeGreaterThan(0);
        const partitionsA = new Set(a.first.map((m) => m.partition));
        expect(b.first.filter((m) => partitionsA.has(m.partition))).toEqual([]);
      },
      testMs,
    );

    it(
      'resumes a group after its committed offsets',
      async () => {
        const topic = await newTopic();
        const groupId = uniqueName('g');
        const keys = keyRange('k', 6);
        const first = batch('first-', 12, keys);
        await theBus().publish(topic, first);
        const c1 = collector();
        const sub1 = await subscribe({ groupId, topics: [topic], fromBeginning: true, handler: c1.handler });
        await until(() => c1.first.length >= first.length, 'the first batch');
        await sub1.stop();
        expect(c1.ids().sort()).toEqual(ids(first).sort());
        const uncommitted = await lagOf(groupId, topic);

        const second = batch('second-', 12, keys);
        await theBus().publish(topic, second);
        const c2 = collector();
        // fromBeginning only applies without committed offsets: the group resumes.
        await subscribe({ groupId, topics: [topic], fromBeginning: true, handler: c2.handler });
        const secondIds = new Set(ids(second));
        await until(() => c2.ids().filter((id) => secondIds.has(id)).length >= second.length, 'the second batch');
        // Besides the second batch, only what the first consumer handled without committing.
        const again = c2.ids().filter((id) => !secondIds.has(id));
        expect(again.length).toBe(uncommitted);
        expect(again.every((id) => id.startsWith('first-'))).toBe(true);
      },
      testMs,
    );

    it(
      'starts a new group at the end when fromBeginning is false',
      async () => {
        const topic = await newTopic();
        const keys = keyRange('k', 6);
        const old = batch('old-', 12, keys);
        await theBus().publish(topic, old);
        const c = collector();
        await subscribe({ groupId: uniqueName('g'), topics: [topic], fromBeginning: false, handler: c.handler });
        const fresh = batch('new-', 12, keys);
        await theBus().publish(topic, fresh);
        await until(() => c.first.length >= fresh.length, 'the messages published after ready');
        expect(c.ids().sort()).toEqual(ids(fresh).sort());
      },
      testMs,
    );

    it(
      'redelivers a message whose handler threw, holding back the rest of its partition',
      async () => {
        const topic = await newTopic();
        const sent: BusMessage[] = [...batch('m', 5, ['order-1']), ...batch('o', 3, ['order-2', 'order-3'])];
        await theBus().publish(topic, sent);
        const attempts: Array<{ id: string; partition: number; offset: string; ok: boolean }> = [];
        let failed = false;
        await subscribe({
          groupId: uniqueName('g'),
          topics: [topic],
          fromBeginning: true,
          handler: async (m) => {
            const id = dec(m.value);
            if (id === 'm1' && !failed) {
              failed = true;
              attempts.push({ id, partition: m.partition, offset: m.offset, ok: false });
              // A TypeError on purpose: kafkajs treats it as fatal unless the engine wraps it.
              throw new TypeError('handler failure (test)');
            }
            attempts.push({ id, partition: m.partition, offset: m.offset, ok: true });
          },
        });
        const okIds = (): Set<string> => new Set(attempts.filter((a) => a.ok).map((a) => a.id));
        await until(() => ids(sent).every((id) => okIds().has(id)), 'every message handled successfully');

        const key1 = attempts.filter((a) => a.id.startsWith('m'));
        const labels = key1.map((a) => `${a.id}:${a.ok ? 'ok' : 'fail'}`);
        // First successes in order; m1 failed once and came back before anything after it.
        expect([...new Set(key1.filter((a) => a.ok).map((a) => a.id))]).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
        const failedAt = labels.indexOf('m1:fail');
        const retriedAt = labels.indexOf('m1:ok');
        expect(failedAt).toBeGreaterThan(labels.indexOf('m0:ok'));
        expect(retriedAt).toBeGreaterThan(failedAt);
        expect(labels.slice(0, retriedAt).some((l) => /^m[234]:/.test(l))).toBe(false);
        expect(key1[retriedAt]?.offset).toBe(key1[failedAt]?.offset);
        expect(key1[retriedAt]?.partition).toBe(key1[failedAt]?.partition);
      },
      testMs,
    );

    it(
      'replays the topic from the start for a new fromBeginning group',
      async () => {
        const topic = await newTopic();
        const keys = keyRange('k', 5);
        const sent = batch('m', 20, keys);
        await theBus().publish(topic, sent);
        const first = collector();
        const sub = await subscribe({ groupId: uniqueName('g1'), topics: [topic], fromBeginning: true, handler: first.handler });
        await until(() => first.first.length >= sent.length, 'the first group');
        await sub.stop();

        const replay = collector();
        await subscribe({ groupId: uniqueName('g2'), topics: [topic], fromBeginning: true, handler: replay.handler });
        await until(() => replay.first.length >= sent.length, 'the replaying group');
        expect(replay.ids().sort()).toEqual(ids(sent).sort());
        for (const key of keys) {
          const order = (c: Collector): string[] => c.first.filter((m) => m.key === key).map((m) => dec(m.value));
          expect(order(replay)).toEqual(order(first));
        }
      },
      testMs,
    );

    it(
      options.redelivery
        ? 'stop() waits for the in-flight handler; its lagging commit is lost, so the group gets it again'
        : 'stop() waits for the in-flight handler and commits its offset',
      async () => {
        const topic = await newTopic();
        const groupId = uniqueName('g');
        const sent = batch('s', 3, ['same-key']);
        await theBus().publish(topic, sent);
        const events: string[] = [];
        let release!: () => void;
        const gate = new Promise<void>((resolve) => {
          release = resolve;
        });
        const sub = await subscribe({
          groupId,
          topics: [topic],
          fromBeginning: true,
          handler: async (m) => {
            const id = dec(m.value);
            events.push(`start ${id}`);
            if (id === 's0') await gate;
            events.push(`done ${id}`);
          },
        });
        await until(() => events.includes('start s0'), 'the first delivery');
        const stopped = sub.stop().then(() => {
          events.push('stopped');
        });
        await delay(100); // give a stop() that does not wait the chance to finish early
        release();
        await stopped;
        expect(events).toEqual(['start s0', 'done s0', 'stopped']);

        const c = collector();
        await subscribe({ groupId, topics: [topic], fromBeginning: true, handler: c.handler });
        await until(() => c.ids().includes('s2'), 'the rest of the partition');
        expect(c.ids()).toEqual(options.redelivery ? ['s0', 's1', 's2'] : ['s1', 's2']);
      },
      testMs,
    );
  });
}
