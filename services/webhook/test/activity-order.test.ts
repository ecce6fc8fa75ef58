// Component test: the webhook service decides delivery by the listing's activity at the time an
// event happened, whatever the order in which listing.activity.v1 and the domain topic reach it.
// Real gRPC, embedded engines, a local HTTP receiver; the activity windows run on a manual clock.
import { listing as listingPb, TOPICS, webhook as pb } from '@vrp/contracts';
import { createLogger, createMemoryBus, createMemoryStore, createUpstream, DEFAULT_ADDRESSES, type DocumentStore, type MemoryEventBus, type RunningService, type Upstream } from '@vrp/platform';
import { ManualClock, startWebhookService } from '../src/app';
import { DeliveryStore } from '../src/store/delivery-store';
import { HeldEventStore } from '../src/store/held-event-store';
import { publishActivity, publishReservationEvent } from './publish';
import { eventually, startReceiver, type Receiver } from './receiver';

const WS = 'ws_order';
const SETTLE_MS = 1_000;
const HOLD_MS = 60_000;

describe('webhook delivery by activity at the event time, not by arrival order', () => {
  let bus: MemoryEventBus;
  let store: DocumentStore;
  let windows: ManualClock;
  let running: RunningService;
  let client: Upstream<pb.WebhookServiceClient>;
  let receiver: Receiver;
  let events: DeliveryStore;
  let held: HeldEventStore;
  let version = 0;
  const base = Date.now();
  /** Event times in ms after the start of the test file (real time: what producers stamp). */
  const at = (ms: number) => new Date(base + ms);

  const reservationEvent = async (listingId: string, occurredAt: Date) => {
    const { event, value } = await publishReservationEvent(bus, { workspaceId: WS, listingId, occurredAt });
    return { id: event.eventId, value };
  };
  const activity = (listingId: string, active: boolean, occurredAt: Date) => publishActivity(bus, { workspaceId: WS, listingId, active, version: (version += 1), occurredAt });

  const delivered = (eventId: string) => receiver.received.filter((r) => r.json.id === eventId).length;
  /** Ends the running windows; the service decides what they held. */
  const endWindow = async (ms: number) => {
    windows.advance(ms);
    await bus.whenIdle();
  };

  beforeAll(async () => {
    bus = createMemoryBus();
    store = createMemoryStore();
    windows = new ManualClock(new Date('2030-01-01T00:00:00Z'));
    events = new DeliveryStore(store);
    held = new HeldEventStore(store);
    receiver = await startReceiver();
    running = await startWebhookService({
      store,
      bus,
      logger: createLogger('webhook', 'silent'),
      grpcPort: 0,
      opsPort: 0,
      host: '127.0.0.1',
      addresses: DEFAULT_ADDRESSES,
      clock: new ManualClock(new Date('2030-01-01T00:00:00Z')),
      activityClock: windows,
      activityWindows: { settleMs: SETTLE_MS, holdMs: HOLD_MS },
      allowLoopbackInTest: true,
      listings: { get: async (ws, id) => listingPb.Listing.create({ id, workspaceId: ws, name: id, status: 'active' }) },
      scheduler: { random: () => 0.5 },
    });
    client = createUpstream(pb.WebhookServiceClient, { name: 'webhook', address: `127.0.0.1:${running.grpcPort}` });
    await client.call('createSubscription', pb.CreateSubscriptionRequest.create({ workspaceId: WS, mode: pb.KeyMode.KEY_MODE_TEST, url: receiver.url, eventTypes: ['reservation.created'] }));
  });
  afterAll(async () => {
    client.close();
    await running.stop();
    await receiver.close();
    await bus.close();
    await store.close();
  });

  it('delivers an event that happened after an activation whose message arrives after it', async () => {
    await activity('lst_late_on', false, at(0));
    const early = await reservationEvent('lst_late_on', at(2_000));
    // Redelivered by the bus: still one event.
    await bus.publish(TOPICS.reservationEvents.name, [{ key: 'lst_late_on', value: early.value }]);
    await bus.whenIdle();
    // The listing looks inactive at the event's time, but that is not settled: held, not dropped.
    await eventually(async () => (await held.count()) === 1, 'the held event');
    // Meanwhile another listing's event goes through: nothing waits on the held one.
    const other = await reservationEvent('lst_other', at(2_100));
    await endWindow(SETTLE_MS);
    await eventually(() => delivered(other.id) === 1, 'the other listing’s event');
    expect(delivered(early.id)).toBe(0);

    // The activation happened at 1 s, before the event; its message arrives now.
    await activity('lst_late_on', true, at(1_000));
    await endWindow(SETTLE_MS);
    await eventually(() => delivered(early.id) === 1, 'the event after the late activation');
    expect(await held.count()).toBe(0);
    expect(delivered(early.id)).toBe(1);
  });

  it('drops an event that happened while inactive even when the activation arrives before it', async () => {
    await activity('lst_early_on', false, at(0));
    await activity('lst_early_on', true, at(3_000));
    const before = await reservationEvent('lst_early_on', at(2_000));
    // Settled: a change after the event's time is known. Dropped at once, neither stored nor held.
    expect(await held.count()).toBe(0);
    expect(await events.event(before.id)).toBeNull();
    const after = await reservationEvent('lst_early_on', at(4_000));
    await endWindow(SETTLE_MS);
    await eventually(() => delivered(after.id) === 1, 'the event after the activation');
    expect(delivered(before.id)).toBe(0);
  });

  it('drops an event that happened after a deactivation whose message arrives after it', async () => {
    await activity('lst_late_off', true, at(0));
    const late = await reservationEvent('lst_late_off', at(2_000));
    // Looks deliverable, but waits the settle window for a late deactivation.
    await eventually(async () => (await held.count()) === 1, 'the held event');
    expect(delivered(late.id)).toBe(0);
    await activity('lst_late_off', false, at(1_000));
    // Now it looks droppable: held for a late activation (none comes), then dropped.
    await endWindow(SETTLE_MS);
    expect(await held.count()).toBe(1);
    await endWindow(HOLD_MS);
    await eventually(async () => (await held.count()) === 0, 'the drop');
    expect(await events.event(late.id)).toBeNull();
    expect(delivered(late.id)).toBe(0);
  });

  it('drops a held event when no activation arrives within the hold window', async () => {
    await activity('lst_asleep', false, at(0));
    const whileInactive = await reservationEvent('lst_asleep', at(5_000));
    await eventually(async () => (await held.count()) === 1, 'the held event');
    await endWindow(HOLD_MS - 1);
    expect(await held.count()).toBe(1);
    await endWindow(1);
    await eventually(async () => (await held.count()) === 0, 'the drop at the end of the hold window');
    expect(await events.event(whileInactive.id)).toBeNull();
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
    const order = receiver.received.filter((r) => r.json.listingId === 'lst_seq').map((r) => r.json.id);
    expect(order).toEqual([first.id, second.id]);
  });
});
