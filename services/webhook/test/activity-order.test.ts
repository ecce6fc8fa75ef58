// Component test: the webhook service decides delivery by the listing's activity at the time an
// event happened, whatever the order in which listing.activity.v1 and the domain topic reach it.
// Real gRPC, embedded engines, a local HTTP receiver; the activity windows run on a manual clock.
// When the listing service confirms that the cache holds the listing's latest activity version,
// the decision is made at once (no window); otherwise the windows decide as before.
import { listing as listingPb, reservationEvents, TOPICS, webhook as pb } from '@vrp/contracts';
import { AppError } from '@vrp/platform/errors';
import { createMemoryBus, type MemoryEventBus } from '@vrp/engines/bus';
import { createMemoryStore } from '@vrp/engines/store';
import type { DocumentStore } from '@vrp/platform/store';
import type { RunningService } from '@vrp/platform/service';
import type { Upstream } from '@vrp/platform/grpc';
import { ManualClock } from '../src/app';
import { connectWebhook, startWebhookUnderTest } from './support';
import type { ListingLookup } from '../src/ports/listings';
import { DeliveryStore } from '../src/store/delivery-store';
import { EventIntake } from '../src/use-cases/intake';
import { HeldEventStore } from '../src/store/held-event-store';
import { partitionForKey } from '@vrp/engines/bus';
import { publishActivity, publishReservationEvent, sendReservationEvent } from './publish';
import { eventually, startReceiver, type Receiver } from './receiver';

const WS = 'ws_order';
const SETTLE_MS = 1_000;
const HOLD_MS = 60_000;

/** One webhook service with a subscription to reservation.created, and what the tests drive it with. */
function orderHarness(listings: ListingLookup) {
  const h = {
    bus: undefined as unknown as MemoryEventBus,
    store: undefined as unknown as DocumentStore,
    windows: undefined as unknown as ManualClock,
    running: undefined as unknown as RunningService,
    client: undefined as unknown as Upstream<pb.WebhookServiceClient>,
    receiver: undefined as unknown as Receiver,
    events: undefined as unknown as DeliveryStore,
    held: undefined as unknown as HeldEventStore,
    version: 0,
    reservationEvent: async (listingId: string, occurredAt: Date) => {
      const { event, value } = await publishReservationEvent(h.bus, { workspaceId: WS, listingId, occurredAt });
      return { id: event.eventId, value };
    },
    /** Publishes an activity change with the next version; returns that version. */
    activity: async (listingId: string, active: boolean, occurredAt: Date) => {
      const version = (h.version += 1);
      await publishActivity(h.bus, { workspaceId: WS, listingId, active, version, occurredAt });
      return version;
    },
    delivered: (eventId: string) => h.receiver.received.filter((r) => r.json.id === eventId).length,
    /** Ends the running windows; the service decides what they held. */
    endWindow: async (ms: number) => {
      h.windows.advance(ms);
      await h.bus.whenIdle();
    },
  };
  beforeAll(async () => {
    h.bus = createMemoryBus();
    h.store = createMemoryStore();
    h.windows = new ManualClock(new Date('2030-01-01T00:00:00Z'));
    h.events = new DeliveryStore(h.store);
    h.held = new HeldEventStore(h.store);
    h.receiver = await startReceiver();
    h.running = await startWebhookUnderTest({
      store: h.store,
      bus: h.bus,
      clock: new ManualClock(new Date('2030-01-01T00:00:00Z')),
      activityClock: h.windows,
      activityWindows: { settleMs: SETTLE_MS, holdMs: HOLD_MS },
      listings,
      scheduler: { random: () => 0.5 },
    });
    h.client = connectWebhook(h.running);
    await h.client.call(
      'createSubscription',
      pb.CreateSubscriptionRequest.create({ workspaceId: WS, mode: pb.KeyMode.KEY_MODE_TEST, url: h.receiver.url, eventTypes: ['reservation.created'] }),
    );
  });
  afterAll(async () => {
    h.client.close();
    await h.running.stop();
    await h.receiver.close();
    await h.bus.close();
    await h.store.close();
  });
  return h;
}

describe('webhook delivery by activity at the event time, not by arrival order', () => {
  // A listing service that never confirms (no activity version): the windows decide.
  const h = orderHarness({ get: async (ws, id) => listingPb.Listing.create({ id, workspaceId: ws, name: id, status: 'active' }) });
  const base = Date.now();
  /** Event times in ms after the start of the test file (real time: what producers stamp). */
  const at = (ms: number) => new Date(base + ms);
  const { reservationEvent, delivered, endWindow } = h;
  const activity = (listingId: string, active: boolean, occurredAt: Date) => h.activity(listingId, active, occurredAt);

  it('delivers an event that happened after an activation whose message arrives after it', async () => {
    await activity('lst_late_on', false, at(0));
    const early = await reservationEvent('lst_late_on', at(2_000));
    // Redelivered by the bus: still one event.
    await h.bus.publish(TOPICS.reservationEvents.name, [{ key: 'lst_late_on', value: early.value }]);
    await h.bus.whenIdle();
    // The listing looks inactive at the event's time, but that is not settled: held, not dropped.
    await eventually(async () => (await h.held.count()) === 1, 'the held event');
    // Meanwhile another listing's event goes through: nothing waits on the held one.
    const other = await reservationEvent('lst_other', at(2_100));
    await endWindow(SETTLE_MS);
    await eventually(() => delivered(other.id) === 1, 'the other listing’s event');
    expect(delivered(early.id)).toBe(0);

    // The activation happened at 1 s, before the event; its message arrives now.
    await activity('lst_late_on', true, at(1_000));
    await endWindow(SETTLE_MS);
    await eventually(() => delivered(early.id) === 1, 'the event after the late activation');
    expect(await h.held.count()).toBe(0);
    expect(delivered(early.id)).toBe(1);
  });

  it('drops an event that happened while inactive even when the activation arrives before it', async () => {
    await activity('lst_early_on', false, at(0));
    await activity('lst_early_on', true, at(3_000));
    const before = await reservationEvent('lst_early_on', at(2_000));
    // Settled: a change after the event's time is known. Dropped at once, neither stored nor held.
    expect(await h.held.count()).toBe(0);
    expect(await h.events.event(before.id)).toBeNull();
    const after = await reservationEvent('lst_early_on', at(4_000));
    await endWindow(SETTLE_MS);
    await eventually(() => delivered(after.id) === 1, 'the event after the activation');
    expect(delivered(before.id)).toBe(0);
  });

  it('drops an event that happened after a deactivation whose message arrives after it', async () => {
    await activity('lst_late_off', true, at(0));
    const late = await reservationEvent('lst_late_off', at(2_000));
    // Looks deliverable, but waits the settle window for a late deactivation.
    await eventually(async () => (await h.held.count()) === 1, 'the held event');
    expect(delivered(late.id)).toBe(0);
    await activity('lst_late_off', false, at(1_000));
    // Now it looks droppable: held for a late activation (none comes), then dropped.
    await endWindow(SETTLE_MS);
    expect(await h.held.count()).toBe(1);
    await endWindow(HOLD_MS);
    await eventually(async () => (await h.held.count()) === 0, 'the drop');
    expect(await h.events.event(late.id)).toBeNull();
    expect(delivered(late.id)).toBe(0);
  });

  it('drops a held event when no activation arrives within the hold window', async () => {
    await activity('lst_asleep', false, at(0));
    const whileInactive = await reservationEvent('lst_asleep', at(5_000));
    await eventually(async () => (await h.held.count()) === 1, 'the held event');
    await endWindow(HOLD_MS - 1);
    expect(await h.held.count()).toBe(1);
    await endWindow(1);
    await eventually(async () => (await h.held.count()) === 0, 'the drop at the end of the hold window');
    expect(await h.events.event(whileInactive.id)).toBeNull();
    // An activation whose message arrives after the window no longer revives it.
    await activity('lst_asleep', true, at(4_000));
    const after = await reservationEvent('lst_asleep', at(6_000));
    await endWindow(SETTLE_MS);
    await eventually(() => delivered(after.id) === 1, 'the event after the activation');
    expect(delivered(whileInactive.id)).toBe(0);
  });

  it('keeps the order of a listing’s events that were held together', async () => {
    await activity('lst_seq', false, at(0));
    const first = await reservationEvent('lst_seq', at(2_000));
    const second = await reservationEvent('lst_seq', at(2_500));
    await activity('lst_seq', true, at(1_000));
    await endWindow(SETTLE_MS);
    await eventually(() => delivered(second.id) === 1, 'both events');
    const order = h.receiver.received.filter((r) => r.json.listingId === 'lst_seq').map((r) => r.json.id);
    expect(order).toEqual([first.id, second.id]);
  });
});

describe('webhook delivery confirmed by the listing service: no window when the cache is provably complete', () => {
  /** The activity version the listing service reports per listing (0: it does not say). */
  const reported = new Map<string, number>();
  let listingServiceDown = false;
  /** The listings the listing service was asked about, in order. */
  const asked: string[] = [];
  /** Per listing: an answer the listing service gives only once the test lets it. */
  const slow = new Map<string, Promise<void>>();
  const h = orderHarness({
    get: async (ws, id) => {
      asked.push(id);
      await slow.get(id);
      if (listingServiceDown) throw new AppError('service_unavailable');
      return listingPb.Listing.create({ id, workspaceId: ws, name: id, status: 'active', activityVersion: reported.get(id) ?? 0 });
    },
  });
  /** Times before now: the listing service is asked after the event happened, as in production. */
  const ago = (ms: number) => new Date(Date.now() - ms);

  it('delivers at once, without waiting for the settle window, when the cache holds the version the listing service reports', async () => {
    reported.set('lst_c_on', await h.activity('lst_c_on', true, ago(60_000)));
    const event = await h.reservationEvent('lst_c_on', ago(5));
    // No window ended: the manual window clock has not moved.
    await eventually(() => h.delivered(event.id) === 1, 'the event, delivered at once');
    expect(await h.held.count()).toBe(0);
  });

  it('drops at once an event of a listing that was inactive when it happened, when that is confirmed', async () => {
    reported.set('lst_c_off', await h.activity('lst_c_off', false, ago(60_000)));
    const event = await h.reservationEvent('lst_c_off', ago(5));
    expect(await h.held.count()).toBe(0);
    expect(await h.events.event(event.id)).toBeNull();
    // An event of another listing, delivered after it, proves the intake has moved past it.
    reported.set('lst_c_other', await h.activity('lst_c_other', true, ago(60_000)));
    const other = await h.reservationEvent('lst_c_other', ago(5));
    await eventually(() => h.delivered(other.id) === 1, 'the next event');
    expect(h.delivered(event.id)).toBe(0);
  });

  it('holds an event while the listing service knows a change the cache has not applied, and drops it at once when that deactivation arrives', async () => {
    const on = await h.activity('lst_c_late', true, ago(60_000));
    const deactivatedAt = ago(1_000);
    // The listing service has committed the deactivation; its message is still on its way.
    reported.set('lst_c_late', on + 1);
    const event = await h.reservationEvent('lst_c_late', ago(5));
    await eventually(async () => (await h.held.count()) === 1, 'the held event');
    expect(h.delivered(event.id)).toBe(0);
    await publishActivity(h.bus, { workspaceId: WS, listingId: 'lst_c_late', active: false, version: on + 1, occurredAt: deactivatedAt });
    h.version = Math.max(h.version, on + 1);
    // Decided by the arrival of the change, confirmed: no window has ended.
    await eventually(async () => (await h.held.count()) === 0, 'the drop');
    expect(await h.events.event(event.id)).toBeNull();
    expect(h.delivered(event.id)).toBe(0);
  });

  it('decides and stores an event that no subscription wants (the Events API lists it), queuing no delivery', async () => {
    // The only subscription wants reservation.created; the activity is not settled for the event.
    reported.set('lst_c_unwanted', await h.activity('lst_c_unwanted', true, ago(60_000)));
    asked.length = 0;
    const cancelled = await publishReservationEvent(h.bus, {
      workspaceId: WS,
      listingId: 'lst_c_unwanted',
      occurredAt: ago(5),
      type: reservationEvents.ReservationEventType.RESERVATION_EVENT_TYPE_CANCELLED,
    });
    // Confirmed with the listing service like any other event, so it is decided at once.
    expect(asked).toEqual(['lst_c_unwanted']);
    expect(await h.held.count()).toBe(0);
    expect(await h.events.event(cancelled.event.eventId)).not.toBeNull();
    expect(h.delivered(cancelled.event.eventId)).toBe(0);
    // The same listing's wanted event is delivered.
    const created = await h.reservationEvent('lst_c_unwanted', ago(5));
    await eventually(() => h.delivered(created.id) === 1, 'the wanted event');
  });

  it('decides the events of other listings while one listing waits for its confirmation', async () => {
    // Two listings whose events go to different partitions, so that only the intake could order them.
    const partitionOf = (id: string) => partitionForKey(id, TOPICS.reservationEvents.partitions);
    const waiting = 'lst_c_slow';
    const other = ['lst_c_quick1', 'lst_c_quick2', 'lst_c_quick3', 'lst_c_quick4'].find((id) => partitionOf(id) !== partitionOf(waiting))!;
    reported.set(waiting, await h.activity(waiting, true, ago(60_000)));
    reported.set(other, await h.activity(other, true, ago(60_000)));
    let answer: () => void = () => undefined;
    slow.set(waiting, new Promise<void>((resolve) => (answer = resolve)));
    try {
      const held = (await sendReservationEvent(h.bus, { workspaceId: WS, listingId: waiting, occurredAt: ago(5) })).event.eventId;
      await eventually(() => asked.includes(waiting), 'the question about the waiting listing');
      const quick = (await sendReservationEvent(h.bus, { workspaceId: WS, listingId: other, occurredAt: ago(5) })).event.eventId;
      await eventually(() => h.delivered(quick) === 1, 'the other listing’s event, while the first waits');
      expect(h.delivered(held)).toBe(0);
      answer();
      await eventually(() => h.delivered(held) === 1, 'the waiting listing’s event, once answered');
    } finally {
      slow.delete(waiting);
      answer();
    }
  });

  it('stores together the events of a listing that arrive from other partitions while it waits', async () => {
    const waiting = 'lst_c_batch';
    const partitionOf = (key: string) => partitionForKey(key, TOPICS.reservationEvents.partitions);
    // Events of one listing reach the intake from several partitions (guest, message, review events).
    const keys: string[] = [];
    for (const key of Array.from({ length: 40 }, (_, n) => `k${n}`)) {
      if (keys.length < 3 && partitionOf(key) !== partitionOf(waiting) && !keys.some((k) => partitionOf(k) === partitionOf(key))) keys.push(key);
    }
    expect(keys).toHaveLength(3);
    reported.set(waiting, await h.activity(waiting, true, ago(60_000)));
    let answer: () => void = () => undefined;
    slow.set(waiting, new Promise<void>((resolve) => (answer = resolve)));
    /** Event id -> the transaction that stored it. */
    const storedIn = new Map<string, unknown>();
    const enqueue = DeliveryStore.prototype.enqueue;
    const stores = jest.spyOn(DeliveryStore.prototype, 'enqueue').mockImplementation(function (this: DeliveryStore, ...args) {
      storedIn.set(args[0].id, args[2]);
      return enqueue.apply(this, args);
    });
    const accept = EventIntake.prototype.accept;
    let accepted = 0;
    const accepts = jest.spyOn(EventIntake.prototype, 'accept').mockImplementation(function (this: EventIntake, ...args) {
      accepted += 1;
      return accept.apply(this, args);
    });
    try {
      const first = (await sendReservationEvent(h.bus, { workspaceId: WS, listingId: waiting, occurredAt: ago(5) })).event.eventId;
      await eventually(() => asked.includes(waiting), 'the question about the waiting listing');
      const later: string[] = [];
      for (const key of keys) later.push((await sendReservationEvent(h.bus, { workspaceId: WS, listingId: waiting, occurredAt: ago(5), key })).event.eventId);
      await eventually(() => accepted === 4, 'the three later events, waiting behind the first');
      answer();
      for (const id of [first, ...later]) await eventually(() => h.delivered(id) === 1, `the event ${id}`);
      expect(new Set(later.map((id) => storedIn.get(id))).size).toBe(1);
      expect(storedIn.get(later[0]!)).not.toBe(storedIn.get(first));
    } finally {
      stores.mockRestore();
      accepts.mockRestore();
      slow.delete(waiting);
      answer();
    }
  });

  it('falls back to the settle window when the listing service does not answer', async () => {
    reported.set('lst_c_down', await h.activity('lst_c_down', true, ago(60_000)));
    listingServiceDown = true;
    try {
      const event = await h.reservationEvent('lst_c_down', ago(5));
      await eventually(async () => (await h.held.count()) === 1, 'the held event');
      expect(h.delivered(event.id)).toBe(0);
      await h.endWindow(SETTLE_MS);
      await eventually(() => h.delivered(event.id) === 1, 'the event after its window');
    } finally {
      listingServiceDown = false;
    }
  });
});
