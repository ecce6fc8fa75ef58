// Webhooks through the whole stack over HTTP: subscriptions, signed deliveries to a real local
// receiver, retries driven by a controllable clock (no sleeps), order per listing, no delivery
// and no backlog for inactive listings, replay and its 403, durability across a restart of the
// webhook service, and SSRF refusals of live keys. It lives here, not in e2e/, because it drives
// the webhook service's clock and restarts the service in place (internals); what it checks is
// still answered over HTTP.
import { webhookEventSchemas } from '@vrp/gateway';
import { createLogger } from '@vrp/platform/logging';
import { startWebhookService } from '@vrp/webhook';
import { eventually, type ErrorBody } from '../../../e2e/support/stack';
import { startWebhookReceiver, verify, type ReceivedWebhook, type WebhookReceiver } from '../../../e2e/support/webhook-receiver';
import { ManualClock, startStack, type Stack } from '../src';

interface Subscription {
  id: string;
  url: string;
  eventTypes: string[];
  enabled: boolean;
  mode: string;
  disabledReason: string | null;
  secret?: string;
}
interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  listingId: string | null;
  status: string;
  attempts: number;
  responseStatus: number | null;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  droppedReason: string | null;
  replayOf: string | null;
}

type Api = <T = unknown>(method: string, path: string, body?: unknown) => Promise<{ status: number; body: T }>;

function apiWith(baseUrl: string, key: string): Api {
  return async <T>(method: string, path: string, body?: unknown) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
  };
}

describe('webhooks, end to end over HTTP', () => {
  const clock = new ManualClock();
  let stack: Stack;
  let api: Api;
  let admin: Api;
  let receiver: WebhookReceiver;
  let listingIds: string[];

  const toggle = async (id: string, active: boolean) => {
    const res = await api('PATCH', `/v1/listings/${id}`, { active });
    expect(res.status).toBe(200);
  };
  const deliveries = async (subscriptionId: string, query = '') =>
    (await api<{ data: Delivery[] }>('GET', `/v1/webhooks/${subscriptionId}/deliveries?limit=200${query}`)).body.data;
  const arrivals = (pred: (r: ReceivedWebhook) => boolean) => receiver.received.filter(pred);
  const subscribe = async (eventTypes: string[], a: Api = api, url = receiver.url) => {
    const res = await a<{ data: Subscription }>('POST', '/v1/webhooks', { url, eventTypes });
    expect(res.status).toBe(201);
    return res.body.data;
  };

  beforeAll(async () => {
    stack = await startStack({ port: 0, ephemeralPorts: true, logLevel: process.env.TEST_LOG_LEVEL ?? 'silent', webhookClock: clock });
    api = apiWith(stack.baseUrl, stack.demo!.apiKey);
    admin = apiWith(stack.adminBaseUrl, stack.adminToken);
    listingIds = stack.demo!.listingIds;
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await stack.stop();
    await receiver.close();
  });
  beforeEach(() => {
    receiver.received.length = 0;
    receiver.respond = () => 200;
  });

  it('creates a subscription showing the secret once; reads, validation and tenant isolation', async () => {
    const created = await subscribe(['listing.deactivated']);
    expect(created.secret).toMatch(/^whsec_/);
    expect(created).toMatchObject({ url: receiver.url, eventTypes: ['listing.deactivated'], enabled: true, mode: 'test', disabledReason: null });
    const read = await api<{ data: Subscription }>('GET', `/v1/webhooks/${created.id}`);
    expect(read.status).toBe(200);
    expect(read.body.data).not.toHaveProperty('secret');
    expect(JSON.stringify((await api('GET', '/v1/webhooks')).body)).not.toContain('whsec_');

    const bad = await api<ErrorBody>('POST', '/v1/webhooks', { url: receiver.url, eventTypes: ['reservation.exploded'], colour: 'red' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');
    expect(bad.body.error.fields).toMatchObject({ colour: 'is not a known field' });
    const unknownType = await api<ErrorBody>('POST', '/v1/webhooks', { url: receiver.url, eventTypes: ['reservation.exploded'] });
    expect(unknownType.body.error.fields).toEqual({ 'eventTypes[0]': expect.stringContaining('unknown event type') });

    const ws = await admin<{ data: { id: string } }>('POST', '/admin/v1/workspaces', { name: 'Webhook Other Co', activeListingLimit: 2 });
    const key = await admin<{ data: { key: string } }>('POST', `/admin/v1/workspaces/${ws.body.data.id}/api-keys`, { mode: 'test' });
    const other = apiWith(stack.baseUrl, key.body.data.key);
    expect((await other<ErrorBody>('GET', `/v1/webhooks/${created.id}`)).status).toBe(404);
    expect((await other<ErrorBody>('DELETE', `/v1/webhooks/${created.id}`)).status).toBe(404);

    const catalog = await api<{ data: { type: string }[] }>('GET', '/v1/webhook-event-types');
    expect(catalog.body.data.map((e) => e.type)).toEqual(
      expect.arrayContaining([
        'reservation.created',
        'reservation.cancelled',
        'guest.updated',
        'message.received',
        'review.created',
        'listing.activated',
        'listing.deactivated',
      ]),
    );
    expect((await api('DELETE', `/v1/webhooks/${created.id}`)).status).toBe(200);
    expect((await api('GET', `/v1/webhooks/${created.id}`)).status).toBe(404);
  });

  it('delivers a listing toggle signed with HMAC-SHA256 over timestamp + body, verifiable in a few lines', async () => {
    const sub = await subscribe(['listing.activated', 'listing.deactivated']);
    await toggle(listingIds[0]!, false);
    await toggle(listingIds[0]!, true);
    await eventually(() => receiver.received.length === 2, 5000, 'two deliveries');
    const [off, on] = receiver.received as [ReceivedWebhook, ReceivedWebhook];
    expect(off.json).toMatchObject({
      type: 'listing.deactivated',
      listingId: listingIds[0],
      workspaceId: stack.demo!.workspaceId,
      data: { object: { id: listingIds[0], status: 'inactive', name: 'Sea View Apartment' } },
    });
    expect(on.json).toMatchObject({ type: 'listing.activated', data: { object: { id: listingIds[0], status: 'active', timezone: expect.any(String) } } });
    // The payload's resource is the one GET /v1/listings/{id} returns (without capabilities).
    const { body } = await api<{ data: Record<string, unknown> }>('GET', `/v1/listings/${listingIds[0]}`);
    const { capabilities: _capabilities, ...asServed } = body.data;
    expect(on.json.data.object).toEqual({ ...asServed, updatedAt: on.json.data.object.updatedAt });
    for (const r of [off, on]) {
      expect(verify(String(r.headers['vrp-signature']), sub.secret!, r.body)).toBe(true);
      expect(verify(String(r.headers['vrp-signature']), sub.secret!, r.body.replace('listing', 'lísting'))).toBe(false);
      expect(verify(String(r.headers['vrp-signature']), 'whsec_not_it', r.body)).toBe(false);
      expect(r.headers['vrp-event-id']).toBe(r.json.id);
      // Shaped as the OpenAPI document's `webhooks` entry of its type says.
      expect(webhookEventSchemas[r.json.type as keyof typeof webhookEventSchemas].safeParse(r.json).error?.issues ?? []).toEqual([]);
    }
    await api('DELETE', `/v1/webhooks/${sub.id}`);
  });

  it('retries after failures with exponential backoff and jitter, driven by the clock, and logs every attempt', async () => {
    const sub = await subscribe(['listing.deactivated']);
    let failures = 2;
    receiver.respond = () => (failures-- > 0 ? 500 : 204);
    await toggle(listingIds[1]!, false);
    await eventually(async () => (await deliveries(sub.id))[0]?.attempts === 1, 5000, 'the first attempt');
    let [d] = await deliveries(sub.id);
    expect(d).toMatchObject({ status: 'pending', responseStatus: 500 });
    const firstDelay = Date.parse(d!.nextAttemptAt!) - Date.parse(d!.lastAttemptAt!);
    expect(firstDelay).toBeGreaterThanOrEqual(24_000);
    expect(firstDelay).toBeLessThanOrEqual(36_000);
    clock.advance(firstDelay - 1000);
    await stack.bus.whenIdle();
    expect((await deliveries(sub.id))[0]!.attempts).toBe(1);
    clock.advance(1000);
    await eventually(async () => (await deliveries(sub.id))[0]?.attempts === 2, 5000, 'the second attempt');
    [d] = await deliveries(sub.id);
    const secondDelay = Date.parse(d!.nextAttemptAt!) - Date.parse(d!.lastAttemptAt!);
    expect(secondDelay).toBeGreaterThanOrEqual(96_000);
    expect(secondDelay).toBeLessThanOrEqual(144_000);
    clock.advance(secondDelay);
    await eventually(async () => (await deliveries(sub.id))[0]?.status === 'succeeded', 5000, 'the third attempt');
    expect((await deliveries(sub.id))[0]).toMatchObject({ attempts: 3, responseStatus: 204 });
    expect(new Set(receiver.received.map((r) => r.json.id)).size).toBe(1);
    expect(receiver.received.map((r) => r.headers['vrp-delivery-attempt'])).toEqual(['1', '2', '3']);
    await toggle(listingIds[1]!, true);
    await api('DELETE', `/v1/webhooks/${sub.id}`);
  });

  it('keeps order per listing: a listing’s later event waits until the earlier one is acknowledged', async () => {
    const sub = await subscribe(['listing.activated', 'listing.deactivated']);
    let failFirst = true;
    receiver.respond = (r) => (r.json.listingId === listingIds[0] && failFirst ? ((failFirst = false), 503) : 200);
    await toggle(listingIds[0]!, false);
    await toggle(listingIds[0]!, true);
    await toggle(listingIds[1]!, false);
    await eventually(() => arrivals((r) => r.json.listingId === listingIds[1]).length === 1, 5000, 'the other listing’s event');
    expect(arrivals((r) => r.json.listingId === listingIds[0]).map((r) => r.json.type)).toEqual(['listing.deactivated']);
    const waiting = (await deliveries(sub.id)).find((d) => d.listingId === listingIds[0] && d.eventType === 'listing.activated');
    expect(waiting).toMatchObject({ status: 'pending', attempts: 0 });
    clock.advance(36_000);
    await eventually(() => arrivals((r) => r.json.listingId === listingIds[0]).length === 3, 5000, 'the retry, then the later event');
    expect(arrivals((r) => r.json.listingId === listingIds[0]).map((r) => r.json.type)).toEqual([
      'listing.deactivated',
      'listing.deactivated',
      'listing.activated',
    ]);
    await toggle(listingIds[1]!, true);
    await api('DELETE', `/v1/webhooks/${sub.id}`);
  });

  it('replays an old delivery; once the listing is inactive the replay is 403 listing_inactive', async () => {
    const sub = await subscribe(['listing.activated']);
    await toggle(listingIds[1]!, false);
    await toggle(listingIds[1]!, true);
    await eventually(async () => (await deliveries(sub.id, '&status=succeeded')).length === 1, 5000, 'the original delivery');
    const [original] = await deliveries(sub.id);
    const replay = await api<{ data: Delivery }>('POST', `/v1/webhooks/${sub.id}/deliveries/${original!.id}/replay`);
    expect(replay.status).toBe(202);
    expect(replay.body.data).toMatchObject({ replayOf: original!.id, eventId: original!.eventId, status: 'pending' });
    await eventually(() => receiver.received.length === 2, 5000, 'the replay');
    expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body);

    expect((await api<ErrorBody>('POST', `/v1/webhooks/${sub.id}/deliveries/whd_unknown/replay`)).status).toBe(404);
    await toggle(listingIds[1]!, false);
    await eventually(async () => (await api<ErrorBody>('POST', `/v1/webhooks/${sub.id}/deliveries/${original!.id}/replay`)).status === 403, 5000, 'the 403');
    const refused = await api<ErrorBody>('POST', `/v1/webhooks/${sub.id}/deliveries/${original!.id}/replay`);
    expect(refused.body.error).toMatchObject({
      code: 'listing_inactive',
      listing_ids: [listingIds[1]],
      listings: [{ id: listingIds[1], name: 'Old Town Loft' }],
    });
    await toggle(listingIds[1]!, true);
    await api('DELETE', `/v1/webhooks/${sub.id}`);
  });

  it('drops a pending retry when its listing becomes inactive; events of an inactive listing are neither delivered nor queued; activation resumes with no backlog', async () => {
    const pms = stack.pmsSimulator.control;
    const ws = await admin<{ data: { id: string } }>('POST', '/admin/v1/workspaces', { name: 'Webhook PMS Co', activeListingLimit: 5 });
    const key = await admin<{ data: { key: string } }>('POST', `/admin/v1/workspaces/${ws.body.data.id}/api-keys`, { mode: 'test' });
    const own = apiWith(stack.baseUrl, key.body.data.key);
    const account = (await pms.createAccount('PMS-D', `hooks-${Date.now()}`)).accountId;
    await pms.putListing('PMS-D', account, 'river', { name: 'River House', listed: true });
    const connection = await admin<{ data: { id: string } }>('POST', `/admin/v1/workspaces/${ws.body.data.id}/connections`, {
      provider: 'PMS-D',
      accountId: account,
      mode: 'test',
    });
    expect(connection.status).toBe(201);
    let listingId = '';
    await eventually(
      async () => {
        const rows = (await own<{ data: { id: string }[] }>('GET', '/v1/listings?status=all')).body.data;
        listingId = rows[0]?.id ?? '';
        return rows.length === 1;
      },
      5000,
      'the import',
    );
    const sub = await subscribe(['reservation.created', 'reservation.updated'], own);
    const year = new Date().getUTCFullYear() + 1;
    const sync = async () => {
      expect((await admin('POST', `/admin/v1/workspaces/${ws.body.data.id}/connections/${connection.body.data.id}/sync`)).status).toBe(200);
      await stack.bus.whenIdle();
    };
    const stay = (id: string, month: string) =>
      pms.putReservation('PMS-D', account, id, {
        listing_id: 'river',
        arrival: `${year}-${month}-01`,
        departure: `${year}-${month}-04`,
        source: 'DIRECT',
        guest: { first_name: 'Ana' },
        adults: 2,
        total: 300,
        currency: 'EUR',
      });

    const ownDeliveries = async () => (await own<{ data: Delivery[] }>('GET', `/v1/webhooks/${sub.id}/deliveries?limit=200`)).body.data;

    // A retry pending when the listing becomes inactive is dropped.
    receiver.respond = () => 500;
    await stay('before', '03');
    await sync();
    await eventually(async () => (await ownDeliveries())[0]?.attempts === 1, 5000, 'the failed attempt');
    await toggle2(own, listingId, false);
    await eventually(async () => (await ownDeliveries())[0]?.status === 'dropped', 5000, 'the drop');
    expect((await ownDeliveries())[0]).toMatchObject({ droppedReason: 'listing_inactive', attempts: 1 });
    receiver.respond = () => 200;
    clock.advance(24 * 3600_000);

    // While inactive: the PMS keeps syncing, no event is queued or delivered.
    await stay('during', '05');
    await sync();
    expect(await ownDeliveries()).toHaveLength(1);

    // Activation: delivery resumes for events from that moment on, with no backlog.
    await toggle2(own, listingId, true);
    await stay('after', '07');
    await sync();
    await eventually(
      () =>
        arrivals((r) => r.json.workspaceId === ws.body.data.id && r.json.type === 'reservation.created' && r.json.data.object.checkIn === `${year}-07-01`)
          .length === 1,
      5000,
      'the event after activation',
    );
    const delivered = arrivals((r) => r.json.workspaceId === ws.body.data.id);
    expect(delivered.map((r) => r.json.data.object.checkIn)).toEqual([`${year}-03-01`, `${year}-07-01`]);
    expect((await ownDeliveries()).map((d) => d.status)).toEqual(['succeeded', 'dropped']);
  });

  it('loses no delivery across a restart of the webhook service and re-sends none that was acknowledged', async () => {
    // The restarted consumer resumes at its committed offset, so a message handled before but not
    // yet committed comes again: an earlier test's listing event, which found no subscriber then,
    // may find this one. Only the events of this test are counted.
    const since = Date.now();
    const sub = await subscribe(['listing.activated', 'listing.deactivated']);
    await toggle(listingIds[0]!, false);
    await eventually(() => receiver.received.length === 1, 5000, 'the acknowledged delivery');
    receiver.respond = () => 503;
    await toggle(listingIds[0]!, true);
    await eventually(async () => (await deliveries(sub.id)).some((d) => d.eventType === 'listing.activated' && d.attempts === 1), 5000, 'the failed attempt');

    const old = stack.services.webhook;
    await old.stop();
    // Published while the service is down: ingest resumes from its committed offset.
    await toggle(listingIds[1]!, false);
    const at = (p: number) => `127.0.0.1:${p}`;
    stack.services.webhook = await startWebhookService({
      store: stack.stores.webhook,
      bus: stack.bus,
      logger: createLogger('webhook', 'silent'),
      grpcPort: old.grpcPort,
      opsPort: 0,
      host: '127.0.0.1',
      addresses: {
        listing: at(stack.services.listing.grpcPort),
        reservation: at(stack.services.reservation.grpcPort),
        guest: at(stack.services.guest.grpcPort),
        pmsAdapter: at(stack.services['pms-adapter'].grpcPort),
        webhook: at(old.grpcPort),
      },
      clock,
      allowLoopbackInTest: true,
    });
    receiver.respond = () => 200;
    clock.advance(36_000);
    const demoArrivals = () => arrivals((r) => r.json.workspaceId === stack.demo!.workspaceId && Date.parse(r.json.createdAt) >= since);
    await eventually(() => demoArrivals().length === 4, 10_000, 'the retry and the event published while down');
    const types = demoArrivals().map((r) => `${r.json.type}:${r.json.listingId}`);
    expect(types.filter((t) => t === `listing.deactivated:${listingIds[0]}`)).toHaveLength(1);
    expect(types.filter((t) => t === `listing.activated:${listingIds[0]}`)).toHaveLength(2);
    expect(types.filter((t) => t === `listing.deactivated:${listingIds[1]}`)).toHaveLength(1);
    await toggle(listingIds[1]!, true);
    await api('DELETE', `/v1/webhooks/${sub.id}`);
  });

  it('refuses live-mode URLs that are not https or reach loopback, private or link-local addresses (no SSRF)', async () => {
    const key = await admin<{ data: { key: string } }>('POST', `/admin/v1/workspaces/${stack.demo!.workspaceId}/api-keys`, { mode: 'live' });
    const live = apiWith(stack.baseUrl, key.body.data.key);
    for (const [url, why] of [
      [receiver.url, 'must use https in live mode'],
      ['https://127.0.0.1:8443/hook', 'loopback'],
      ['https://localhost/hook', 'loopback'],
      ['https://[::1]/hook', 'loopback'],
      ['https://10.1.2.3/hook', 'private'],
      ['https://172.20.0.5/hook', 'private'],
      ['https://192.168.1.1/hook', 'private'],
      ['https://169.254.169.254/latest/meta-data', 'link-local'],
      ['https://[fe80::1]/hook', 'link-local'],
      ['https://[fd00::5]/hook', 'unique-local'],
      // Every special-purpose range of the IANA registries, not only the private ones.
      ['https://192.0.2.10/hook', 'reserved'],
      ['https://100.64.1.1/hook', 'carrier-grade-nat'],
      ['https://198.18.0.1/hook', 'reserved'],
      ['https://[2002:c000:204::1]/hook', '6to4'],
      ['https://[::ffff:0:a00:1]/hook', 'rfc6145'],
      ['https://[64:ff9b::a9fe:a9fe]/hook', 'rfc6052'],
      ['https://[fec0::1]/hook', 'deprecated-site-local'],
      ['https://[2001:db8::1]/hook', 'reserved'],
      ['https://[::ffff:127.0.0.1]/hook', 'loopback'],
    ] as const) {
      const res = await live<ErrorBody>('POST', '/v1/webhooks', { url });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.fields?.url).toContain(why);
    }
    // A test key may use a loopback receiver (this stack allows it for local development); a
    // live key cannot even see that test-mode subscription (the sandbox), let alone change it.
    const testSub = await subscribe(['listing.activated']);
    const patched = await live<ErrorBody>('PATCH', `/v1/webhooks/${testSub.id}`, { url: 'http://127.0.0.1:9/x' });
    expect(patched.status).toBe(404);
    expect(patched.body.error.code).toBe('not_found');
    const liveList = await live<{ data: { id: string }[] }>('GET', '/v1/webhooks');
    expect(liveList.body.data.map((s) => s.id)).not.toContain(testSub.id);
    await api('DELETE', `/v1/webhooks/${testSub.id}`);
  });
});

async function toggle2(a: Api, id: string, active: boolean): Promise<void> {
  const res = await a('PATCH', `/v1/listings/${id}`, { active });
  expect(res.status).toBe(200);
}
