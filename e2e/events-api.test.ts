// The Events API over HTTP against the 2-replica stack: an event listed and retrieved is the very
// object its webhook delivery carried (byte for byte), newest first with cursors and filters,
// events of a listing inactive now answer 403 and are left out, filtering by an inactive listing
// is 403, an event that happened while its listing was inactive is never listed, and test-mode
// events are invisible to live keys. (The retention boundary is proved with a manual clock in
// services/webhook/test/events-api.test.ts.)
import { startTestStack, eventually, type ErrorBody, type TestStack } from './support/stack';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from './support/webhook-receiver';
import { syncDemoPms } from './support/workspaces';

interface ApiEvent {
  id: string;
  type: string;
  listingId: string | null;
  createdAt: string;
  livemode: boolean;
  data: { object: { id: string } };
}
type EventPage = { data: ApiEvent[]; pagination: { limit: number; hasMore: boolean } };

describe('Events API', () => {
  let t: TestStack;
  let receiver: WebhookReceiver;
  let seaView: string;
  let loft: string;
  let cabin: string; // inactive in the demo data
  let month = 1;

  const book = async (propertyId: string): Promise<string> => {
    const m = String(month++).padStart(2, '0');
    const res = await t.api<{ data: { id: string } }>('POST', '/v1/reservations', {
      propertyId,
      checkIn: `2032-${m}-01`,
      checkOut: `2032-${m}-04`,
      primaryGuest: { firstName: 'Eve', lastName: 'Events' },
    });
    expect(res.status).toBe(201);
    return res.body.data.id;
  };
  /** The reservation.created delivery of a reservation, once it arrived. */
  const delivery = async (reservationId: string): Promise<ReceivedWebhook> => {
    let found: ReceivedWebhook | undefined;
    await eventually(
      () => (found = receiver.received.find((r) => r.json.type === 'reservation.created' && r.json.data.object.id === reservationId)) !== undefined,
      10_000,
      'the delivery',
    );
    return found!;
  };

  beforeAll(async () => {
    t = await startTestStack({ demoPms: true });
    [seaView, loft, cabin] = t.demoListingIds as [string, string, string];
    receiver = await startWebhookReceiver();
    expect((await t.api('POST', '/v1/webhooks', { url: receiver.url, eventTypes: ['reservation.created'] })).status).toBe(201);
  });
  afterAll(async () => {
    await t.stop();
    await receiver.close();
  });

  it('retrieves an event as the very bytes its webhook delivery carried', async () => {
    const delivered = await delivery(await book(seaView));
    const res = await t.api<{ data: ApiEvent }>('GET', `/v1/events/${delivered.json.id}`);
    expect(res.status).toBe(200);
    expect(res.text).toBe(`{"data":${delivered.body}}`);
    // Listed with the same bytes too.
    const list = await t.api<EventPage>('GET', `/v1/events?type=reservation.created&listing_id=${seaView}`);
    expect(list.text).toContain(delivered.body);
    expect((await t.api<ErrorBody>('GET', '/v1/events/evt_missing')).body.error.code).toBe('not_found');
  });

  it('lists newest first, pages with starting_after / ending_before, and filters by type, time and listing', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await delivery(await book(loft))).json.id);
    const newest = [...ids].reverse();
    const first = await t.api<EventPage>('GET', `/v1/events?listing_id=${loft}&type=reservation.created&limit=2`);
    expect(first.body.data.map((e) => e.id)).toEqual(newest.slice(0, 2));
    expect(first.body.pagination).toEqual({ limit: 2, hasMore: true });
    const next = await t.api<EventPage>('GET', `/v1/events?listing_id=${loft}&type=reservation.created&limit=2&starting_after=${newest[1]}`);
    expect(next.body.data.map((e) => e.id)).toEqual([newest[2]]);
    expect(next.body.pagination.hasMore).toBe(false);
    const back = await t.api<EventPage>('GET', `/v1/events?listing_id=${loft}&type=reservation.created&limit=2&ending_before=${newest[2]}`);
    expect(back.body.data.map((e) => e.id)).toEqual(newest.slice(0, 2));
    // Several types; an unknown one is named.
    const several = await t.api<EventPage>('GET', `/v1/events?listing_id=${loft}&type=reservation.created&type=reservation.cancelled`);
    expect(several.body.data.map((e) => e.id)).toEqual(newest);
    const unknown = await t.api<ErrorBody>('GET', '/v1/events?type=reservation.exploded');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.fields).toHaveProperty('type');
    // created[gte] / created[lt] bound the window.
    const times = first.body.data.map((e) => e.createdAt);
    const windowed = await t.api<EventPage>(
      'GET',
      `/v1/events?listing_id=${loft}&type=reservation.created&created[gte]=${encodeURIComponent(times[1]!)}&created[lt]=${encodeURIComponent(times[0]!)}`,
    );
    expect(windowed.body.data.map((e) => e.id)).toEqual([newest[1]]);
    expect((await t.api<EventPage>('GET', `/v1/events?listing_id=${seaView}&type=reservation.created`)).body.data.map((e) => e.listingId)).not.toContain(loft);
  });

  it('an event of a listing inactive now answers 403 listing_inactive and is left out; filtering by an inactive listing is 403', async () => {
    const filtered = await t.api<ErrorBody>('GET', `/v1/events?listing_id=${cabin}`);
    expect(filtered.status).toBe(403);
    expect(filtered.body.error).toMatchObject({ code: 'listing_inactive', listing_ids: [cabin] });
    expect((await t.api<ErrorBody>('GET', '/v1/events?listing_id=lst_nowhere')).status).toBe(404);

    const event = (await delivery(await book(seaView))).json.id;
    expect((await t.api('PATCH', `/v1/listings/${seaView}`, { active: false })).status).toBe(200);
    try {
      await eventually(async () => (await t.api('GET', `/v1/events/${event}`)).status === 403, 5000, 'the 403 on every replica');
      const res = await t.api<ErrorBody>('GET', `/v1/events/${event}`);
      expect(res.body.error).toMatchObject({ code: 'listing_inactive', listing_ids: [seaView] });
      const all = await t.api<EventPage>('GET', '/v1/events?limit=200');
      expect(all.body.data.filter((e) => e.listingId === seaView)).toEqual([]);
    } finally {
      expect((await t.api('PATCH', `/v1/listings/${seaView}`, { active: true })).status).toBe(200);
    }
    await eventually(async () => (await t.api('GET', `/v1/events/${event}`)).status === 200, 5000, 'the event again after activation');
  });

  it('an event that happened while its listing was inactive is never listed, not even after activation', async () => {
    let riverside = '';
    await eventually(
      async () =>
        (riverside =
          (await t.api<{ data: { id: string; name: string }[] }>('GET', '/v1/listings?status=all&limit=200')).body.data.find((l) =>
            l.name.startsWith('Riverside'),
          )?.id ?? '') !== '',
      10_000,
      'the demo PMS listing',
    );
    const connections = await t.admin<{ data: { id: string; provider: string }[] }>('GET', `/admin/v1/workspaces/${t.workspaceId}/connections`);
    const connection = connections.body.data.find((c) => c.provider === 'PMS-A')!.id;
    /** What the demo PMS-A connection's sync has applied so far (its sync health). */
    const applied = async () =>
      (
        await t.admin<{ data: { syncHealth: { changes: { applied: number; pending: number } } } }>(
          'GET',
          `/admin/v1/workspaces/${t.workspaceId}/connections/${connection}`,
        )
      ).body.data.syncHealth.changes;
    await syncDemoPms(t);
    await eventually(async () => (await applied()).pending === 0, 10_000, 'the demo PMS synced');
    const year = new Date().getUTCFullYear() + 1;
    const listed = async () =>
      (await t.api<EventPage>('GET', `/v1/events?listing_id=${riverside}&type=reservation.updated&limit=200`)).body.data.map(
        (e) => (e.data.object as unknown as { checkOut: string }).checkOut,
      );

    expect((await t.api('PATCH', `/v1/listings/${riverside}`, { active: false })).status).toBe(200);
    const before = (await applied()).applied;
    await t.pms.putReservation('PMS-A', 'demo', 'booking-1', { arrival: `${year}-07-10`, departure: `${year}-07-20` });
    await syncDemoPms(t);
    // Applied while the listing is inactive (its data keeps syncing).
    await eventually(async () => (await applied()).applied > before, 10_000, 'the PMS change applied');
    expect((await t.api('PATCH', `/v1/listings/${riverside}`, { active: true })).status).toBe(200);
    // A later change, after activation, is listed; the one made while inactive never is.
    await t.pms.putReservation('PMS-A', 'demo', 'booking-1', { departure: `${year}-07-21` });
    await syncDemoPms(t);
    await eventually(async () => (await listed()).includes(`${year}-07-21`), 10_000, 'the change after activation listed');
    expect(await listed()).not.toContain(`${year}-07-20`);
  });

  it('keeps test-mode and live events apart: a live key sees none of the test-mode ones', async () => {
    const received = await delivery(await book(loft));
    const event = JSON.parse(received.body) as ApiEvent;
    expect(event.livemode).toBe(false);
    const live = await t.admin<{ data: { key: string } }>('POST', `/admin/v1/workspaces/${t.workspaceId}/api-keys`, { mode: 'live' });
    expect(live.status).toBe(201);
    const key = live.body.data.key;
    expect((await t.api<ErrorBody>('GET', `/v1/events/${event.id}`, undefined, { key })).status).toBe(404);
    expect((await t.api<EventPage>('GET', '/v1/events?limit=200', undefined, { key })).body.data.map((e) => e.id)).not.toContain(event.id);
  });
});
