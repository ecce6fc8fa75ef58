import { listingEvents, TOPICS } from '@vrp/contracts';
import { AppError } from '@vrp/platform/errors';
import { ConsumerRunner } from '@vrp/platform/consumer';
import { createLogger } from '@vrp/platform/logging';
import { createMemoryBus } from '@vrp/engines/bus';
import { createMemoryStore } from '@vrp/engines/store';
import { Outbox } from '@vrp/platform/outbox';
import type { DocumentStore } from '@vrp/platform/store';
import type { EventBus } from '@vrp/platform/bus';
import { errorOf } from '@vrp/testkit';
import { assertListingsActive, HISTORY_LIMIT, inactiveOf, ListingActivityCache, type CurrentListing } from '../src';

const logger = createLogger('test', 'silent');

function event(listingId: string, active: boolean, version: number, extra: Partial<listingEvents.ListingActivityChanged> = {}) {
  return listingEvents.ListingActivityChanged.create({
    eventId: `evt_${listingId}_${version}`,
    workspaceId: 'ws_1',
    listingId,
    listingName: `Name of ${listingId}`,
    active,
    version,
    occurredAt: new Date(),
    channelIds: [`ch_${listingId}`],
    ...extra,
  });
}

/** The cache's consumer runner on these engines (dead letters go to the same store's outbox). */
function runner(store: DocumentStore, bus: EventBus) {
  return new ConsumerRunner({ service: 'test', store, bus, outbox: new Outbox(store, bus, logger), logger });
}

/** A new store and the runner over it and `bus`. */
function engines(bus: EventBus) {
  const store = createMemoryStore();
  return { store, consumers: runner(store, bus) };
}

async function publish(bus: ReturnType<typeof createMemoryBus>, ...events: listingEvents.ListingActivityChanged[]) {
  await bus.publish(
    TOPICS.listingActivity.name,
    events.map((e) => ({ key: e.listingId, value: listingEvents.ListingActivityChanged.encode(e).finish() })),
  );
  await bus.whenIdle(5000);
}

describe('ListingActivityCache', () => {
  it('replays the topic from the start and answers by listing id and channel id', async () => {
    const bus = createMemoryBus();
    await publish(bus, event('lst_a', true, 1), event('lst_b', true, 1), event('lst_b', false, 2));
    const cache = new ListingActivityCache({ ...engines(bus), groupId: 'svc-activity', logger });
    await cache.start();
    await bus.whenIdle(5000);
    expect(cache.isActive('ws_1', 'lst_a')).toBe(true);
    expect(cache.isActive('ws_1', 'lst_b')).toBe(false);
    expect(cache.isActive('ws_1', 'ch_lst_b')).toBe(false);
    expect(cache.inactiveIds('ws_1')).toEqual(['lst_b']);
    // Another workspace never sees these listings.
    expect(cache.get('ws_2', 'lst_b')).toBeUndefined();
    await cache.stop();
  });

  it('ignores stale and repeated versions', async () => {
    const bus = createMemoryBus();
    const cache = new ListingActivityCache({ ...engines(bus), groupId: 'g', logger });
    await cache.start();
    await publish(bus, event('lst_a', false, 3), event('lst_a', true, 2), event('lst_a', false, 3));
    expect(cache.get('ws_1', 'lst_a')).toMatchObject({ active: false, version: 3 });
    await cache.stop();
  });

  it('names every inactive listing in one listing_inactive error', async () => {
    const bus = createMemoryBus();
    const cache = new ListingActivityCache({ ...engines(bus), groupId: 'g', logger });
    await cache.start();
    await publish(bus, event('lst_a', false, 1), event('lst_b', true, 1), event('lst_c', false, 1));
    let error: unknown;
    try {
      cache.assertActive('ws_1', ['lst_a', 'lst_b', 'ch_lst_c', 'lst_a', 'lst_unknown']);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('listing_inactive');
    expect((error as AppError).details).toEqual({
      listingIds: ['lst_a', 'lst_c'],
      listings: [
        { id: 'lst_a', name: 'Name of lst_a' },
        { id: 'lst_c', name: 'Name of lst_c' },
      ],
    });
    await cache.stop();
  });

  it('keeps its state across a restart without the topic', async () => {
    const store = createMemoryStore();
    const bus = createMemoryBus();
    const first = new ListingActivityCache({ store, consumers: runner(store, bus), groupId: 'g', logger });
    await first.start();
    await publish(bus, event('lst_a', false, 1));
    await first.stop();
    // A new bus: the topic history is gone, only the persisted state remains.
    const restarted = new ListingActivityCache({ store, consumers: runner(store, createMemoryBus()), groupId: 'g', logger });
    await restarted.start();
    expect(restarted.isActive('ws_1', 'lst_a')).toBe(false);
    await restarted.stop();
  });

  it('forgets deleted listings and tells listeners about changes', async () => {
    const bus = createMemoryBus();
    const cache = new ListingActivityCache({ ...engines(bus), groupId: 'g', logger });
    const seen: string[] = [];
    cache.onChange((a) => seen.push(`${a.listingId}:${a.active}`));
    await cache.start();
    await publish(bus, event('lst_a', false, 1), event('lst_a', false, 2, { deleted: true }));
    expect(cache.get('ws_1', 'lst_a')).toBeUndefined();
    expect(cache.get('ws_1', 'ch_lst_a')).toBeUndefined();
    expect(seen).toEqual(['lst_a:false']);
    await cache.stop();
  });

  describe('activity at a point in time', () => {
    const t = (s: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, s));

    it('answers from the change history by occurred_at, and is settled only once a later change is known', async () => {
      const bus = createMemoryBus();
      const cache = new ListingActivityCache({ ...engines(bus), groupId: 'g', logger });
      await cache.start();
      await publish(bus, event('lst_a', true, 1, { occurredAt: t(10) }), event('lst_a', false, 2, { occurredAt: t(20) }));
      // Before the first known change: counts as active; between the changes: settled by the later one.
      expect(cache.activityAt('ws_1', 'lst_a', t(5))).toEqual({ active: true, settled: true });
      expect(cache.activityAt('ws_1', 'lst_a', t(15))).toEqual({ active: true, settled: true });
      expect(cache.activityAt('ws_1', 'ch_lst_a', t(15))).toEqual({ active: true, settled: true });
      // After the last known change: its state, but an activation may still be on its way.
      expect(cache.activityAt('ws_1', 'lst_a', t(25))).toEqual({ active: false, settled: false });
      await publish(bus, event('lst_a', true, 3, { occurredAt: t(30) }));
      expect(cache.activityAt('ws_1', 'lst_a', t(25))).toEqual({ active: false, settled: true });
      expect(cache.activityAt('ws_1', 'lst_a', t(35))).toEqual({ active: true, settled: false });
      // A listing never heard of counts as active, unsettled.
      expect(cache.activityAt('ws_1', 'lst_new', t(25))).toEqual({ active: true, settled: false });
      await cache.stop();
    });

    it('keeps the history across a restart, and at most HISTORY_LIMIT changes', async () => {
      const store = createMemoryStore();
      const bus = createMemoryBus();
      const first = new ListingActivityCache({ store, consumers: runner(store, bus), groupId: 'g', logger });
      await first.start();
      const changes = Array.from({ length: HISTORY_LIMIT + 3 }, (_, i) => event('lst_a', i % 2 === 0, i + 1, { occurredAt: t(i * 10) }));
      await publish(bus, ...changes);
      await first.stop();
      const restarted = new ListingActivityCache({ store, consumers: runner(store, createMemoryBus()), groupId: 'g', logger });
      await restarted.start();
      const history = restarted.get('ws_1', 'lst_a')!.history;
      expect(history.map((c) => c.version)).toEqual(changes.slice(-HISTORY_LIMIT).map((c) => c.version));
      // Change 34 (index 33, inactive) happened at 330 s; change 35 at 340 s.
      expect(restarted.activityAt('ws_1', 'lst_a', t(335))).toEqual({ active: false, settled: true });
      await restarted.stop();
    });

    it('merges the histories of two consumers applying different versions at once', async () => {
      const cache = new ListingActivityCache({ ...engines(createMemoryBus()), groupId: 'g', logger });
      await Promise.all([cache.apply(event('lst_a', false, 1, { occurredAt: t(10) })), cache.apply(event('lst_a', true, 2, { occurredAt: t(20) }))]);
      expect(cache.get('ws_1', 'lst_a')).toMatchObject({ active: true, version: 2 });
      expect(cache.get('ws_1', 'lst_a')!.history.map((c) => c.version)).toEqual([1, 2]);
      expect(cache.activityAt('ws_1', 'lst_a', t(15))).toEqual({ active: false, settled: true });
    });
  });

  it('a redelivered or replayed older event never brings a deleted listing back, also after a restart', async () => {
    const store = createMemoryStore();
    const bus = createMemoryBus({ redelivery: false });
    const cache = new ListingActivityCache({ store, consumers: runner(store, bus), groupId: 'g', logger });
    const seen: string[] = [];
    cache.onChange((a) => seen.push(`${a.listingId}:v${a.version}`));
    await cache.start();
    await publish(bus, event('lst_a', true, 1), event('lst_a', false, 2), event('lst_a', false, 3, { deleted: true }));
    // What a replay from an older committed offset delivers again:
    await cache.apply(event('lst_a', true, 1));
    await cache.apply(event('lst_a', false, 2));
    expect(cache.get('ws_1', 'lst_a')).toBeUndefined();
    expect(seen).toEqual(['lst_a:v1', 'lst_a:v2']);
    await cache.stop();

    const restarted = new ListingActivityCache({ store, consumers: runner(store, createMemoryBus()), groupId: 'g', logger });
    await restarted.start();
    await restarted.apply(event('lst_a', true, 1));
    expect(restarted.get('ws_1', 'lst_a')).toBeUndefined();
    await restarted.stop();
  });

  describe('inactiveOf / assertListingsActive: the one listing_inactive rule of a service', () => {
    it('reads: decided by the cache; a listing it has not seen counts as active', async () => {
      const bus = createMemoryBus();
      const cache = new ListingActivityCache({ ...engines(bus), groupId: 'g', logger });
      await cache.start();
      await publish(bus, event('lst_a', false, 1), event('lst_b', true, 1));
      expect(await inactiveOf(cache, 'ws_1', ['lst_a', 'ch_lst_a', 'lst_b', 'lst_new'])).toEqual([{ id: 'lst_a', name: 'Name of lst_a' }]);
      const err = await errorOf(assertListingsActive(cache, 'ws_1', ['lst_b', 'ch_lst_a']));
      expect([err.code, err.httpStatus, err.details.listingIds]).toEqual(['listing_inactive', 403, ['lst_a']]);
      await expect(assertListingsActive(cache, 'ws_1', ['lst_b', 'lst_new'])).resolves.toBeUndefined();
      await cache.stop();
    });

    it('writes: a listing the cache has not seen is decided by the listing service; a seen one by the cache, without asking', async () => {
      const bus = createMemoryBus();
      const cache = new ListingActivityCache({ ...engines(bus), groupId: 'g', logger });
      await cache.start();
      await publish(bus, event('lst_a', false, 1), event('lst_b', true, 1));
      const asked: string[][] = [];
      const listingService = (answers: CurrentListing[]) => (unseen: string[]) => {
        asked.push(unseen);
        return answers.filter((l) => unseen.includes(l.id));
      };
      // Imported unlisted a moment ago: its first activity event has not arrived yet.
      const current = listingService([
        { id: 'lst_new', name: 'New', active: false },
        { id: 'lst_b', name: 'B', active: false },
      ]);
      expect(await inactiveOf(cache, 'ws_1', ['lst_b', 'lst_new', 'lst_a', 'lst_new'], current)).toEqual([
        { id: 'lst_new', name: 'New' },
        { id: 'lst_a', name: 'Name of lst_a' },
      ]);
      expect(asked).toEqual([['lst_new']]);
      // Every listing seen: the listing service is not asked.
      asked.length = 0;
      await expect(assertListingsActive(cache, 'ws_1', ['lst_b'], current)).resolves.toBeUndefined();
      expect(asked).toEqual([]);
      await cache.stop();
    });
  });
});
