// Test mode is a sandbox, end to end over HTTP: a workspace's sk_test_ keys see and change only
// test data and its sk_live_ keys only live data, for listings (imported from PMS accounts
// connected per mode), reservations, guests, webhooks and their events, and the plan usage the
// admin API reports per mode.
import { startTestStack, eventually, type ApiResponse, type ErrorBody, type TestStack } from './support/stack';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver';

type Api = <T = unknown>(method: string, path: string, body?: unknown) => Promise<ApiResponse<T>>;

describe('test mode is a sandbox', () => {
  let t: TestStack;
  let receiver: WebhookReceiver;
  let workspaceId: string;
  let test: Api;
  let live: Api;

  beforeAll(async () => {
    t = await startTestStack();
    receiver = await startWebhookReceiver();
    const ws = await t.admin<{ data: { id: string } }>('POST', '/admin/v1/workspaces', { name: `Sandbox ${Math.random()}`, activeListingLimit: 5 });
    workspaceId = ws.body.data.id;
    const keyOf = async (mode: string) =>
      (await t.admin<{ data: { key: string } }>('POST', `/admin/v1/workspaces/${workspaceId}/api-keys`, { mode })).body.data.key;
    const [testKey, liveKey] = [await keyOf('test'), await keyOf('live')];
    test = (method, path, body) => t.api(method, path, body, { key: testKey });
    live = (method, path, body) => t.api(method, path, body, { key: liveKey });
    expect(testKey.startsWith('sk_test_') && liveKey.startsWith('sk_live_')).toBe(true);
  });
  afterAll(async () => {
    await receiver.close();
    await t.stop();
  });

  const listingNames = async (api: Api) => (await api<{ data: { name: string }[] }>('GET', '/v1/listings?status=all')).body.data.map((l) => l.name).sort();

  it('keeps every kind of data of one mode out of the other, and the admin API connects and counts per mode', async () => {
    const pms = t.pms;
    await pms.createAccount('PMS-B', 'sandbox-test');
    await pms.putListing('PMS-B', 'sandbox-test', 'tl', { name: 'Test Lodge', listed: true });
    await pms.createAccount('PMS-B', 'sandbox-live');
    await pms.putListing('PMS-B', 'sandbox-live', 'lv', { name: 'Live Villa', listed: true });

    // PMS accounts are connected per mode; each mode imports into its own data.
    const testConnection = await t.admin<{ data: { id: string; mode: string; workspaceId: string } }>(
      'POST',
      `/admin/v1/workspaces/${workspaceId}/connections`,
      { provider: 'PMS-B', accountId: 'sandbox-test', mode: 'test' },
    );
    const liveConnection = await t.admin<{ data: { id: string; mode: string; workspaceId: string } }>(
      'POST',
      `/admin/v1/workspaces/${workspaceId}/connections`,
      { provider: 'PMS-B', accountId: 'sandbox-live', mode: 'live' },
    );
    expect(testConnection.body.data).toMatchObject({ mode: 'test', workspaceId });
    expect(liveConnection.body.data).toMatchObject({ mode: 'live', workspaceId });
    await eventually(async () => (await listingNames(test)).length === 1 && (await listingNames(live)).length === 1, 5000, 'both imports');
    expect(await listingNames(test)).toEqual(['Test Lodge']);
    expect(await listingNames(live)).toEqual(['Live Villa']);
    const connections = await t.admin<{ data: { id: string; mode: string }[] }>('GET', `/admin/v1/workspaces/${workspaceId}/connections`);
    expect(connections.body.data.map((c) => `${c.mode}:${c.id}`).sort()).toEqual(
      [`live:${liveConnection.body.data.id}`, `test:${testConnection.body.data.id}`].sort(),
    );

    const [testListing] = (await test<{ data: { id: string }[] }>('GET', '/v1/listings')).body.data;
    const [liveListing] = (await live<{ data: { id: string }[] }>('GET', '/v1/listings')).body.data;
    // A listing of the other mode is not found (404), never shown or changed.
    for (const [api, foreign] of [
      [live, testListing!.id],
      [test, liveListing!.id],
    ] as const) {
      expect((await api<ErrorBody>('GET', `/v1/listings/${foreign}`)).status).toBe(404);
      expect((await api<ErrorBody>('PATCH', `/v1/listings/${foreign}`, { active: false })).status).toBe(404);
    }

    // Webhooks: a test-mode subscription receives test events, marked livemode false and named
    // by the workspace itself; the live subscription never sees them.
    const testSub = await test<{ data: { id: string } }>('POST', '/v1/webhooks', { url: receiver.url, eventTypes: ['reservation.created'] });
    const liveSub = await live<{ data: { id: string } }>('POST', '/v1/webhooks', { url: 'https://8.8.8.8/hooks', eventTypes: ['*'] });
    expect(testSub.status).toBe(201);
    expect(liveSub.status).toBe(201);
    expect((await test('GET', `/v1/webhooks/${liveSub.body.data.id}`)).status).toBe(404);
    expect((await live('DELETE', `/v1/webhooks/${testSub.body.data.id}`)).status).toBe(404);

    // Reservations and guests made with the test key stay in test mode.
    const made = await test<{ data: { id: string } }>('POST', '/v1/reservations', {
      propertyId: testListing!.id,
      checkIn: '2035-05-01',
      checkOut: '2035-05-04',
      primaryGuest: { firstName: 'Sandy', email: 'sandy@example.com' },
    });
    expect(made.status).toBe(201);
    const reservationId = made.body.data.id;
    expect((await live<ErrorBody>('GET', `/v1/reservations/${reservationId}`)).status).toBe(404);
    expect((await live<ErrorBody>('PATCH', `/v1/reservations/${reservationId}`, { status: 'CANCELLED' })).status).toBe(404);
    expect((await live<ErrorBody>('POST', `/v1/reservations/${reservationId}/cancel`, {})).status).toBe(404);
    expect(
      (
        await live<ErrorBody>('POST', '/v1/reservations', {
          propertyId: testListing!.id,
          checkIn: '2035-06-01',
          checkOut: '2035-06-02',
          primaryGuest: { firstName: 'X' },
        })
      ).status,
    ).toBe(404);
    expect((await live<{ data: unknown[] }>('GET', '/v1/reservations')).body.data).toEqual([]);
    expect((await test<{ data: { status: string } }>('GET', `/v1/reservations/${reservationId}`)).body.data.status).toBe('CONFIRMED');

    await eventually(
      async () => (await test<{ data: { firstName: string }[] }>('GET', '/v1/guests')).body.data.some((g) => g.firstName === 'Sandy'),
      5000,
      'the test guest',
    );
    expect((await live<{ data: unknown[] }>('GET', '/v1/guests')).body.data).toEqual([]);

    await eventually(
      () => receiver.received.some((r) => r.json.type === 'reservation.created' && r.json.data.object.id === reservationId),
      5000,
      'the test-mode event',
    );
    const event = receiver.received.find((r) => r.json.data.object.id === reservationId)!;
    expect(event.json).toMatchObject({ workspaceId, livemode: false });
    const liveDeliveries = await live<{ data: unknown[] }>('GET', `/v1/webhooks/${liveSub.body.data.id}/deliveries`);
    expect(liveDeliveries.status).toBe(200);
    expect(liveDeliveries.body.data).toEqual([]);

    // The plan limit holds per mode; the admin API reports each mode's usage.
    const ws = await t.admin<{ data: { usage: { activeListings: number }; testUsage: { activeListings: number } } }>(
      'GET',
      `/admin/v1/workspaces/${workspaceId}`,
    );
    expect(ws.body.data.usage.activeListings).toBe(1);
    expect(ws.body.data.testUsage.activeListings).toBe(1);

    // Disconnecting the test account deactivates the test listing only.
    expect((await t.admin('DELETE', `/admin/v1/workspaces/${workspaceId}/connections/${testConnection.body.data.id}`)).status).toBe(200);
    await eventually(async () => (await test<{ data: unknown[] }>('GET', '/v1/listings')).body.data.length === 0, 5000, 'the test listing deactivated');
    expect((await live<{ data: { id: string }[] }>('GET', '/v1/listings')).body.data.map((l) => l.id)).toEqual([liveListing!.id]);
  });
});
