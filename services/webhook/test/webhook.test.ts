// Component test: the webhook service over real gRPC with embedded engines, a real local HTTP
// receiver, a manual scheduling clock, and domain events published on the memory bus.
import { listing as listingPb, ops, reservation as resPb, reservationEvents, TOPICS, webhook as pb } from '@vrp/contracts';
import { createMemoryBus, type MemoryEventBus } from '@vrp/engines/bus';
import { createMemoryStore } from '@vrp/engines/store';
import { createUpstream, type Upstream } from '@vrp/platform/grpc';
import type { DocumentStore } from '@vrp/platform/store';
import type { RunningService } from '@vrp/platform/service';
import { ManualClock, verifySignature } from '../src/app';
import { connectWebhook, startWebhookUnderTest } from './support';
import type { Resolver } from '../src/ports/address-guard';
import { DeliveryStore } from '../src/store/delivery-store';
import { publishActivity, publishReservationEvent } from './publish';
import { eventually, startReceiver, type Receiver } from './receiver';
import { errorOf } from '@vrp/testkit';

const WS = 'ws_a';
const OTHER_WS = 'ws_b';
const LIVE = pb.KeyMode.KEY_MODE_LIVE;
const TEST = pb.KeyMode.KEY_MODE_TEST;

/** Public DNS answers for the test's hosts; `rebind` makes a host answer loopback afterwards. */
const dnsAnswers = new Map<string, string[]>([
  ['hooks.example.com', ['93.184.216.34']],
  ['internal.example.com', ['10.1.2.3']],
  ['rebind.example.com', ['93.184.216.35']],
]);
const resolve: Resolver = async (host) => {
  const found = dnsAnswers.get(host);
  if (!found) throw new Error(`ENOTFOUND ${host}`);
  return found;
};

const listingOf = (workspaceId: string, id: string) =>
  listingPb.Listing.create({
    id,
    workspaceId,
    name: `Listing ${id}`,
    status: 'active',
    channels: [{ channel: 'CHANNEL_A', externalId: `ch-${id}` }],
    timezone: 'Europe/Lisbon',
    currency: 'EUR',
  });

let activityVersion = 100;

describe('webhook service over gRPC', () => {
  let bus: MemoryEventBus;
  let store: DocumentStore;
  let clock: ManualClock;
  let running: RunningService;
  let client: Upstream<pb.WebhookServiceClient>;
  let receiver: Receiver;
  let deliveries: DeliveryStore;

  const start = () =>
    startWebhookUnderTest({
      store,
      bus,
      clock,
      resolve,
      listings: { get: async (ws, id) => listingOf(ws, id) },
      // A small scan batch: a long blocked queue must not starve the others.
      scheduler: { random: () => 0.5, batchSize: 3 },
      // No wait for late deactivations here (activity-order.test.ts covers the windows), so
      // deliverable events go at once; events that look dropped are still held for an activation.
      activityWindows: { settleMs: 0 },
    });

  /** Subscriptions of the running test, deleted after it so that tests do not see each other's. */
  const made: string[] = [];
  const subscribe = async (extra: Partial<pb.CreateSubscriptionRequest> = {}) => {
    const res = await client.call('createSubscription', pb.CreateSubscriptionRequest.create({ workspaceId: WS, mode: TEST, url: receiver.url, ...extra }));
    made.push(res.subscription!.id);
    return res;
  };

  const reservationEvent = (listingId: string, type = reservationEvents.ReservationEventType.RESERVATION_EVENT_TYPE_CREATED, workspaceId = WS) =>
    publishReservationEvent(bus, { workspaceId, listingId, type, occurredAt: new Date() });

  const setActive = async (listingId: string, active: boolean, workspaceId = WS) => {
    activityVersion += 1;
    await publishActivity(bus, { workspaceId, listingId, active, version: activityVersion, occurredAt: new Date() });
  };

  const deliveriesOf = async (subscriptionId: string, status = '') =>
    (await client.call('listDeliveries', pb.ListDeliveriesRequest.create({ workspaceId: WS, subscriptionId, status, page: { limit: 200, offset: 0 } })))
      .deliveries;

  beforeAll(async () => {
    bus = createMemoryBus();
    store = createMemoryStore();
    clock = new ManualClock(new Date('2030-01-01T00:00:00Z'));
    deliveries = new DeliveryStore(store);
    receiver = await startReceiver();
    running = await start();
    client = connectWebhook(running);
  });
  afterAll(async () => {
    client.close();
    await running.stop();
    await receiver.close();
    await bus.close();
    await store.close();
  });
  afterEach(async () => {
    for (const id of made.splice(0)) await client.call('deleteSubscription', { workspaceId: WS, id }).catch(() => undefined);
  });
  beforeEach(() => {
    receiver.received.length = 0;
    receiver.respond = () => 200;
  });

  describe('subscriptions', () => {
    it('shows the secret once, on create; reads never carry it', async () => {
      const created = await subscribe({ eventTypes: ['reservation.created', 'reservation.created'], description: 'ops' });
      expect(created.secret).toMatch(/^whsec_[1-9A-HJ-NP-Za-km-z]{32}$/);
      expect(created.subscription).toMatchObject({
        workspaceId: WS,
        url: receiver.url,
        eventTypes: ['reservation.created'],
        enabled: true,
        mode: 'test',
        description: 'ops',
      });
      const got = await client.call('getSubscription', { workspaceId: WS, id: created.subscription!.id });
      const wire = Buffer.from(pb.GetSubscriptionResponse.encode(got).finish()).toString('latin1');
      expect(wire).not.toContain('whsec_');
      const listed = await client.call('listSubscriptions', { workspaceId: WS, page: { limit: 200, offset: 0 } });
      expect(JSON.stringify(listed)).not.toContain('whsec_');
      expect(listed.page).toMatchObject({ total: listed.subscriptions.length });
      await client.call('deleteSubscription', { workspaceId: WS, id: created.subscription!.id });
    });

    it('answers another workspace’s subscription with not_found, for every operation', async () => {
      const { subscription } = await subscribe();
      const id = subscription!.id;
      for (const call of [
        client.call('getSubscription', { workspaceId: OTHER_WS, id }),
        client.call('updateSubscription', pb.UpdateSubscriptionRequest.create({ workspaceId: OTHER_WS, id, mode: TEST, enabled: false })),
        client.call('deleteSubscription', { workspaceId: OTHER_WS, id }),
        client.call('rotateSubscriptionSecret', { idempotencyKey: '', workspaceId: OTHER_WS, id, gracePeriodSeconds: 0 }),
        client.call('listDeliveries', pb.ListDeliveriesRequest.create({ workspaceId: OTHER_WS, subscriptionId: id })),
      ]) {
        expect((await errorOf(call)).code).toBe('not_found');
      }
      expect((await client.call('listSubscriptions', { workspaceId: OTHER_WS })).subscriptions).toEqual([]);
      await client.call('deleteSubscription', { workspaceId: WS, id });
      expect((await errorOf(client.call('getSubscription', { workspaceId: WS, id }))).code).toBe('not_found');
    });

    it('refuses unknown event types and bad URLs field by field', async () => {
      const err = await errorOf(subscribe({ url: 'ftp://x', eventTypes: ['reservation.created', 'reservation.exploded'] }));
      expect(err.code).toBe('validation_failed');
      expect(err.details.fields).toEqual({ url: 'must use https', 'eventTypes[1]': expect.stringContaining("unknown event type 'reservation.exploded'") });
    });

    it.each([
      ['http://hooks.example.com/x', 'must use https in live mode'],
      ['https://127.0.0.1/x', 'loopback'],
      ['https://[::1]/x', 'loopback'],
      ['https://10.0.0.5/x', 'private'],
      ['https://192.168.1.20/x', 'private'],
      ['https://169.254.169.254/latest/meta-data', 'link-local'],
      ['https://[fd00::1]/x', 'unique-local'],
      ['https://[::ffff:127.0.0.1]/x', 'loopback'],
      ['https://internal.example.com/x', 'private address (10.1.2.3)'],
      ['https://nowhere.example.com/x', 'could not be resolved'],
      ['https://user:pw@hooks.example.com/x', 'credentials'],
    ])('live mode refuses %s (no SSRF)', async (url, why) => {
      const err = await errorOf(subscribe({ mode: LIVE, url }));
      expect(err.code).toBe('validation_failed');
      expect(err.details.fields?.url).toContain(why);
    });

    it('live mode accepts a public https URL; test mode refuses private addresses other than loopback', async () => {
      const { subscription } = await subscribe({ mode: LIVE, url: 'https://hooks.example.com/x' });
      expect(subscription!.mode).toBe('live');
      // A test key cannot relax a live subscription's rules.
      const err = await errorOf(
        client.call(
          'updateSubscription',
          pb.UpdateSubscriptionRequest.create({ workspaceId: WS, id: subscription!.id, mode: TEST, url: 'http://127.0.0.1:9/x' }),
        ),
      );
      expect(err.details.fields?.url).toBe('must use https in live mode');
      expect((await errorOf(subscribe({ url: 'http://10.0.0.5/x' }))).details.fields?.url).toContain('private');
    });

    it('refuses a request without a mode or workspace as validation_failed', async () => {
      expect((await errorOf(subscribe({ mode: pb.KeyMode.KEY_MODE_UNSPECIFIED }))).details.fields).toEqual({ mode: 'is required (test or live)' });
      expect((await errorOf(client.call('listSubscriptions', { workspaceId: '' }))).details.fields).toEqual({ workspaceId: 'is required' });
    });
  });

  describe('delivery', () => {
    it('POSTs the event signed with HMAC-SHA256 over timestamp + body, with the API resource as data.object', async () => {
      const { subscription, secret } = await subscribe({ eventTypes: ['reservation.created'] });
      const { event } = await reservationEvent('lst_sig');
      await eventually(() => receiver.received.length === 1, 'the delivery');
      const got = receiver.received[0]!;
      expect(got.headers['content-type']).toBe('application/json');
      expect(got.headers['vrp-event-id']).toBe(event.eventId);
      expect(got.headers['vrp-event-type']).toBe('reservation.created');
      expect(got.json).toMatchObject({
        id: event.eventId,
        type: 'reservation.created',
        workspaceId: WS,
        listingId: 'lst_sig',
        data: { object: { id: event.reservation!.id, propertyId: 'lst_sig', status: 'CONFIRMED', confirmationCode: 'ABC123' } },
      });
      const header = String(got.headers['vrp-signature']);
      const now = Math.floor(Date.now() / 1000);
      expect(verifySignature({ header, secret, body: got.body, nowSeconds: now })).toEqual({ ok: true });
      expect(verifySignature({ header, secret: 'whsec_wrong', body: got.body, nowSeconds: now })).toEqual({ ok: false, reason: 'no_matching_signature' });
      expect(verifySignature({ header, secret, body: got.body.replace('CONFIRMED', 'CANCELLED'), nowSeconds: now }).ok).toBe(false);
      expect(verifySignature({ header, secret, body: got.body, nowSeconds: now + 301 })).toEqual({ ok: false, reason: 'timestamp_outside_tolerance' });
      await eventually(async () => (await deliveriesOf(subscription!.id, 'succeeded')).length === 1, 'the delivery log');
      const [logged] = await deliveriesOf(subscription!.id);
      expect(logged).toMatchObject({ status: 'succeeded', attempts: 1, responseStatus: 200, eventId: event.eventId, listingId: 'lst_sig' });
    });

    it('queues an event once even when the bus delivers it twice, and only for matching subscriptions', async () => {
      const wanted = await subscribe({ eventTypes: ['reservation.cancelled'] });
      const other = await subscribe({ eventTypes: ['guest.created'] });
      const { value } = await reservationEvent('lst_dup', reservationEvents.ReservationEventType.RESERVATION_EVENT_TYPE_CANCELLED);
      await bus.publish(TOPICS.reservationEvents.name, [{ key: 'lst_dup', value }]);
      await bus.whenIdle();
      await eventually(async () => (await deliveriesOf(wanted.subscription!.id, 'succeeded')).length === 1, 'the delivery');
      expect(await deliveriesOf(wanted.subscription!.id)).toHaveLength(1);
      expect(await deliveriesOf(other.subscription!.id)).toHaveLength(0);
    });

    it('retries on the documented schedule with a controllable clock, then succeeds', async () => {
      const { subscription } = await subscribe();
      let failures = 2;
      receiver.respond = () => (failures-- > 0 ? 503 : 200);
      await reservationEvent('lst_retry');
      await eventually(async () => (await deliveriesOf(subscription!.id))[0]?.attempts === 1, 'the first attempt');
      let [d] = await deliveriesOf(subscription!.id);
      expect(d).toMatchObject({ status: 'pending', responseStatus: 503 });
      // random() = 0.5 means no jitter: the first retry is exactly 30 s later.
      expect(d!.nextAttemptAt!.getTime() - d!.lastAttemptAt!.getTime()).toBe(30_000);
      clock.advance(29_000);
      await bus.whenIdle();
      expect(receiver.received).toHaveLength(1);
      clock.advance(1_000);
      await eventually(async () => (await deliveriesOf(subscription!.id))[0]?.attempts === 2, 'the second attempt');
      [d] = await deliveriesOf(subscription!.id);
      expect(d!.nextAttemptAt!.getTime() - d!.lastAttemptAt!.getTime()).toBe(120_000);
      clock.advance(120_000);
      await eventually(async () => (await deliveriesOf(subscription!.id))[0]?.status === 'succeeded', 'the third attempt');
      expect(receiver.received).toHaveLength(3);
      expect(new Set(receiver.received.map((r) => r.json.id)).size).toBe(1);
    });

    it('keeps order per listing: a later event waits for the earlier one; other listings do not wait', async () => {
      const { subscription } = await subscribe();
      receiver.respond = (r) =>
        r.json.listingId === 'lst_o1' && r.json.type === 'reservation.created' && receiver.received.filter((x) => x.json.id === r.json.id).length === 1
          ? 500
          : 200;
      const first = await reservationEvent('lst_o1', reservationEvents.ReservationEventType.RESERVATION_EVENT_TYPE_CREATED);
      const second = await reservationEvent('lst_o1', reservationEvents.ReservationEventType.RESERVATION_EVENT_TYPE_UPDATED);
      // More waiting events of lst_o1 than a scan reads: lst_o2 must still go at once.
      const more = [];
      for (let i = 0; i < 4; i++) more.push(await reservationEvent('lst_o1', reservationEvents.ReservationEventType.RESERVATION_EVENT_TYPE_UPDATED));
      const elsewhere = await reservationEvent('lst_o2', reservationEvents.ReservationEventType.RESERVATION_EVENT_TYPE_UPDATED);
      await eventually(() => receiver.received.some((r) => r.json.id === elsewhere.event.eventId), 'the other listing’s event');
      expect(receiver.received.map((r) => r.json.id)).not.toContain(second.event.eventId);
      const waiting = (await deliveriesOf(subscription!.id)).find((d) => d.eventId === second.event.eventId);
      expect(waiting).toMatchObject({ status: 'pending', attempts: 0 });
      clock.advance(30_000);
      await eventually(() => receiver.received.some((r) => r.json.id === second.event.eventId), 'the later event after the retry');
      await eventually(() => receiver.received.filter((r) => r.json.listingId === 'lst_o1').length === 7, 'the rest of the queue');
      expect(receiver.received.filter((r) => r.json.listingId === 'lst_o1').map((r) => r.json.id)).toEqual([
        first.event.eventId,
        first.event.eventId,
        second.event.eventId,
        ...more.map((m) => m.event.eventId),
      ]);
    });

    it('neither delivers nor queues events of an inactive listing; activation resumes with no backlog', async () => {
      const { subscription } = await subscribe({ eventTypes: ['reservation.created', 'reservation.updated', 'listing.activated', 'listing.deactivated'] });
      await setActive('lst_sleep', false);
      await eventually(() => receiver.received.some((r) => r.json.type === 'listing.deactivated'), 'the deactivation notice');
      expect(receiver.received.find((r) => r.json.type === 'listing.deactivated')!.json.data.object).toEqual({
        id: 'lst_sleep',
        name: 'Listing lst_sleep',
        status: 'inactive',
        channels: [{ channel: 'CHANNEL_A', externalId: 'ch-lst_sleep' }],
      });
      const whileInactive = await reservationEvent('lst_sleep');
      expect(await deliveries.event(whileInactive.event.eventId)).toBeNull();
      expect((await deliveriesOf(subscription!.id)).map((d) => d.eventId)).not.toContain(whileInactive.event.eventId);
      await setActive('lst_sleep', true);
      const afterActivation = await reservationEvent('lst_sleep', reservationEvents.ReservationEventType.RESERVATION_EVENT_TYPE_UPDATED);
      await eventually(() => receiver.received.some((r) => r.json.id === afterActivation.event.eventId), 'the event after activation');
      expect(receiver.received.map((r) => r.json.type)).toEqual(['listing.deactivated', 'listing.activated', 'reservation.updated']);
      expect(receiver.received[1]!.json.data.object).toMatchObject({ id: 'lst_sleep', status: 'active', timezone: 'Europe/Lisbon' });
    });

    it('drops the pending retries of a listing that becomes inactive', async () => {
      const { subscription } = await subscribe({ eventTypes: ['reservation.created'] });
      receiver.respond = () => 500;
      await reservationEvent('lst_drop');
      await eventually(async () => (await deliveriesOf(subscription!.id))[0]?.attempts === 1, 'the failed attempt');
      await setActive('lst_drop', false);
      await eventually(async () => (await deliveriesOf(subscription!.id))[0]?.status === 'dropped', 'the drop');
      expect((await deliveriesOf(subscription!.id))[0]).toMatchObject({ droppedReason: 'listing_inactive', attempts: 1 });
      receiver.respond = () => 200;
      clock.advance(3600_000);
      await setActive('lst_drop', true);
      expect(receiver.received).toHaveLength(1);
    });

    it('replays an old delivery as a new one; a listing inactive now is 403 listing_inactive, an unknown id 404', async () => {
      const { subscription } = await subscribe({ eventTypes: ['reservation.created'] });
      const { event } = await reservationEvent('lst_replay');
      await eventually(async () => (await deliveriesOf(subscription!.id, 'succeeded')).length === 1, 'the original');
      const [original] = await deliveriesOf(subscription!.id);
      const { delivery } = await client.call('replayDelivery', {
        idempotencyKey: '',
        workspaceId: WS,
        subscriptionId: subscription!.id,
        deliveryId: original!.id,
      });
      expect(delivery).toMatchObject({ replayOf: original!.id, eventId: event.eventId, status: 'pending' });
      await eventually(() => receiver.received.length === 2, 'the replay');
      expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body);
      expect(receiver.received[1]!.headers['vrp-delivery-id']).toBe(delivery!.id);

      expect(
        (
          await errorOf(
            client.call('replayDelivery', { idempotencyKey: '', workspaceId: OTHER_WS, subscriptionId: subscription!.id, deliveryId: original!.id }),
          )
        ).code,
      ).toBe('not_found');
      expect(
        (await errorOf(client.call('replayDelivery', { idempotencyKey: '', workspaceId: WS, subscriptionId: subscription!.id, deliveryId: 'whd_nope' }))).code,
      ).toBe('not_found');
      await setActive('lst_replay', false);
      const err = await errorOf(
        client.call('replayDelivery', { idempotencyKey: '', workspaceId: WS, subscriptionId: subscription!.id, deliveryId: original!.id }),
      );
      expect(err.code).toBe('listing_inactive');
      expect(err.details.listingIds).toEqual(['lst_replay']);
      await setActive('lst_replay', true);
    });

    it('signs with both secrets during a rotation’s grace period, then with the new one only', async () => {
      const { subscription, secret: oldSecret } = await subscribe({ eventTypes: ['reservation.created'] });
      const rotated = await client.call('rotateSubscriptionSecret', { idempotencyKey: '', workspaceId: WS, id: subscription!.id, gracePeriodSeconds: 3600 });
      expect(rotated.secret).not.toBe(oldSecret);
      expect(rotated.subscription!.previousSecretExpiresAt).toEqual(new Date(clock.now().getTime() + 3600_000));
      await reservationEvent('lst_rot');
      await eventually(() => receiver.received.length === 1, 'the delivery');
      const r = receiver.received[0]!;
      const now = Math.floor(Date.now() / 1000);
      for (const secret of [oldSecret, rotated.secret])
        expect(verifySignature({ header: String(r.headers['vrp-signature']), secret, body: r.body, nowSeconds: now }).ok).toBe(true);
      const err = await errorOf(client.call('rotateSubscriptionSecret', { idempotencyKey: '', workspaceId: WS, id: subscription!.id, gracePeriodSeconds: -1 }));
      expect(err.details.fields).toEqual({ gracePeriodSeconds: expect.stringContaining('between 0 and') });
    });

    it('re-checks the address at delivery: a host that rebinds to loopback is refused before connecting', async () => {
      const { subscription } = await subscribe({ mode: LIVE, url: 'https://rebind.example.com/hook', eventTypes: ['reservation.created'] });
      dnsAnswers.set('rebind.example.com', ['127.0.0.1']);
      await reservationEvent('lst_rebind');
      await eventually(async () => (await deliveriesOf(subscription!.id))[0]?.attempts === 1, 'the refused attempt');
      expect((await deliveriesOf(subscription!.id))[0]).toMatchObject({
        status: 'pending',
        responseStatus: 0,
        lastError: expect.stringContaining('blocked: resolves to a loopback address (127.0.0.1)'),
      });
      expect(receiver.received).toHaveLength(0);
    });

    it('fails a delivery after the whole schedule (~3 days) and disables an endpoint that failed throughout, saying why', async () => {
      const { subscription } = await subscribe({ eventTypes: ['reservation.created'] });
      receiver.respond = () => 500;
      await reservationEvent('lst_dead');
      for (let attempt = 1; attempt <= 11; attempt++) {
        await eventually(async () => (await deliveriesOf(subscription!.id))[0]?.attempts === attempt, `attempt ${attempt}`);
        const [d] = await deliveriesOf(subscription!.id);
        if (d!.nextAttemptAt) clock.advance(d!.nextAttemptAt.getTime() - clock.now().getTime());
      }
      const [d] = await deliveriesOf(subscription!.id);
      expect(d).toMatchObject({ status: 'failed', attempts: 11 });
      expect(d!.completedAt!.getTime() - d!.createdAt!.getTime()).toBe((30 + 120 + 600 + 1800 + 3600 + 3 * 3600 + 6 * 3600 + 12 * 3600 + 24 * 3600 * 2) * 1000);
      const { subscription: after } = await client.call('getSubscription', { workspaceId: WS, id: subscription!.id });
      expect(after).toMatchObject({ enabled: false, disabledReason: expect.stringContaining('failed through the whole retry schedule') });
      const { subscription: reenabled } = await client.call(
        'updateSubscription',
        pb.UpdateSubscriptionRequest.create({ workspaceId: WS, id: subscription!.id, mode: TEST, enabled: true }),
      );
      expect(reenabled).toMatchObject({ enabled: true, disabledReason: '' });
    });
  });

  describe('Idempotency-Key stored with every write (a retry the gateway could not answer writes nothing)', () => {
    const countSubscriptions = async () => (await client.call('listSubscriptions', { workspaceId: WS, page: { limit: 200, offset: 0 } })).page!.total;

    it('a create retried with its key answers the first subscription and secret; another body is idempotency_conflict', async () => {
      const before = await countSubscriptions();
      const first = await subscribe({ idempotencyKey: 'whs-key-1', description: 'once' });
      const again = await client.call(
        'createSubscription',
        pb.CreateSubscriptionRequest.create({ workspaceId: WS, mode: TEST, url: receiver.url, idempotencyKey: 'whs-key-1', description: 'once' }),
      );
      expect([again.subscription!.id, again.secret]).toEqual([first.subscription!.id, first.secret]);
      expect(await countSubscriptions()).toBe(before + 1);
      const other = client.call(
        'createSubscription',
        pb.CreateSubscriptionRequest.create({ workspaceId: WS, mode: TEST, url: receiver.url, idempotencyKey: 'whs-key-1', description: 'twice' }),
      );
      expect((await errorOf(other)).code).toBe('idempotency_conflict');
      expect(await countSubscriptions()).toBe(before + 1);
    });

    it('an update retried with its key after a later change answers the subscription as it is and overwrites nothing', async () => {
      const { subscription } = await subscribe();
      const id = subscription!.id;
      const patch = (description: string, idempotencyKey: string) =>
        client.call('updateSubscription', pb.UpdateSubscriptionRequest.create({ workspaceId: WS, id, mode: TEST, description, idempotencyKey }));
      await patch('first', 'whs-patch-1');
      await patch('later', '');
      expect((await patch('first', 'whs-patch-1')).subscription!.description).toBe('later');
      expect((await client.call('getSubscription', { workspaceId: WS, id })).subscription!.description).toBe('later');
      expect((await errorOf(patch('another', 'whs-patch-1'))).code).toBe('idempotency_conflict');
      expect((await client.call('getSubscription', { workspaceId: WS, id })).subscription!.description).toBe('later');
    });

    it('a secret rotation retried with its key rotates once', async () => {
      const { subscription, secret: original } = await subscribe();
      const rotate = () =>
        client.call('rotateSubscriptionSecret', { idempotencyKey: 'whs-rotate-1', workspaceId: WS, id: subscription!.id, gracePeriodSeconds: 60 });
      const first = await rotate();
      const again = await rotate();
      expect(first.secret).not.toBe(original);
      // A second rotation would have made a new secret.
      expect(again.secret).toBe(first.secret);
      const longer = client.call('rotateSubscriptionSecret', {
        idempotencyKey: 'whs-rotate-1',
        workspaceId: WS,
        id: subscription!.id,
        gracePeriodSeconds: 120,
      });
      expect((await errorOf(longer)).code).toBe('idempotency_conflict');
    });

    it('a delivery replay retried with its key queues one replay: the receiver gets the event twice, not three times', async () => {
      const { subscription } = await subscribe({ eventTypes: ['reservation.created'] });
      await reservationEvent('lst_idem_replay');
      await eventually(async () => (await deliveriesOf(subscription!.id, 'succeeded')).length === 1, 'the original');
      const [original] = await deliveriesOf(subscription!.id);
      const replay = () =>
        client.call('replayDelivery', { idempotencyKey: 'whd-replay-1', workspaceId: WS, subscriptionId: subscription!.id, deliveryId: original!.id });
      const first = await replay();
      const again = await replay();
      expect(again.delivery!.id).toBe(first.delivery!.id);
      await eventually(async () => (await deliveriesOf(subscription!.id, 'succeeded')).length === 2, 'the replay');
      expect(await deliveriesOf(subscription!.id)).toHaveLength(2);
      expect(receiver.received).toHaveLength(2);
    });
  });

  describe('intake failures', () => {
    it('dead-letters an undecodable domain event and queues the events behind it', async () => {
      const { subscription } = await subscribe();
      // Not a ReservationEvent: an unterminated varint.
      await bus.publish(TOPICS.reservationEvents.name, [{ key: 'lst_garbled', value: new Uint8Array([0x0a, 0xff, 0xff, 0xff]) }]);
      const { event } = await reservationEvent('lst_garbled');
      expect((await deliveriesOf(subscription!.id)).map((d) => d.eventId)).toEqual([event.eventId]);
      const deadLetters = createUpstream(ops.DeadLetterServiceClient, { name: 'webhook-dead-letters', address: `127.0.0.1:${running.grpcPort}` });
      try {
        const found = (await deadLetters.call('listDeadLetters', ops.ListDeadLettersRequest.create({ consumerGroup: 'webhook-ingest' }))).deadLetters;
        expect(found).toEqual([
          expect.objectContaining({
            service: 'webhook',
            topic: TOPICS.reservationEvents.name,
            key: 'lst_garbled',
            errorCode: 'malformed_payload',
            reason: 'permanent',
            attempts: 1,
          }),
        ]);
        await deadLetters.call('deleteDeadLetter', { id: found[0]!.id });
      } finally {
        deadLetters.close();
      }
    });
  });

  describe('durability', () => {
    it('loses no pending delivery across a restart and re-sends none that was acknowledged', async () => {
      const { subscription } = await subscribe({ eventTypes: ['reservation.created'] });
      const acknowledged = await reservationEvent('lst_dur1');
      await eventually(() => receiver.received.length === 1, 'the first delivery');
      receiver.respond = () => 503;
      const retried = await reservationEvent('lst_dur2');
      await eventually(
        async () => (await deliveriesOf(subscription!.id)).some((d) => d.eventId === retried.event.eventId && d.attempts === 1),
        'the failed attempt',
      );

      client.close();
      await running.stop();
      // While the service is down, an event is published: the committed offset keeps it.
      const whileDown = await bus.publish(TOPICS.reservationEvents.name, [
        {
          key: 'lst_dur3',
          value: reservationEvents.ReservationEvent.encode(
            reservationEvents.ReservationEvent.create({
              eventId: 'evt_while_down',
              workspaceId: WS,
              listingId: 'lst_dur3',
              type: reservationEvents.ReservationEventType.RESERVATION_EVENT_TYPE_CREATED,
              occurredAt: new Date(),
              reservation: resPb.Reservation.create({ id: 'res_down', propertyId: 'lst_dur3' }),
            }),
          ).finish(),
        },
      ]);
      expect(whileDown).toBeUndefined();
      receiver.respond = () => 200;
      running = await start();
      client = connectWebhook(running);
      await bus.whenIdle();
      clock.advance(30_000);
      await eventually(
        () =>
          receiver.received.some(
            (r) => r.json.id === retried.event.eventId && receiver.received.filter((x) => x.json.id === retried.event.eventId).length === 2,
          ),
        'the retry after restart',
      );
      await eventually(() => receiver.received.some((r) => r.json.id === 'evt_while_down'), 'the event published while down');
      expect(receiver.received.filter((r) => r.json.id === acknowledged.event.eventId)).toHaveLength(1);
      expect(receiver.received.filter((r) => r.json.id === 'evt_while_down')).toHaveLength(1);
    });
  });
});
