// The outbox relay with several replicas over one store and one bus: one publisher at a time
// (lease), per-key order, takeover after a crash, a relay that loses its lease mid-batch, and
// the retention of published rows. Time is a manual clock; nothing sleeps.
import type { BusMessage, EventBus } from '../src/bus/port';
import { createMemoryBus } from '../../engines/src/bus';
import { createLogger } from '../src/logging';
import { Outbox, type OutboxOptions } from '../src/outbox';
import { createMemoryStore } from '../../engines/src/store';
import type { DocumentStore } from '../src/store/port';

interface Published {
  relay: string;
  topic: string;
  key: string;
  eventId: string;
  body: string;
}

/** A bus that records every publish call (who published what) and can hold calls to a topic. */
function recordingBus(inner: EventBus) {
  const published: Published[] = [];
  const holds = new Map<string, { entered: () => void; released: Promise<void> }>();
  const make = (relay: string): EventBus => ({
    ...inner,
    engine: inner.engine,
    ensureTopics: (t) => inner.ensureTopics(t),
    subscribe: (o) => inner.subscribe(o),
    ready: () => inner.ready(),
    close: () => inner.close(),
    publish: async (topic: string, messages: BusMessage[]) => {
      const hold = holds.get(`${relay}:${topic}`);
      if (hold) {
        holds.delete(`${relay}:${topic}`);
        hold.entered();
        await hold.released;
      }
      for (const m of messages) published.push({ relay, topic, key: m.key, eventId: m.headers?.['event-id'] ?? '', body: Buffer.from(m.value).toString() });
      await inner.publish(topic, messages);
    },
  });
  /** The next publish of `relay` to `topic` waits for `release()`; `entered` resolves when it started. */
  const hold = (relay: string, topic: string): { entered: Promise<void>; release: () => void } => {
    let release = () => undefined as void;
    let entered = () => undefined as void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const enteredP = new Promise<void>((resolve) => (entered = resolve));
    holds.set(`${relay}:${topic}`, { entered, released });
    return { entered: enteredP, release: () => release() };
  };
  return { published, make, hold };
}

class ManualTime {
  private ms = Date.parse('2030-01-01T00:00:00Z');
  now = (): Date => new Date(this.ms);
  advance(ms: number): void {
    this.ms += ms;
  }
}

const LEASE_MS = 10_000;
const RETENTION_MS = 3_600_000;
const logger = createLogger('outbox-test', 'silent');

describe('outbox relays over one store and one bus', () => {
  let store: DocumentStore;
  let time: ManualTime;
  let bus: ReturnType<typeof recordingBus>;
  const relay = (relayId: string, extra: Partial<OutboxOptions> = {}) =>
    new Outbox(store, bus.make(relayId), logger, {
      relayId,
      now: time.now,
      leaseMs: LEASE_MS,
      publishTimeoutMs: 5_000,
      retentionMs: RETENTION_MS,
      batchSize: 7,
      ...extra,
    });
  const write = (outbox: Outbox, topic: string, key: string, body: string) =>
    store.transaction((tx) => outbox.add(tx, [{ topic, key, value: Buffer.from(body) }]));
  /** What was published for a key (on any topic, or on `topic`), optionally by one relay. */
  const bodiesOf = (key: string, relayId?: string, topic?: string) =>
    bus.published.filter((p) => p.key === key && (!relayId || p.relay === relayId) && (!topic || p.topic === topic)).map((p) => p.body);

  beforeEach(() => {
    store = createMemoryStore();
    time = new ManualTime();
    bus = recordingBus(createMemoryBus());
  });

  it('publishes each row exactly once, in order per key, when two relays flush concurrently', async () => {
    const a = relay('relay-a');
    const b = relay('relay-b');
    const keys = ['k1', 'k2', 'k3'];
    const topics = ['topic.a', 'topic.b'];
    // Order is per topic and key: the same key on two topics is two sequences.
    const expected = new Map<string, string[]>();
    const flushes: Promise<void>[] = [];
    for (let i = 0; i < 30; i += 1) {
      const key = keys[i % keys.length]!;
      const topic = topics[i % 2]!;
      const body = `${key}#${i}`;
      // Writes come from both replicas, and both relays try to publish after every write.
      await write(i % 2 === 0 ? a : b, topic, key, body);
      expected.set(`${topic}/${key}`, [...(expected.get(`${topic}/${key}`) ?? []), body]);
      flushes.push(a.flush(), b.flush());
      if (i % 10 === 9) time.advance(1_000); // the holder renews; the other never takes over
    }
    await Promise.all(flushes);
    await a.flush();
    await b.flush();

    const ids = bus.published.map((p) => p.eventId);
    expect(ids).toHaveLength(30);
    expect(new Set(ids).size).toBe(30);
    for (const topic of topics) for (const key of keys) expect(bodiesOf(key, undefined, topic)).toEqual(expected.get(`${topic}/${key}`));
    // Only the lease holder published.
    expect(new Set(bus.published.map((p) => p.relay))).toEqual(new Set(['relay-a']));
    expect(await a.pending()).toBe(0);
  });

  it('publishes, within its poll interval, a row written by a replica that does not hold the lease', async () => {
    const a = relay('relay-a', { pollMs: 20 });
    const b = relay('relay-b', { pollMs: 20 });
    await a.flush(); // a takes the lease
    a.start();
    b.start();
    try {
      await write(b, 'topic.a', 'k1', 'from-b');
      await b.flush(); // b holds no lease: it publishes nothing itself
      const written = Date.now();
      // Well before the once-a-second pass of a relay without the lease.
      while (bodiesOf('k1').length === 0 && Date.now() - written < 5000) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(Date.now() - written).toBeLessThan(500);
      expect(bodiesOf('k1', 'relay-a')).toEqual(['from-b']);
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  it('flushSoon: the commits of one turn share one pass and one publish call; a stopped relay does not take its lease back', async () => {
    let calls = 0;
    const inner = bus.make('r1');
    const counted = new Outbox(store, { ...inner, publish: (topic, messages) => ((calls += 1), inner.publish(topic, messages)) }, logger, {
      relayId: 'r1',
      now: time.now,
      leaseMs: LEASE_MS,
      publishTimeoutMs: 5_000,
      retentionMs: RETENTION_MS,
      batchSize: 7,
    });
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
    // Five concurrent writers, each asking for a pass after its commit, as the services do.
    await Promise.all(['1', '2', '3', '4', '5'].map(async (n) => (await write(counted, 't', `k${n}`, `b${n}`), counted.flushSoon())));
    await nextTurn();
    await counted.flush(); // waits for the pass under way
    expect(calls).toBe(1);
    expect(bus.published.map((p) => p.body)).toEqual(['b1', 'b2', 'b3', 'b4', 'b5']);

    await counted.stop();
    await write(counted, 't', 'k6', 'b6');
    counted.flushSoon();
    await nextTurn();
    await nextTurn();
    expect(await counted.pending()).toBe(1);
    // The lease was handed over at stop and not taken back: another relay publishes at once.
    const b = relay('r2');
    await b.flush();
    expect(bodiesOf('k6')).toEqual(['b6']);
    expect(bodiesOf('k6', 'r2')).toEqual(['b6']);
  });

  it('lets another relay take over once the lease of a crashed holder has expired', async () => {
    const a = relay('relay-a');
    const b = relay('relay-b');
    await write(a, 'topic.a', 'k1', 'first');
    await a.flush();
    expect(bodiesOf('k1', 'relay-a')).toEqual(['first']);
    // relay-a crashes (no stop, no release). Rows written meanwhile wait for the lease to expire.
    await write(b, 'topic.a', 'k1', 'second');
    await b.flush();
    expect(bodiesOf('k1')).toEqual(['first']);
    time.advance(LEASE_MS - 1);
    await b.flush();
    expect(bodiesOf('k1')).toEqual(['first']);

    time.advance(2);
    await b.flush();
    expect(bodiesOf('k1')).toEqual(['first', 'second']);
    expect(bodiesOf('k1', 'relay-b')).toEqual(['second']);
    // The old holder, back from a pause, no longer publishes.
    await write(b, 'topic.a', 'k1', 'third');
    await a.flush();
    expect(bodiesOf('k1', 'relay-a')).toEqual(['first']);
    await b.flush();
    expect(bodiesOf('k1')).toEqual(['first', 'second', 'third']);
  });

  it('hands the lease over at once on a graceful stop', async () => {
    const a = relay('relay-a');
    const b = relay('relay-b');
    await write(a, 'topic.a', 'k1', 'first');
    await a.flush();
    await a.stop();
    await write(b, 'topic.a', 'k1', 'second');
    await b.flush();
    expect(bodiesOf('k1')).toEqual(['first', 'second']);
    expect(bodiesOf('k1', 'relay-b')).toEqual(['second']);
  });

  it('renews (and reads) its lease only once more than publishTimeoutMs has passed since the last renewal', async () => {
    const a = relay('relay-a');
    const b = relay('relay-b');
    const leases = store.collection<{ _id: string; owner: string; expiresAt: Date }>({ name: 'outbox_lease', schema: undefined as never });
    const lease = async () => (await leases.find({}))[0];
    await write(a, 'topic.a', 'k1', 'one');
    await a.flush();
    const taken = await lease();
    expect(taken?.owner).toBe('relay-a');
    time.advance(4_000); // less than publishTimeoutMs (5 s): the lease is not written again, nor read
    await write(a, 'topic.a', 'k1', 'two');
    const reads = jest.spyOn(leases, 'findOne');
    try {
      await a.flush();
      expect(reads).not.toHaveBeenCalled();
    } finally {
      reads.mockRestore();
    }
    expect((await lease())?.expiresAt).toEqual(taken?.expiresAt);
    await write(b, 'topic.a', 'k1', 'three');
    await b.flush(); // still held by relay-a: relay-b publishes nothing
    expect(bodiesOf('k1', 'relay-b')).toEqual([]);
    time.advance(2_000); // 6 s since the renewal: renewed for a full lease from now
    await a.flush();
    expect((await lease())?.expiresAt).toEqual(new Date(time.now().getTime() + LEASE_MS));
    expect(bodiesOf('k1', 'relay-a')).toEqual(['one', 'two', 'three']);
  });

  it('stops a relay that lost its lease mid-batch: duplicates possible, no reordering of a key', async () => {
    const a = relay('relay-a');
    const b = relay('relay-b');
    await write(a, 'topic.a', 'k1', 'k1-1');
    await write(a, 'topic.b', 'k2', 'k2-1');
    await write(a, 'topic.a', 'k1', 'k1-2');
    await write(a, 'topic.b', 'k2', 'k2-2');
    // relay-a's first publish (topic.a) stalls past its lease, as in a long GC pause.
    const { entered, release } = bus.hold('relay-a', 'topic.a');
    const stalled = a.flush();
    await entered;
    time.advance(LEASE_MS + 1);
    await b.flush();
    expect(bodiesOf('k1', 'relay-b')).toEqual(['k1-1', 'k1-2']);
    expect(bodiesOf('k2', 'relay-b')).toEqual(['k2-1', 'k2-2']);
    // A new row of k2 after the takeover.
    await write(b, 'topic.b', 'k2', 'k2-3');
    release();
    await stalled;
    // relay-a finished the call it had started (at-least-once duplicates of k1) and then found
    // its lease gone: it published nothing of topic.b, so k2 is never replayed out of order.
    expect(bodiesOf('k1', 'relay-a')).toEqual(['k1-1', 'k1-2']);
    expect(bodiesOf('k2', 'relay-a')).toEqual([]);
    await b.flush();
    expect(bodiesOf('k2')).toEqual(['k2-1', 'k2-2', 'k2-3']);
    expect(await b.pending()).toBe(0);
  });

  it('publishes a row after the previous row of its key even when its writer clock is behind', async () => {
    const a = relay('relay-a');
    // A row written by a replica whose clock runs an hour ahead of this process.
    const ahead = `obx_${(Date.now() + 3_600_000).toString(36).padStart(9, '0')}0000zzzzzz`;
    await store.transaction(async (tx) => {
      // The collection the relay registered (a store registers a name once and returns it after).
      const rows = store.collection<{ _id: string; [f: string]: unknown }>({ name: 'outbox', schema: undefined as never });
      await rows.insertOne(
        { _id: ahead, topic: 'topic.a', key: 'k1', value: Buffer.from('from-ahead').toString('base64'), headers: {}, createdAt: time.now(), publishedAt: null },
        { tx },
      );
    });
    await write(a, 'topic.a', 'k1', 'from-behind');
    await write(a, 'topic.a', 'k2', 'other-key');
    await a.flush();
    expect(bodiesOf('k1')).toEqual(['from-ahead', 'from-behind']);
  });

  it('removes published rows older than the retention and keeps pending and recent ones', async () => {
    const a = relay('relay-a');
    await write(a, 'topic.a', 'k1', 'old-1');
    await write(a, 'topic.a', 'k1', 'old-2');
    await a.flush();
    time.advance(RETENTION_MS / 2);
    await write(a, 'topic.a', 'k1', 'recent');
    await a.flush();
    expect(await a.stored()).toBe(3);

    time.advance(RETENTION_MS / 2 + 1);
    // A pending row at the time of the sweep survives it (and is then published).
    await write(a, 'topic.a', 'k2', 'pending');
    expect(await a.pending()).toBe(1);
    await a.flush();
    expect(bodiesOf('k2')).toEqual(['pending']);
    // The two old rows are gone; the recent one and the one just published stay.
    expect(await a.stored()).toBe(2);

    time.advance(RETENTION_MS + 1);
    await a.flush();
    expect(await a.stored()).toBe(0);
  });
});
