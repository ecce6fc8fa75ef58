// The webhook event catalog beyond listings, end to end: every reservation, guest, message and
// review event is delivered, signed, to a real local receiver, with the resource as the API
// returns it, whether the change came through the API or from a PMS with a sync (spec 6.3).
// Reservations come from the simulated PMS-A through a real sync. Messages and reviews are not in
// the simulator's change feed (nor in the pms-adapter's normalizer), so they arrive as the
// conversations e2e makes them arrive: a change on pms.sync.v1 shaped as the adapter publishes it.
import { webhookPayloadCheck, type WebhookPayloadCheck } from './support/openapi';
import { startTestStack, eventually, type TestStack } from './support/stack';
import { pmsChange, type World } from './support/guest-world';
import { startWebhookReceiver, verify, type ReceivedWebhook, type WebhookReceiver } from './support/webhook-receiver';

interface Listing {
  id: string;
  name: string;
}

describe('webhook events of reservations, guests, messages and reviews', () => {
  let t: TestStack;
  let receiver: WebhookReceiver;
  let secret: string;
  let plain: string; // a listing of the demo workspace without a PMS
  let riverside: string; // the demo listing managed in the simulated PMS-A
  let world: World;
  let documentedShape: WebhookPayloadCheck;

  /** The first delivery of `type` whose object matches `pred`, once it has arrived. */
  async function arrival(type: string, pred: (object: Record<string, unknown>) => boolean = () => true): Promise<ReceivedWebhook> {
    let found: ReceivedWebhook | undefined;
    await eventually(() => (found = receiver.received.find((r) => r.json.type === type && pred(r.json.data.object))) !== undefined, 5000, `a ${type} delivery`);
    return found!;
  }

  /** Signed, and shaped as the OpenAPI document's `webhooks` says (its JSON Schema of the type). */
  function expectSigned(r: ReceivedWebhook): void {
    expect(verify(String(r.headers['vrp-signature']), secret, r.body)).toBe(true);
    expect(r.headers['vrp-event-id']).toBe(r.json.id);
    expect(r.json).toMatchObject({ apiVersion: 'v1', workspaceId: t.workspaceId });
    expect({ type: r.json.type, issues: documentedShape(r.json) }).toEqual({ type: r.json.type, issues: [] });
  }

  async function served(path: string): Promise<Record<string, unknown>> {
    const res = await t.api<{ data: Record<string, unknown> }>('GET', path);
    expect(res.status).toBe(200);
    return res.body.data;
  }

  beforeAll(async () => {
    t = await startTestStack({ demoPms: true });
    receiver = await startWebhookReceiver();
    documentedShape = await webhookPayloadCheck(t.baseUrl);
    const sub = await t.api<{ data: { secret: string } }>('POST', '/v1/webhooks', { url: receiver.url, eventTypes: ['*'] });
    expect(sub.status).toBe(201);
    secret = sub.body.data.secret;
    plain = t.stack.demo!.listingIds[0]!;
    let listings: Listing[] = [];
    await eventually(async () => (listings = (await t.api<{ data: Listing[] }>('GET', '/v1/listings?status=all&limit=200')).body.data).some((l) => l.name.startsWith('Riverside')), 5000, 'the demo PMS listing');
    riverside = listings.find((l) => l.name.startsWith('Riverside'))!.id;
    world = { workspaceId: t.dataWorkspaceId, key: t.apiKey, listings: { Riverside: riverside }, api: (method, path, body) => t.api(method, path, body) };
  });
  afterAll(async () => {
    await t.stop();
    await receiver.close();
  });

  it('reservation.created, .updated and .cancelled fire for API writes, carrying the reservation as GET returns it', async () => {
    const created = await t.api<{ data: { id: string } }>('POST', '/v1/reservations', { propertyId: plain, checkIn: '2033-03-01', checkOut: '2033-03-04', primaryGuest: { firstName: 'Wren', lastName: 'Hook', email: 'wren@example.com' } });
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

  it('message.sent fires for a message sent through the API; message.received for a guest message arriving from the PMS on pms.sync.v1', async () => {
    const reservation = await t.api<{ data: { id: string } }>('POST', '/v1/reservations', { propertyId: plain, checkIn: '2033-04-01', checkOut: '2033-04-03', primaryGuest: { firstName: 'Oda' } });
    let conversationId = '';
    await eventually(async () => {
      const page = await t.api<{ data: { id: string }[] }>('GET', `/v1/conversations?reservation_id=${reservation.body.data.id}`);
      conversationId = page.body.data[0]?.id ?? '';
      return conversationId !== '';
    }, 5000, 'the reservation’s conversation');
    const sent = await t.api<{ data: { id: string } }>('POST', `/v1/conversations/${conversationId}/messages`, { body: 'Welcome! The key is in the box.' });
    expect(sent.status).toBe(201);
    const onSent = await arrival('message.sent', (o) => o.id === sent.body.data.id);
    expect(onSent.json.listingId).toBe(plain);
    expect(onSent.json.data.object).toMatchObject({ conversationId, direction: 'outbound', body: 'Welcome! The key is in the box.' });
    const listed = await t.api<{ data: Record<string, unknown>[] }>('GET', `/v1/conversations/${conversationId}/messages`);
    expect(onSent.json.data.object).toEqual(listed.body.data.find((m) => m.id === sent.body.data.id));

    await pmsChange(t, world, 'PMS-A', 'message', { externalId: 'm-river-1', listingId: riverside, conversationExternalId: 'thr-river-1', body: 'Is parking included?', sentAt: '2033-01-01T10:00:00Z' });
    const onReceived = await arrival('message.received', (o) => o.body === 'Is parking included?');
    expect(onReceived.json.listingId).toBe(riverside);
    expect(onReceived.json.data.object).toMatchObject({ direction: 'inbound' });
    const thread = await t.api<{ data: Record<string, unknown>[] }>('GET', `/v1/conversations/${String(onReceived.json.data.object.conversationId)}/messages`);
    expect(onReceived.json.data.object).toEqual(thread.body.data.find((m) => m.id === onReceived.json.data.object.id));
    for (const r of [onSent, onReceived]) expectSigned(r);
  });

  it('review.created fires for a review arriving from the PMS; review.updated for a reply relayed to the PMS and for an edit made in the PMS', async () => {
    const review = { externalId: 'rev-river-1', listingId: riverside, guestName: 'Pia', rating: 5, body: 'Lovely studio', submittedAt: '2033-02-01T00:00:00Z', updatedAt: '2033-02-01T00:00:00Z' };
    await pmsChange(t, world, 'PMS-A', 'review', review);
    const onCreate = await arrival('review.created', (o) => o.body === 'Lovely studio');
    const id = String(onCreate.json.data.object.id);
    expect(onCreate.json.listingId).toBe(riverside);
    expect(onCreate.json.data.object).toEqual(await served(`/v1/reviews/${id}`));

    const reply = await t.api('POST', `/v1/reviews/${id}/reply`, { body: 'Thank you, Pia!' });
    expect(reply.status).toBe(200);
    const onUpdate = await arrival('review.updated', (o) => o.id === id);
    expect(onUpdate.json.data.object).toMatchObject({ reply: { body: 'Thank you, Pia!' } });
    expect(onUpdate.json.data.object).toEqual(await served(`/v1/reviews/${id}`));

    await pmsChange(t, world, 'PMS-A', 'review', { ...review, rating: 4, body: 'Lovely studio, noisy street', updatedAt: '2033-02-03T00:00:00Z' });
    const onEdit = await arrival('review.updated', (o) => o.id === id && o.rating === 4);
    expect(onEdit.json.data.object).toMatchObject({ body: 'Lovely studio, noisy street', reply: { body: 'Thank you, Pia!' } });
    expect(onEdit.json.data.object).toEqual(await served(`/v1/reviews/${id}`));
    for (const r of [onCreate, onUpdate, onEdit]) {
      expect(r.json.listingId).toBe(riverside);
      expectSigned(r);
    }
  });

  it('a reservation changed in the PMS fires reservation.updated after the next sync', async () => {
    const connections = await t.admin<{ data: { id: string; provider: string }[] }>('GET', `/admin/v1/workspaces/${t.workspaceId}/connections`);
    const connection = connections.body.data.find((c) => c.provider === 'PMS-A')!;
    const pms = t.stack.pmsSimulator.control;
    const year = new Date().getUTCFullYear() + 1;
    await pms.putReservation('PMS-A', 'demo', 'booking-1', { departure: `${year}-06-15`, adults: 1 });
    expect((await t.admin('POST', `/admin/v1/workspaces/${t.workspaceId}/connections/${connection.id}/sync`)).status).toBe(200);
    const onUpdate = await arrival('reservation.updated', (o) => o.propertyId === riverside && o.checkOut === `${year}-06-15`);
    expect(onUpdate.json.listingId).toBe(riverside);
    expect(onUpdate.json.data.object).toEqual(await served(`/v1/reservations/${String(onUpdate.json.data.object.id)}`));
    expectSigned(onUpdate);
  });
});
