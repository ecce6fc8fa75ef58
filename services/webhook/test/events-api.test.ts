// Component test of the Events API (ListEvents / GetEvent) over real gRPC with embedded engines:
// every decided event is stored whether or not a subscription wants it, newest first with
// cursors and filters, the activity rule for inactive listings, tenant and mode isolation, and the
// retention boundary with a manual clock.
import { reservationEvents, TOPICS, webhook as pb, listing as listingPb } from '@vrp/contracts';
import { createMemoryBus, type MemoryEventBus } from '@vrp/engines/bus';
import { createMemoryStore } from '@vrp/engines/store';
import { type DocumentStore } from '@vrp/platform/store';
import { type RunningService } from '@vrp/platform/service';
import { type Upstream } from '@vrp/platform/grpc';
import { errorOf } from '@vrp/testkit';
import { ManualClock } from '../src/app';
import { DeliveryStore } from '../src/store/delivery-store';
import { EventLog } from '../src/store/event-log';
import { connectWebhook, startWebhookUnderTest } from './support';
import { publishActivity, publishReservationEvent } from './publish';
import { eventually, startReceiver, type Receiver } from './receiver';

const WS = 'ws_ev';
const DAY = 86_400_000;
const listingOf = (workspaceId: string, id: string) =>
  id.startsWith('lst_gone') ? null : listingPb.Listing.create({ id, workspaceId, name: `Listing ${id}`, status: 'active', channels: [], currency: 'EUR' });

describe('Events API of the webhook service', () => {
  let bus: MemoryEventBus;
  let store: DocumentStore;
  let clock: ManualClock;
  let running: RunningService;
  let client: Upstream<pb.WebhookServiceClient>;
  let receiver: Receiver;
  let version = 1;

  const list = (req: Partial<pb.ListEventsRequest> = {}) => client.call('listEvents', pb.ListEventsRequest.create({ workspaceId: WS, limit: 50, ...req }));
  const reservationEvent = async (listingId: string, workspaceId = WS, occurredAt = new Date()) =>
    (await publishReservationEvent(bus, { workspaceId, listingId, occurredAt, type: reservationEvents.ReservationEventType.RESERVATION_EVENT_TYPE_CREATED }))
      .event.eventId;
  const setActive = (listingId: string, active: boolean) =>
    publishActivity(bus, { workspaceId: WS, listingId, active, version: ++version, occurredAt: new Date() });

  beforeAll(async () => {
    bus = createMemoryBus();
    store = createMemoryStore();
    clock = new ManualClock(new Date('2030-01-01T00:00:00Z'));
    receiver = await startReceiver();
    running = await startWebhookUnderTest({ store, bus, clock, listings: { get: async (ws, id) => listingOf(ws, id) }, activityWindows: { settleMs: 0 } });
    client = connectWebhook(running);
  });
  afterAll(async () => {
    client.close();
    await running.stop();
    await receiver.close();
    await bus.close();
    await store.close();
  });

  it('stores every event without a subscription, once however often the bus delivers it, and serves the body a delivery sends', async () => {
    const { event: source, value } = await publishReservationEvent(bus, { workspaceId: WS, listingId: 'lst_a', occurredAt: new Date() });
    const id = source.eventId;
    await bus.publish(TOPICS.reservationEvents.name, [{ key: 'lst_a', value }]);
    await bus.whenIdle();
    expect((await list()).events.map((e) => e.id).filter((e) => e === id)).toHaveLength(1);
    const { event } = await client.call('getEvent', { workspaceId: WS, id });
    expect(JSON.parse(event!.bodyJson)).toMatchObject({ id, type: 'reservation.created', listingId: 'lst_a', livemode: true, workspaceId: WS });
    // The same bytes a subscription receives for a later event.
    const { subscription } = await client.call(
      'createSubscription',
      pb.CreateSubscriptionRequest.create({ workspaceId: WS, mode: pb.KeyMode.KEY_MODE_TEST, url: receiver.url }),
    );
    const delivered = await reservationEvent('lst_a');
    await eventually(() => receiver.received.some((r) => r.json.id === delivered), 'the delivery');
    expect((await client.call('getEvent', { workspaceId: WS, id: delivered })).event!.bodyJson).toBe(
      receiver.received.find((r) => r.json.id === delivered)!.body,
    );
    await client.call('deleteSubscription', { workspaceId: WS, id: subscription!.id });
  });

  it('lists newest first and pages with starting_after and ending_before', async () => {
    const base = Date.now() - 3_600_000;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await reservationEvent('lst_page', WS, new Date(base + i * 1000)));
    const newestFirst = [...ids].reverse();
    const first = await list({ listingId: 'lst_page', limit: 2 });
    expect(first.events.map((e) => e.id)).toEqual(newestFirst.slice(0, 2));
    expect(first.hasMore).toBe(true);
    const second = await list({ listingId: 'lst_page', limit: 2, startingAfter: newestFirst[1]! });
    expect(second.events.map((e) => e.id)).toEqual(newestFirst.slice(2, 4));
    const last = await list({ listingId: 'lst_page', limit: 2, startingAfter: newestFirst[3]! });
    expect(last.events.map((e) => e.id)).toEqual([newestFirst[4]]);
    expect(last.hasMore).toBe(false);
    const back = await list({ listingId: 'lst_page', limit: 2, endingBefore: newestFirst[3]! });
    expect(back.events.map((e) => e.id)).toEqual(newestFirst.slice(1, 3));
    expect(back.hasMore).toBe(true);
    const window = await list({ listingId: 'lst_page', createdGte: new Date(base + 1000), createdLt: new Date(base + 3000) });
    expect(window.events.map((e) => e.id)).toEqual([ids[2], ids[1]]);
    expect((await list({ listingId: 'lst_page', types: ['listing.created'] })).events).toEqual([]);
    expect((await list({ listingId: 'lst_page', types: ['listing.created', 'reservation.created'] })).events).toHaveLength(5);
    const badCursor = await errorOf(list({ startingAfter: 'evt_nope' }));
    expect(badCursor.code).toBe('validation_failed');
    expect((await errorOf(list({ types: ['reservation.exploded'] }))).code).toBe('validation_failed');
  });

  it('never stores an event of an inactive listing; one of a listing inactive now is 403 and left out; filtering by it is 403; an unknown listing 404', async () => {
    const before = await reservationEvent('lst_sleepy');
    await setActive('lst_sleepy', false);
    const during = await reservationEvent('lst_sleepy');
    // Its own deactivation is stored, and hidden with the listing's other events while it is inactive.
    expect((await list({ types: ['listing.deactivated'] })).events).toEqual([]);
    expect((await errorOf(client.call('getEvent', { workspaceId: WS, id: during }))).code).toBe('not_found');
    const inactive = await errorOf(client.call('getEvent', { workspaceId: WS, id: before }));
    expect(inactive.code).toBe('listing_inactive');
    expect(inactive.details.listingIds).toEqual(['lst_sleepy']);
    expect((await list()).events.map((e) => e.id)).not.toContain(before);
    expect((await errorOf(list({ listingId: 'lst_sleepy' }))).code).toBe('listing_inactive');
    expect((await errorOf(list({ listingId: 'lst_gone' }))).code).toBe('not_found');
    await setActive('lst_sleepy', true);
    expect((await client.call('getEvent', { workspaceId: WS, id: before })).event!.id).toBe(before);
    const after = (await list({ listingId: 'lst_sleepy' })).events.map((e) => JSON.parse(e.bodyJson) as { id: string; type: string });
    expect(after.map((e) => e.type)).toEqual(['listing.activated', 'listing.deactivated', 'reservation.created']);
    expect(after.map((e) => e.id)).not.toContain(during);
  });

  it('keeps test-mode and live events and other workspaces apart', async () => {
    const sandbox = await reservationEvent('lst_mode', `${WS}_test`);
    expect((await errorOf(client.call('getEvent', { workspaceId: WS, id: sandbox }))).code).toBe('not_found');
    expect((await errorOf(client.call('getEvent', { workspaceId: 'ws_other', id: sandbox }))).code).toBe('not_found');
    const { event } = await client.call('getEvent', { workspaceId: `${WS}_test`, id: sandbox });
    expect(JSON.parse(event!.bodyJson)).toMatchObject({ livemode: false, workspaceId: WS });
    expect((await list({ workspaceId: `${WS}_test` })).events.map((e) => e.id)).toEqual([sandbox]);
  });

  it('lists an event for the retention period and no longer; the embedded engine then removes it', async () => {
    const id = await reservationEvent('lst_old');
    clock.advance(30 * DAY - 1);
    expect((await client.call('getEvent', { workspaceId: WS, id })).event!.id).toBe(id);
    clock.advance(1);
    expect((await errorOf(client.call('getEvent', { workspaceId: WS, id }))).code).toBe('not_found');
    expect((await list({ listingId: 'lst_old' })).events).toEqual([]);
    const log = new EventLog(new DeliveryStore(store));
    expect(await log.purgeExpired(clock.now())).toBeGreaterThan(0);
    expect(await new DeliveryStore(store).events.findOne({ _id: id })).toBeNull();
  });
});
