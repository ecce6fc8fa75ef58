// The webhook event catalog beyond listings, end to end: every reservation, guest, message,
// review and request event is delivered, signed, to a real local receiver, with the resource as
// the API returns it, whether the change came through the API or from a PMS with a sync (spec
// 6.3). PMS-side changes (a reservation changed, a guest's message, a review, a booking request)
// are made in the simulated PMS-A through its control API and arrive with a real sync.
import Ajv from 'ajv';
import { startTestStack, eventually, type TestStack } from './support/stack';
import { startWebhookReceiver, verify, type ReceivedWebhook, type WebhookReceiver } from './support/webhook-receiver';
import { syncDemoPms } from './support/workspaces';

interface Listing {
  id: string;
  name: string;
}

describe('webhook events of reservations, guests, messages, reviews and requests', () => {
  let t: TestStack;
  let receiver: WebhookReceiver;
  let secret: string;
  let plain: string; // a listing of the demo workspace without a PMS
  let riverside: string; // the demo listing managed in the simulated PMS-A (account `demo`, PMS listing `riverside`)

  /** The first delivery of `type` whose object matches `pred`, once it has arrived. */
  async function arrival(type: string, pred: (object: Record<string, unknown>) => boolean = () => true): Promise<ReceivedWebhook> {
    let found: ReceivedWebhook | undefined;
    await eventually(() => (found = receiver.received.find((r) => r.json.type === type && pred(r.json.data.object))) !== undefined, 5000, `a ${type} delivery`);
    return found!;
  }

  /** The served OpenAPI document (GET /v1/openapi.json), to validate deliveries with. */
  let openapi: { webhooks: Record<string, { post: { requestBody: { content: Record<string, { schema: { $ref: string } }> } } }> };
  const ajv = new Ajv({ allErrors: true, unknownFormats: 'ignore' });

  /** Signed, and shaped as the served OpenAPI document's `webhooks` entry of its type says. */
  function expectSigned(r: ReceivedWebhook): void {
    expect(verify(String(r.headers['vrp-signature']), secret, r.body)).toBe(true);
    expect(r.headers['vrp-event-id']).toBe(r.json.id);
    expect(r.json).toMatchObject({ apiVersion: 'v1', workspaceId: t.workspaceId });
    const ref = openapi.webhooks[r.json.type]?.post.requestBody.content['application/json']?.schema.$ref;
    expect([r.json.type, typeof ref]).toEqual([r.json.type, 'string']);
    const validate = ajv.getSchema(`openapi${ref}`) ?? ajv.compile({ $ref: `openapi${ref}` });
    validate(r.json);
    expect({ type: r.json.type, errors: validate.errors ?? [] }).toEqual({ type: r.json.type, errors: [] });
    // The validator is the document's: a delivery of another shape fails it.
    expect(validate({ ...r.json, data: {} })).toBe(false);
  }

  async function served(path: string): Promise<Record<string, unknown>> {
    const res = await t.api<{ data: Record<string, unknown> }>('GET', path);
    expect(res.status).toBe(200);
    return res.body.data;
  }

  beforeAll(async () => {
    t = await startTestStack({ demoPms: true });
    openapi = (await t.api<typeof openapi>('GET', '/v1/openapi.json')).body;
    // The document as one schema: its components are reachable as openapi#/components/schemas/<Name>.
    // Its paths are left out: their examples are data, whose `id` fields ajv would read as schema ids.
    ajv.addSchema({ ...openapi, paths: {}, $id: 'openapi' } as object);
    receiver = await startWebhookReceiver();
    const sub = await t.api<{ data: { secret: string } }>('POST', '/v1/webhooks', { url: receiver.url, eventTypes: ['*'] });
    expect(sub.status).toBe(201);
    secret = sub.body.data.secret;
    plain = t.demoListingIds[0]!;
    let listings: Listing[] = [];
    await eventually(
      async () =>
        (listings = (await t.api<{ data: Listing[] }>('GET', '/v1/listings?status=all&limit=200')).body.data).some((l) => l.name.startsWith('Riverside')),
      5000,
      'the demo PMS listing',
    );
    riverside = listings.find((l) => l.name.startsWith('Riverside'))!.id;
  });
  afterAll(async () => {
    await t.stop();
    await receiver.close();
  });

  it('reservation.created, .updated and .cancelled fire for API writes, carrying the reservation as GET returns it', async () => {
    const created = await t.api<{ data: { id: string } }>('POST', '/v1/reservations', {
      propertyId: plain,
      checkIn: '2033-03-01',
      checkOut: '2033-03-04',
      primaryGuest: { firstName: 'Wren', lastName: 'Hook', email: 'wren@example.com' },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    const isIt = (o: Record<string, unknown>) => o.id === id;

    const onCreate = await arrival('reservation.created', isIt);
    expect(onCreate.json.listingId).toBe(plain);
    expect(onCreate.json.data.object).toEqual(await served(`/v1/reservations/${id}`));

    expect((await t.api('PATCH', `/v1/reservations/${id}`, { notes: { host: 'Late arrival' } })).status).toBe(200);
    const onUpdate = await arrival('reservation.updated', isIt);
    expect(onUpdate.json.data.object).toMatchObject({ notes: { host: 'Late arrival' } });
    expect(onUpdate.json.data.object).toEqual(await served(`/v1/reservations/${id}`));

    expect((await t.api('POST', `/v1/reservations/${id}/cancel`)).status).toBe(200);
    const onCancel = await arrival('reservation.cancelled', isIt);
    expect(onCancel.json.data.object).toEqual(await served(`/v1/reservations/${id}`));
    expect(onCancel.json.data.object.status).toBe('CANCELLED');
    for (const r of [onCreate, onUpdate, onCancel]) {
      expect(r.json.listingId).toBe(plain);
      expectSigned(r);
    }
  });

  it('guest.created and guest.updated fire for API writes, without a listing', async () => {
    const created = await t.api<{ data: { id: string } }>('POST', '/v1/guests', { firstName: 'Ines', lastName: 'Quill', email: 'ines@example.com' });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    const onCreate = await arrival('guest.created', (o) => o.id === id);
    expect(onCreate.json.listingId).toBeNull();
    expect(onCreate.json.data.object).toEqual(await served(`/v1/guests/${id}`));

    expect((await t.api('PATCH', `/v1/guests/${id}`, { lastName: 'Quill-Hart', language: 'pt' })).status).toBe(200);
    const onUpdate = await arrival('guest.updated', (o) => o.id === id && o.lastName === 'Quill-Hart');
    expect(onUpdate.json.listingId).toBeNull();
    expect(onUpdate.json.data.object).toEqual(await served(`/v1/guests/${id}`));
    for (const r of [onCreate, onUpdate]) expectSigned(r);
  });

  it('message.sent fires for a message sent through the API; message.received for a guest message arriving in the PMS, after the next sync', async () => {
    const reservation = await t.api<{ data: { id: string } }>('POST', '/v1/reservations', {
      propertyId: plain,
      checkIn: '2033-04-01',
      checkOut: '2033-04-03',
      primaryGuest: { firstName: 'Oda' },
    });
    let conversationId = '';
    await eventually(
      async () => {
        const page = await t.api<{ data: { id: string }[] }>('GET', `/v1/conversations?reservation_id=${reservation.body.data.id}`);
        conversationId = page.body.data[0]?.id ?? '';
        return conversationId !== '';
      },
      5000,
      'the reservation’s conversation',
    );
    const sent = await t.api<{ data: { id: string } }>('POST', `/v1/conversations/${conversationId}/messages`, { body: 'Welcome! The key is in the box.' });
    expect(sent.status).toBe(201);
    const onSent = await arrival('message.sent', (o) => o.id === sent.body.data.id);
    expect(onSent.json.listingId).toBe(plain);
    expect(onSent.json.data.object).toMatchObject({ conversationId, direction: 'outbound', body: 'Welcome! The key is in the box.' });
    const listed = await t.api<{ data: Record<string, unknown>[] }>('GET', `/v1/conversations/${conversationId}/messages`);
    expect(onSent.json.data.object).toEqual(listed.body.data.find((m) => m.id === sent.body.data.id));

    await t.pms.receiveMessage('PMS-A', 'demo', 'm-river-1', { listing_id: 'riverside', thread_id: 'thr-river-1', text: 'Is parking included?' });
    await syncDemoPms(t);
    const onReceived = await arrival('message.received', (o) => o.body === 'Is parking included?');
    expect(onReceived.json.listingId).toBe(riverside);
    expect(onReceived.json.data.object).toMatchObject({ direction: 'inbound' });
    const thread = await t.api<{ data: Record<string, unknown>[] }>('GET', `/v1/conversations/${String(onReceived.json.data.object.conversationId)}/messages`);
    expect(onReceived.json.data.object).toEqual(thread.body.data.find((m) => m.id === onReceived.json.data.object.id));
    for (const r of [onSent, onReceived]) expectSigned(r);
  });

  it('review.created fires for a review arriving from the PMS; review.updated for a reply relayed to the PMS and for an edit made in the PMS', async () => {
    const pms = t.pms;
    await pms.putReview('PMS-A', 'demo', 'rev-river-1', { listing_id: 'riverside', reviewer_name: 'Pia', stars: 5, text: 'Lovely studio' });
    await syncDemoPms(t);
    const onCreate = await arrival('review.created', (o) => o.body === 'Lovely studio');
    const id = String(onCreate.json.data.object.id);
    expect(onCreate.json.listingId).toBe(riverside);
    expect(onCreate.json.data.object).toEqual(await served(`/v1/reviews/${id}`));

    const reply = await t.api('POST', `/v1/reviews/${id}/reply`, { body: 'Thank you, Pia!' });
    expect(reply.status).toBe(200);
    const onUpdate = await arrival('review.updated', (o) => o.id === id);
    expect(onUpdate.json.data.object).toMatchObject({ reply: { body: 'Thank you, Pia!' } });
    expect(onUpdate.json.data.object).toEqual(await served(`/v1/reviews/${id}`));

    await pms.putReview('PMS-A', 'demo', 'rev-river-1', { stars: 4, text: 'Lovely studio, noisy street' });
    await syncDemoPms(t);
    const onEdit = await arrival('review.updated', (o) => o.id === id && o.rating === 4);
    expect(onEdit.json.data.object).toMatchObject({ body: 'Lovely studio, noisy street', reply: { body: 'Thank you, Pia!' } });
    expect(onEdit.json.data.object).toEqual(await served(`/v1/reviews/${id}`));
    for (const r of [onCreate, onUpdate, onEdit]) {
      expect(r.json.listingId).toBe(riverside);
      expectSigned(r);
    }
  });

  it('request.created fires for a booking request arriving in the PMS; request.updated when it is answered through the API, once (the PMS reporting the answer back adds none)', async () => {
    const pms = t.pms;
    await pms.putRequest('PMS-A', 'demo', 'req-river-1', {
      kind: 'request',
      listing_id: 'riverside',
      arrival: '2033-05-01',
      departure: '2033-05-04',
      guest_count: 2,
      guest: { first_name: 'Noor' },
      message: 'Travelling with a baby',
    });
    await syncDemoPms(t);
    const onCreate = await arrival('request.created', (o) => o.checkIn === '2033-05-01');
    const id = String(onCreate.json.data.object.id);
    expect(onCreate.json.listingId).toBe(riverside);
    expect(onCreate.json.data.object).toMatchObject({
      kind: 'request',
      status: 'pending',
      message: 'Travelling with a baby',
      pms: { provider: 'PMS-A', externalId: 'req-river-1' },
    });
    expect(onCreate.json.data.object).toEqual(await served(`/v1/requests/${id}`));

    expect((await t.api('POST', `/v1/requests/${id}/accept`)).status).toBe(200);
    const onUpdate = await arrival('request.updated', (o) => o.id === id);
    expect(onUpdate.json.data.object).toMatchObject({ status: 'accepted' });
    expect(onUpdate.json.data.object).toEqual(await served(`/v1/requests/${id}`));
    // The PMS holds the answer and reports it back with the next sync: already applied, no event.
    expect((await pms.account('PMS-A', 'demo')).requests.find((r) => r.id === 'req-river-1')!.status).toBe('accepted');
    await syncDemoPms(t);
    await pms.putRequest('PMS-A', 'demo', 'req-river-2', {
      kind: 'inquiry',
      listing_id: 'riverside',
      arrival: '2033-06-01',
      departure: '2033-06-03',
      guest: { first_name: 'Ole' },
    });
    await syncDemoPms(t);
    await arrival('request.created', (o) => o.checkIn === '2033-06-01');
    expect(receiver.received.filter((r) => r.json.type === 'request.updated' && r.json.data.object.id === id)).toHaveLength(1);
    for (const r of [onCreate, onUpdate]) expectSigned(r);
  });

  it('a reservation changed in the PMS fires reservation.updated after the next sync', async () => {
    const connections = await t.admin<{ data: { id: string; provider: string }[] }>('GET', `/admin/v1/workspaces/${t.workspaceId}/connections`);
    const connection = connections.body.data.find((c) => c.provider === 'PMS-A')!;
    const pms = t.pms;
    const year = new Date().getUTCFullYear() + 1;
    await pms.putReservation('PMS-A', 'demo', 'booking-1', { departure: `${year}-06-15`, adults: 1 });
    expect((await t.admin('POST', `/admin/v1/workspaces/${t.workspaceId}/connections/${connection.id}/sync`)).status).toBe(200);
    const onUpdate = await arrival('reservation.updated', (o) => o.propertyId === riverside && o.checkOut === `${year}-06-15`);
    expect(onUpdate.json.listingId).toBe(riverside);
    expect(onUpdate.json.data.object).toEqual(await served(`/v1/reservations/${String(onUpdate.json.data.object.id)}`));
    expectSigned(onUpdate);
  });
});
