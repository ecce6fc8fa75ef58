import { listingEvents, TOPICS } from '@vrp/contracts';
import { AppError, createLogger, createMemoryBus, createMemoryStore } from '@vrp/platform';
import { ListingActivityCache } from '../src';

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
    const cache = new ListingActivityCache({ store: createMemoryStore(), bus, groupId: 'svc-activity', logger });
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
    const cache = new ListingActivityCache({ store: createMemoryStore(), bus, groupId: 'g', logger });
    await cache.start();
    await publish(bus, event('lst_a', false, 3), event('lst_a', true, 2), event('lst_a', false, 3));
    expect(cache.get('ws_1', 'lst_a')).toMatchObject({ active: false, version: 3 });
    await cache.stop();
  });

  it('names every inactive listing in one listing_inactive error', async () => {
    const bus = createMemoryBus();
    const cache = new ListingActivityCache({ store: createMemoryStore(), bus, groupId: 'g', logger });
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
    const first = new ListingActivityCache({ store, bus, groupId: 'g', logger });
    await first.start();
    await publish(bus, event('lst_a', false, 1));
    await first.stop();
    // A new bus: the topic history is gone, only the persisted state remains.
    const restarted = new ListingActivityCache({ store, bus: createMemoryBus(), groupId: 'g', logger });
    await restarted.start();
    expect(restarted.isActive('ws_1', 'lst_a')).toBe(false);
    await restarted.stop();
  });

  it('forgets deleted listings and tells listeners about changes', async () => {
    const bus = createMemoryBus();
    const cache = new ListingActivityCache({ store: createMemoryStore(), bus, groupId: 'g', logger });
    const seen: string[] = [];
    cache.onChange((a) => seen.push(`${a.listingId}:${a.active}`));
    await cache.start();
    await publish(bus, event('lst_a', false, 1), event('lst_a', false, 2, { deleted: true }));
    expect(cache.get('ws_1', 'lst_a')).toBeUndefined();
    expect(cache.get('ws_1', 'ch_lst_a')).toBeUndefined();
    expect(seen).toEqual(['lst_a:false']);
    await cache.stop();
  });

  it('a redelivered or replayed older event never brings a deleted listing back, also after a restart', async () => {
    const store = createMemoryStore();
    const bus = createMemoryBus({ redelivery: false });
    const cache = new ListingActivityCache({ store, bus, groupId: 'g', logger });
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

    const restarted = new ListingActivityCache({ store, bus: createMemoryBus(), groupId: 'g', logger });
    await restarted.start();
    await restarted.apply(event('lst_a', true, 1));
    expect(restarted.get('ws_1', 'lst_a')).toBeUndefined();
    await restarted.stop();
  });
});
