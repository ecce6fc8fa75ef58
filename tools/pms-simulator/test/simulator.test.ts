// The PMS simulator over HTTP: what each PMS cannot do, idempotency keys, the change feed, faults.
import { putChannelTraffic } from '@vrp/testkit';
import { SimulatorControl, startPmsSimulator, type PmsSimulator } from '../src';

describe('PMS simulator', () => {
  let sim: PmsSimulator;
  let control: SimulatorControl;
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${sim.url}${path}`, { ...init, headers: { 'content-type': 'application/json', ...(init.headers ?? {}) } });

  beforeAll(async () => {
    sim = await startPmsSimulator();
    control = new SimulatorControl(sim.url);
    await control.createAccount('PMS-A', 'a1');
    await control.putListing('PMS-A', 'a1', 'L1', { name: 'Flat' });
    await control.putReservation('PMS-A', 'a1', 'R1', { listing_id: 'L1', arrival: '2030-01-01', departure: '2030-01-03' });
  });
  afterAll(() => sim.close());

  it('serves the change feed after a cursor, in order', async () => {
    const all = (await (await api('/pms-a/v1/accounts/a1/changes?since=0')).json()) as { changes: { entity: string; id: string }[]; cursor: number };
    expect(all.changes.map((c) => `${c.entity}:${c.id}`)).toEqual(['listing:L1', 'reservation:R1']);
    expect(all.cursor).toBe(2);
    expect(((await (await api('/pms-a/v1/accounts/a1/changes?since=2')).json()) as { changes: unknown[] }).changes).toEqual([]);
  });

  it('refuses what PMS-A cannot do (cancel) with 422, and applies a repeated Idempotency-Key once', async () => {
    const cancel = await api('/pms-a/v1/accounts/a1/reservations/R1/cancel', { method: 'POST' });
    expect(cancel.status).toBe(422);
    const body = JSON.stringify({ listingId: 'L1', checkIn: '2030-02-01', checkOut: '2030-02-02' });
    const one = (await (await api('/pms-a/v1/accounts/a1/reservations', { method: 'POST', body, headers: { 'idempotency-key': 'k1' } })).json()) as {
      id: string;
    };
    const two = (await (await api('/pms-a/v1/accounts/a1/reservations', { method: 'POST', body, headers: { 'idempotency-key': 'k1' } })).json()) as {
      id: string;
    };
    expect(two.id).toBe(one.id);
    expect((await control.account('PMS-A', 'a1')).reservations).toHaveLength(2);
  });

  it('fails or slows down on demand, and logs every PMS API call', async () => {
    await control.clearRequests();
    await control.setFault('PMS-A', { mode: 'fail', status: 500 });
    expect((await api('/pms-a/v1/accounts/a1')).status).toBe(500);
    await control.setFault('PMS-A', { mode: 'slow', delayMs: 120 });
    const started = performance.now();
    expect((await api('/pms-a/v1/accounts/a1')).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(100);
    await control.clearFaults();
    expect((await control.requests({ provider: 'PMS-A' })).map((r) => r.path)).toEqual(['/pms-a/v1/accounts/a1', '/pms-a/v1/accounts/a1']);
    expect((await api('/pms-a/v1/accounts/nobody')).status).toBe(404);
  });

  it('holds what channels bring (guest messages with attachments, reviews, requests, inquiries) in its change feed', async () => {
    await putChannelTraffic(control, 'PMS-A', 'a1', {
      listing: 'L1',
      message: { reservation_id: 'R1', text: 'Hi!', attachment: { url: 'https://f.example/p.jpg', filename: 'p.jpg', mime_type: 'image/jpeg' } },
      review: { stars: 4, text: 'Cosy', reviewer_name: 'Uma' },
      request: { arrival: '2030-03-01', departure: '2030-03-04', guest: { first_name: 'Rae' } },
      inquiry: { arrival: '2030-04-01', departure: '2030-04-04' },
    });
    const feed = (await (await api('/pms-a/v1/accounts/a1/changes?since=2')).json()) as {
      changes: { entity: string; id: string; listing_id: string; data: Record<string, unknown> }[];
    };
    const mine = feed.changes.filter((c) => ['M1', 'V1', 'Q1', 'I1'].includes(c.id));
    expect(mine.map((c) => `${c.entity}:${c.id}:${c.listing_id}`)).toEqual(['message:M1:L1', 'review:V1:L1', 'request:Q1:L1', 'inquiry:I1:L1']);
    expect(mine[0]!.data).toMatchObject({
      thread_id: 'thread-R1',
      author: 'guest',
      text: 'Hi!',
      attachments: [{ url: 'https://f.example/p.jpg', filename: 'p.jpg', mime_type: 'image/jpeg' }],
    });
    // Messages never change: the same id again is refused.
    await expect(control.receiveMessage('PMS-A', 'a1', 'M1', { listing_id: 'L1', text: 'again' })).rejects.toThrow(/409/);
  });

  it("performs the host's writes on them (reply once, answer a pending request, pre-approve), each a new feed entry", async () => {
    const post = (path: string, body: unknown) => api(`/pms-a/v1/accounts/a1/${path}`, { method: 'POST', body: JSON.stringify(body) });
    expect((await post('reviews/V1/reply', { body: 'Thanks Uma' })).status).toBe(200);
    expect((await post('reviews/V1/reply', { body: 'Again' })).status).toBe(409);
    expect((await post('requests/Q1/answer', { decision: 'decline' })).status).toBe(200);
    expect((await post('requests/I1/answer', { decision: 'accept' })).status).toBe(404);
    expect((await post('inquiries/I1/pre-approve', { blockInstantBooking: true })).status).toBe(200);
    const sent = (await (await post('messages', { listingId: 'L1', conversationExternalId: 'thread-R1', body: 'Welcome' })).json()) as {
      id: string;
      thread_id: string;
      author: string;
    };
    expect(sent).toMatchObject({ thread_id: 'thread-R1', author: 'host' });
    const account = await control.account('PMS-A', 'a1');
    expect(account.reviews.find((r) => r.id === 'V1')!.response).toMatchObject({ text: 'Thanks Uma' });
    expect(account.requests.map((r) => [r.id, r.status, r.block_instant_booking])).toEqual([
      ['Q1', 'declined', false],
      ['I1', 'pre_approved', true],
    ]);
    expect(account.messages.map((m) => m.id)).toEqual(['M1', sent.id]);
  });

  it('refuses the next N writes of a kind on demand, with the status and reason given, then performs them again', async () => {
    await control.putReview('PMS-A', 'a1', 'V2', { listing_id: 'L1', stars: 5 });
    await control.refuseNext('PMS-A', { kind: 'review.reply', count: 2, status: 409, code: 'moderation', reason: 'Replies are paused for moderation.' });
    const reply = () => api('/pms-a/v1/accounts/a1/reviews/V2/reply', { method: 'POST', body: JSON.stringify({ body: 'Thanks' }) });
    for (let i = 0; i < 2; i++) {
      const refused = await reply();
      expect(refused.status).toBe(409);
      expect(await refused.json()).toEqual({ error: { code: 'moderation', message: 'Replies are paused for moderation.' } });
    }
    expect((await control.account('PMS-A', 'a1')).reviews.find((r) => r.id === 'V2')!.response).toBeNull();
    expect((await reply()).status).toBe(200);
    await expect(control.refuseNext('PMS-A', { kind: 'review.reply', count: 1, status: 503 })).rejects.toThrow(/400/);
  });
});
