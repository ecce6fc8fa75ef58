// The embedded bus persisted to LMDB: topics, messages and committed offsets survive a restart,
// the retention rule removes only old prefixes (never the latest value of a compacted key), and a
// publish the disk refuses fails and is never delivered.
import { createMemoryBus, type MemoryEventBus, type RedeliveryOptions } from '../src/bus/memory';
import { offsetKey, openBusPersistence } from '../src/bus/persistence';
import { DurableEnv } from '../src/persistence/lmdb';
import type { DeliveredMessage } from '@vrp/platform/bus';
import { StoreUnavailableError } from '@vrp/platform/store';
import { tempDirs } from './temp-dirs';

const dataDir = tempDirs('vrp-bus-persist-');

const HOUR = 3_600_000;

// Exact deliveries (commits after every message) unless a test asks for the redelivery mode.
function openBus(path: string, opts: { now?: () => number; readOnly?: boolean; redelivery?: RedeliveryOptions } = {}): MemoryEventBus {
  const { redelivery, ...persistenceOpts } = opts;
  return createMemoryBus({
    retryInitialMs: 5,
    retryMaxMs: 20,
    onHandlerError: () => undefined,
    redelivery: redelivery ?? false,
    persistence: openBusPersistence({ path, retentionMs: 24 * HOUR, ...persistenceOpts }),
  });
}

const msg = (key: string, text: string) => ({ key, value: new TextEncoder().encode(text), headers: { 'event-id': `${key}-${text}` } });
const text = (m: DeliveredMessage) => new TextDecoder().decode(m.value);

async function consume(bus: MemoryEventBus, groupId: string, topic: string, fromBeginning = true): Promise<DeliveredMessage[]> {
  const seen: DeliveredMessage[] = [];
  const sub = await bus.subscribe({ groupId, topics: [topic], fromBeginning, handler: async (m) => void seen.push(m) });
  await bus.whenIdle(5000);
  await sub.stop();
  return seen;
}

describe('embedded bus persisted to LMDB', () => {
  it('keeps topics, messages and committed offsets across a restart', async () => {
    const path = dataDir();
    const first = openBus(path);
    await first.ensureTopics([{ name: 'orders', partitions: 2 }]);
    await first.publish('orders', [msg('a', '1'), msg('b', '2'), msg('a', '3')]);
    expect((await consume(first, 'billing', 'orders')).map(text).sort()).toEqual(['1', '2', '3']);
    await first.publish('orders', [msg('b', '4')]);
    await first.close();

    const second = openBus(path);
    // The group resumes after what it committed; a new group replays everything, same offsets.
    const resumed = await consume(second, 'billing', 'orders');
    expect(resumed.map(text)).toEqual(['4']);
    const replay = await consume(second, 'audit', 'orders');
    expect(replay.map(text).sort()).toEqual(['1', '2', '3', '4']);
    const a = replay.filter((m) => m.key === 'a');
    expect(a.map(text)).toEqual(['1', '3']); // per-key order
    expect(new Set(replay.map((m) => m.partition)).size).toBeLessThanOrEqual(2);
    expect(replay.find((m) => text(m) === '4')?.headers).toEqual({ 'event-id': 'b-4' });
    // New messages continue the offsets of each partition.
    const lastB = replay.filter((m) => m.key === 'b').map((m) => Number(m.offset));
    await second.publish('orders', [msg('b', '5')]);
    const next = await consume(second, 'billing', 'orders');
    expect(next.map((m) => Number(m.offset))).toEqual([Math.max(...lastB) + 1]);
    await second.close();
  });

  it('applies retention at start: old prefixes go, the latest value of a compacted key and the last offset stay', async () => {
    const path = dataDir();
    let clock = Date.now();
    const first = openBus(path, { now: () => clock });
    await first.ensureTopics([
      { name: 'log', partitions: 1 },
      { name: 'state', partitions: 1, compacted: true },
    ]);
    await first.publish('log', [msg('k', 'old-1'), msg('k', 'old-2'), msg('k', 'old-3')]);
    await first.publish('state', [msg('x', 'x1'), msg('y', 'y1'), msg('x', 'x2')]);
    expect(await consume(first, 'slow', 'log')).toHaveLength(3);
    await first.close();

    // Two days later (retention 24 h): nothing new was published.
    clock += 48 * HOUR;
    const second = openBus(path, { now: () => clock });
    const log = await consume(second, 'fresh', 'log');
    expect(log.map((m) => [text(m), m.offset])).toEqual([['old-3', '2']]);
    // The compacted topic keeps y1 (still the latest of y) and x2; x1 was superseded and is old.
    const state = await consume(second, 'fresh', 'state');
    expect(state.map(text)).toEqual(['y1', 'x2']);
    await second.publish('log', [msg('k', 'new')]);
    expect((await consume(second, 'slow', 'log')).map((m) => [text(m), m.offset])).toEqual([['new', '3']]);
    await second.close();
  });

  it('fails a publish the disk refuses, and never delivers it', async () => {
    const path = dataDir();
    const writable = openBus(path);
    await writable.ensureTopics([{ name: 'orders', partitions: 1 }]);
    await writable.publish('orders', [msg('a', 'kept')]);
    await writable.close();

    const readOnly = openBus(path, { readOnly: true });
    const seen: string[] = [];
    const sub = await readOnly.subscribe({ groupId: 'g', topics: ['orders'], fromBeginning: true, handler: async (m) => void seen.push(text(m)) });
    await readOnly.whenIdle(5000);
    await expect(readOnly.publish('orders', [msg('a', 'refused')])).rejects.toBeInstanceOf(StoreUnavailableError);
    await readOnly.whenIdle(5000); // nothing left behind: the refused message is gone from the log
    expect(seen).toEqual(['kept']);
    await sub.stop();
    await readOnly.close();
  });

  it('with redelivery, keeps the lazily committed offsets: a restart replays what was handled but not committed', async () => {
    const path = dataDir();
    const first = openBus(path, { redelivery: { duplicates: 0, maxCommitLag: 7, seed: 8 } });
    await first.ensureTopics([{ name: 'orders', partitions: 1 }]);
    const sent = Array.from({ length: 20 }, (_, i) => String(i));
    await first.publish(
      'orders',
      sent.map((t) => msg('a', t)),
    );
    expect((await consume(first, 'billing', 'orders')).map(text)).toEqual(sent);
    // Everything was handled; the commits lag behind (stop() does not flush them).
    const [lag] = (await first.consumerLag()).filter((l) => l.groupId === 'billing');
    expect(lag?.lag).toBeGreaterThan(0);
    await first.close();

    const second = openBus(path);
    // Exactly the uncommitted tail comes again, in order.
    expect((await consume(second, 'billing', 'orders')).map(text)).toEqual(sent.slice(sent.length - (lag?.lag ?? 0)));
    await second.close();
  });

  it('writes the offsets committed while one offsets write waits as one entry, the latest per partition', async () => {
    const path = dataDir();
    const persistence = openBusPersistence({ path, retentionMs: 24 * HOUR });
    const entries = jest.spyOn(DurableEnv.prototype, 'commit');
    try {
      for (let offset = 1; offset <= 50; offset++) {
        persistence.commitOffset('billing', 'orders', 0, offset);
        persistence.commitOffset('billing', 'orders', 1, offset * 2);
      }
      expect(entries).toHaveBeenCalledTimes(1);
      await persistence.close();
    } finally {
      entries.mockRestore();
    }
    const reopened = openBusPersistence({ path, retentionMs: 24 * HOUR });
    const { offsets } = reopened.load();
    expect(offsets.get(offsetKey('billing', 'orders', 0))).toBe(50);
    expect(offsets.get(offsetKey('billing', 'orders', 1))).toBe(100);
    // Offsets committed after that entry was written go in the next one.
    reopened.commitOffset('billing', 'orders', 0, 51);
    await reopened.close();
    const last = openBusPersistence({ path, retentionMs: 24 * HOUR, readOnly: true });
    expect(last.load().offsets.get(offsetKey('billing', 'orders', 0))).toBe(51);
    await last.close();
  });
});
