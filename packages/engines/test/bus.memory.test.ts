// Memory-engine specifics not covered by the shared contract (bus.contract.test.ts).
import { Partitioners, type PartitionMetadata } from 'kafkajs';
import { dec, enc } from '../src/bus/contract';
import { createBus } from '../src/bus';
import { collectConsumerLag, type DeliveredMessage, type Subscription } from '@vrp/platform/bus';
import { createMemoryBus, type MemoryEventBus, type RedeliveryOptions } from '../src/bus/memory';
import { registry } from '@vrp/platform/metrics';
import { partitionForKey } from '../src/bus/partitioner';

/** Subscribes `groupId` to `topics` from the beginning; each delivered value, decoded, is pushed into `into`. */
function collectValues(bus: MemoryEventBus, into: string[], groupId = 'g', topics = ['t']): Promise<Subscription> {
  return bus.subscribe({
    groupId,
    topics,
    fromBeginning: true,
    handler: async (m) => {
      into.push(dec(m.value));
    },
  });
}

/** Subscribes group g to topic t with a handler that always throws: its messages are never done. */
function subscribeAlwaysFailing(bus: MemoryEventBus): Promise<Subscription> {
  return bus.subscribe({
    groupId: 'g',
    topics: ['t'],
    fromBeginning: true,
    handler: async () => {
      throw new Error('always');
    },
  });
}

// The exact mechanics below are those of the engine without redelivery (commit after each
// message); the redelivery mode has its own describe block.
const quiet = { onHandlerError: () => undefined, redelivery: false as const };

describe('memory bus', () => {
  let bus: MemoryEventBus;
  const subs: Subscription[] = [];
  beforeEach(() => {
    bus = createMemoryBus({ ...quiet, retryInitialMs: 5, retryMaxMs: 20 });
  });
  afterEach(async () => {
    jest.useRealTimers();
    await Promise.all(subs.splice(0).map((s) => s.stop()));
    await bus.close();
  });

  async function collect(groupId: string, topics: string[], fromBeginning = true): Promise<DeliveredMessage[]> {
    const received: DeliveredMessage[] = [];
    const sub = await bus.subscribe({
      groupId,
      topics,
      fromBeginning,
      handler: async (m) => {
        received.push(m);
      },
    });
    subs.push(sub);
    await sub.ready;
    return received;
  }

  it('places keys on the same partitions as kafkajs DefaultPartitioner', () => {
    const partitioner = Partitioners.DefaultPartitioner();
    const keys = ['', 'a', 'ab', 'abc', 'abcd', 'listing-42', 'ключ', '☃☃☃', ...Array.from({ length: 500 }, (_, i) => `key-${i * 7919}`)];
    for (const n of [1, 2, 3, 7, 12]) {
      const partitionMetadata: PartitionMetadata[] = Array.from({ length: n }, (_, partitionId) => ({
        partitionId,
        leader: 0,
        partitionErrorCode: 0,
        replicas: [0],
        isr: [0],
      }));
      for (const key of keys) {
        const expected = partitioner({ topic: 't', partitionMetadata, message: { key, value: null } });
        expect([key, n, partitionForKey(key, n)]).toEqual([key, n, expected]);
      }
    }
  });

  it('uses the ensured partition count, and defaultPartitions for implicit topics', async () => {
    bus = createMemoryBus({ ...quiet, defaultPartitions: 2 });
    await bus.ensureTopics([{ name: 'wide', partitions: 8 }]);
    const keys = Array.from({ length: 200 }, (_, i) => `k${i}`);
    await bus.publish(
      'wide',
      keys.map((key) => ({ key, value: enc(key) })),
    );
    await bus.publish(
      'implicit',
      keys.map((key) => ({ key, value: enc(key) })),
    );
    const wide = await collect('g', ['wide']);
    const implicit = await collect('g2', ['implicit']);
    await bus.whenIdle(1000);
    expect(new Set(wide.map((m) => m.partition))).toEqual(new Set([0, 1, 2, 3, 4, 5, 6, 7]));
    expect(new Set(implicit.map((m) => m.partition))).toEqual(new Set([0, 1]));
    for (const m of wide) expect(m.partition).toBe(partitionForKey(m.key, 8));
    // Offsets count per partition from "0".
    for (let p = 0; p < 8; p++) {
      const offsets = wide.filter((m) => m.partition === p).map((m) => m.offset);
      expect(offsets).toEqual(offsets.map((_, i) => String(i)));
    }
  });

  it('never calls a handler synchronously inside publish or subscribe', async () => {
    let calls = 0;
    await bus.publish('t', [{ key: 'k', value: enc('before') }]);
    const subscribing = bus.subscribe({
      groupId: 'g',
      topics: ['t'],
      fromBeginning: true,
      handler: async () => {
        calls++;
      },
    });
    expect(calls).toBe(0);
    subs.push(await subscribing);
    await bus.whenIdle(1000);
    expect(calls).toBe(1);
    void bus.publish('t', [{ key: 'k', value: enc('after') }]);
    expect(calls).toBe(1);
    await bus.whenIdle(1000);
    expect(calls).toBe(2);
  });

  it('delivers on publish without any timer (no polling)', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask'] });
    const received = await collect('g', ['t']);
    for (let i = 0; i < 5; i++) {
      await bus.publish('t', [{ key: `k${i}`, value: enc(`m${i}`) }]);
      await bus.whenIdle(); // no timeout: resolving here proves no timer was needed
      expect(received.map((m) => dec(m.value))).toHaveLength(i + 1);
    }
    expect(jest.getTimerCount()).toBe(0);
  });

  it('backs off between redeliveries: retryInitialMs doubling up to retryMaxMs', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask'] });
    bus = createMemoryBus({ ...quiet, retryInitialMs: 10, retryMaxMs: 25 });
    let attempts = 0;
    const sub = await bus.subscribe({
      groupId: 'g',
      topics: ['t'],
      fromBeginning: true,
      handler: async () => {
        attempts++;
        if (attempts <= 4) throw new Error('not yet');
      },
    });
    subs.push(sub);
    await bus.publish('t', [{ key: 'k', value: enc('x') }]);
    await jest.advanceTimersByTimeAsync(0);
    expect(attempts).toBe(1);
    // Delays: 10, 20, 25 (capped), 25.
    for (const delay of [10, 20, 25, 25]) {
      await jest.advanceTimersByTimeAsync(delay - 1);
      const before = attempts;
      await jest.advanceTimersByTimeAsync(1);
      expect(attempts).toBe(before + 1);
    }
    expect(attempts).toBe(5);
    await bus.whenIdle();
    // A success resets the backoff for the next failure.
    attempts = 0;
    await bus.publish('t', [{ key: 'k', value: enc('y') }]);
    await jest.advanceTimersByTimeAsync(0);
    expect(attempts).toBe(1);
    await jest.advanceTimersByTimeAsync(10);
    expect(attempts).toBe(2);
  });

  it('whenIdle waits for messages that handlers publish, across groups', async () => {
    const final: string[] = [];
    subs.push(
      await bus.subscribe({
        groupId: 'relay',
        topics: ['in'],
        fromBeginning: true,
        handler: async (m) => {
          await new Promise((resolve) => setTimeout(resolve, 1));
          await bus.publish('out', [{ key: m.key, value: m.value }]);
        },
      }),
    );
    subs.push(await collectValues(bus, final, 'sink', ['out']));
    await bus.publish(
      'in',
      Array.from({ length: 20 }, (_, i) => ({ key: `k${i % 4}`, value: enc(`m${i}`) })),
    );
    await bus.whenIdle(2000);
    expect(final.sort()).toEqual(Array.from({ length: 20 }, (_, i) => `m${i}`).sort());
  });

  it('whenIdle resolves at once with nothing to do, ignores groups without members, and times out on a stuck handler', async () => {
    await bus.whenIdle(100);
    const sub = await subscribeAlwaysFailing(bus);
    await bus.publish('t', [{ key: 'k', value: enc('x') }]);
    await expect(bus.whenIdle(100)).rejects.toThrow(/not idle after 100ms: g t\/\d at 0 of 1/);
    await sub.stop();
    await bus.publish('t', [{ key: 'k', value: enc('y') }]);
    await bus.whenIdle(100); // the group has no member left: not waited for
  });

  it('rebalances: a joining member takes partitions, a leaving member hands them back, nothing is lost', async () => {
    await bus.ensureTopics([{ name: 't', partitions: 4 }]);
    const seen: Array<{ member: string; id: string; partition: number }> = [];
    const handlerFor = (member: string) => async (m: DeliveredMessage) => {
      seen.push({ member, id: dec(m.value), partition: m.partition });
    };
    const keys = Array.from({ length: 16 }, (_, i) => `k${i}`);
    const publish = (prefix: string) =>
      bus.publish(
        't',
        keys.map((key, i) => ({ key, value: enc(`${prefix}${i}`) })),
      );

    const a = await bus.subscribe({ groupId: 'g', topics: ['t'], fromBeginning: true, handler: handlerFor('a') });
    await publish('one-');
    await bus.whenIdle(1000);
    expect(new Set(seen.map((s) => s.member))).toEqual(new Set(['a']));

    const b = await bus.subscribe({ groupId: 'g', topics: ['t'], fromBeginning: true, handler: handlerFor('b') });
    await publish('two-');
    await bus.whenIdle(1000);
    const two = seen.filter((s) => s.id.startsWith('two-'));
    expect(new Set(two.filter((s) => s.member === 'a').map((s) => s.partition))).toEqual(new Set([0, 2]));
    expect(new Set(two.filter((s) => s.member === 'b').map((s) => s.partition))).toEqual(new Set([1, 3]));

    await a.stop();
    await publish('three-');
    await bus.whenIdle(1000);
    const three = seen.filter((s) => s.id.startsWith('three-'));
    expect(three.every((s) => s.member === 'b')).toBe(true);
    expect(three).toHaveLength(16);
    expect(seen).toHaveLength(48);
    await b.stop();
  });

  it('a group created with fromBeginning=false keeps its start position across rebalances', async () => {
    await bus.publish('t', [{ key: 'k', value: enc('old') }]);
    const first = await bus.subscribe({ groupId: 'g', topics: ['t'], fromBeginning: false, handler: async () => undefined });
    await bus.publish('t', [{ key: 'k', value: enc('while-first') }]);
    await first.stop(); // may stop before delivering: the message stays uncommitted
    const received = await collect('g', ['t'], false);
    await bus.whenIdle(1000);
    expect(received.map((m) => dec(m.value))).not.toContain('old');
  });

  it('keeps every message of a compacted topic (so at least the latest per key)', async () => {
    await bus.ensureTopics([{ name: 'activity', partitions: 2, compacted: true }]);
    await bus.publish('activity', [
      { key: 'l1', value: enc('v1') },
      { key: 'l1', value: enc('v2') },
      { key: 'l2', value: enc('w1') },
    ]);
    const received = await collect('g', ['activity']);
    await bus.whenIdle(1000);
    expect(received.filter((m) => m.key === 'l1').map((m) => dec(m.value))).toEqual(['v1', 'v2']);
  });

  it('copies values and always delivers a headers object', async () => {
    const value = enc('original');
    await bus.publish('t', [{ key: 'k', value }]);
    value.fill(0);
    const received = await collect('g', ['t']);
    await bus.whenIdle(1000);
    expect(dec(received[0]?.value ?? new Uint8Array())).toBe('original');
    expect(received[0]?.headers).toEqual({});
  });

  it('close() stops subscriptions, fails pending whenIdle and rejects later use', async () => {
    const sub = await subscribeAlwaysFailing(bus);
    subs.push(sub);
    await bus.publish('t', [{ key: 'k', value: enc('x') }]);
    const idle = bus.whenIdle();
    await bus.close();
    await expect(idle).rejects.toThrow(/closed/);
    await expect(bus.ready()).resolves.toBe(false);
    await expect(bus.publish('t', [{ key: 'k', value: enc('y') }])).rejects.toThrow(/closed/);
    await expect(bus.subscribe({ groupId: 'g', topics: ['t'], fromBeginning: true, handler: async () => undefined })).rejects.toThrow(/closed/);
  });
});

describe('memory bus in redelivery mode', () => {
  const buses: MemoryEventBus[] = [];
  afterEach(async () => {
    await Promise.all(buses.splice(0).map((b) => b.close()));
  });
  const make = (redelivery: RedeliveryOptions | false): MemoryEventBus => {
    const b = createMemoryBus({ ...quiet, redelivery });
    buses.push(b);
    return b;
  };
  const messages = (n: number, keys = 5) => Array.from({ length: n }, (_, i) => ({ key: `k${i % keys}`, value: enc(`m${i}`) }));

  /** Publishes, consumes until idle, returns every delivery as "partition@offset". */
  async function deliveries(bus: MemoryEventBus, n: number): Promise<string[]> {
    const seen: string[] = [];
    await bus.publish('t', messages(n));
    await bus.subscribe({
      groupId: 'g',
      topics: ['t'],
      fromBeginning: true,
      handler: async (m) => {
        seen.push(`${m.partition}@${m.offset}`);
      },
    });
    await bus.whenIdle(2000);
    return seen;
  }

  it('delivers duplicates, deterministically per seed', async () => {
    const a = await deliveries(make({ duplicates: 0.3, seed: 42 }), 60);
    const b = await deliveries(make({ duplicates: 0.3, seed: 42 }), 60);
    const c = await deliveries(make({ duplicates: 0.3, seed: 43 }), 60);
    expect(new Set(a).size).toBe(60);
    expect(a.length).toBeGreaterThan(60); // some messages came twice
    expect(b).toEqual(a);
    expect(c).not.toEqual(a);
    expect(await deliveries(make(false), 60)).toHaveLength(60);
  });

  it('commits lazily: the lag stays above zero until a commit, and a restart replays from the committed offset', async () => {
    const bus = make({ duplicates: 0, seed: 1, maxCommitLag: 1000 });
    await bus.ensureTopics([{ name: 't', partitions: 1 }]);
    const first: string[] = [];
    const sub = await collectValues(bus, first);
    await bus.publish('t', messages(10));
    await bus.whenIdle(1000);
    expect(first).toHaveLength(10);
    const [lag] = await bus.consumerLag();
    expect(lag?.lag).toBeGreaterThan(0);
    await sub.stop(); // does not flush the lagging commit, as a crash would not
    const again: string[] = [];
    await collectValues(bus, again);
    await bus.whenIdle(1000);
    expect(again).toEqual(first.slice(first.length - (lag?.lag ?? 0)));
  });

  it('a rebalance (a member joining) replays the uncommitted messages of the group', async () => {
    const bus = make({ duplicates: 0, seed: 3, maxCommitLag: 1000 });
    await bus.ensureTopics([{ name: 't', partitions: 2 }]);
    const handled: string[] = [];
    const handler = async (m: DeliveredMessage) => {
      handled.push(dec(m.value));
    };
    await bus.subscribe({ groupId: 'g', topics: ['t'], fromBeginning: true, handler });
    await bus.publish('t', messages(8, 8));
    await bus.whenIdle(1000);
    expect(handled).toHaveLength(8);
    await bus.subscribe({ groupId: 'g', topics: ['t'], fromBeginning: true, handler });
    await bus.whenIdle(1000);
    expect(handled.length).toBeGreaterThan(8);
    expect(new Set(handled).size).toBe(8);
  });

  it('rejects a duplicates probability outside [0, 1)', () => {
    expect(() => createMemoryBus({ redelivery: { duplicates: 1, seed: 1 } })).toThrow(/duplicates/);
    expect(() => createMemoryBus({ redelivery: { duplicates: 0.1, seed: 1.5 } })).toThrow(/seed/);
  });
});

describe('memory bus consumer health and lag', () => {
  let bus: MemoryEventBus;
  beforeEach(() => {
    bus = createMemoryBus({ ...quiet });
  });
  afterEach(async () => {
    await bus.close();
  });

  it('a crashed consumer reports why it is not running, fetches nothing more, and its lag grows', async () => {
    const handled: string[] = [];
    const sub = await collectValues(bus, handled);
    const other = await bus.subscribe({ groupId: 'h', topics: ['t'], fromBeginning: true, handler: async () => undefined });
    await bus.publish('t', [{ key: 'k', value: enc('before') }]);
    await bus.whenIdle(1000);
    expect(sub.health()).toEqual({ running: true });
    expect(await bus.consumerLag()).toEqual([
      { groupId: 'g', topic: 't', lag: 0 },
      { groupId: 'h', topic: 't', lag: 0 },
    ]);

    expect(bus.crashConsumers('g', 'offset commit refused')).toBe(1);
    expect(sub.health()).toEqual({ running: false, reason: 'offset commit refused' });
    expect(other.health()).toEqual({ running: true });
    await bus.publish('t', [{ key: 'k', value: enc('after') }]);
    await bus.whenIdle(1000);
    expect(handled).toEqual(['before']);
    expect(await bus.consumerLag()).toEqual([
      { groupId: 'g', topic: 't', lag: 1 },
      { groupId: 'h', topic: 't', lag: 0 },
    ]);

    await other.stop();
    expect(other.health()).toEqual({ running: false, reason: 'stopped' });
  });

  it('exports the lag as vrp_bus_consumer_lag{group, topic} while the bus is open', async () => {
    const sub = await bus.subscribe({ groupId: 'lagging', topics: ['lag-topic'], fromBeginning: true, handler: async () => undefined });
    await sub.stop();
    await bus.publish('lag-topic', [
      { key: 'a', value: enc('1') },
      { key: 'b', value: enc('2') },
    ]);
    expect(await collectConsumerLag()).toContainEqual({ groupId: 'lagging', topic: 'lag-topic', lag: 2 });
    expect(await registry.getSingleMetricAsString('vrp_bus_consumer_lag')).toContain('vrp_bus_consumer_lag{group="lagging",topic="lag-topic"} 2');
    await bus.close();
    expect(await collectConsumerLag()).not.toContainEqual(expect.objectContaining({ groupId: 'lagging' }));
  });
});

describe('createBus', () => {
  it('builds the memory engine', async () => {
    const bus = createBus({ BUS: 'memory', clientId: 'test' });
    expect(bus.engine).toBe('memory');
    await bus.close();
  });

  it('builds the kafka engine lazily (no connection until used) and needs brokers', async () => {
    expect(() => createBus({ BUS: 'kafka', clientId: 'test' })).toThrow(/KAFKA_BROKERS/);
    expect(() => createBus({ BUS: 'kafka', KAFKA_BROKERS: ' , ', clientId: 'test' })).toThrow(/KAFKA_BROKERS/);
    const bus = createBus({ BUS: 'kafka', KAFKA_BROKERS: 'localhost:1, localhost:2', clientId: 'test' });
    expect(bus.engine).toBe('kafka');
    await bus.close();
  });
});
