// Issue 4 (conversations, messages, reviews, requests) end to end over HTTP: a conversation per
// reservation, messages listed and sent (idempotently), PMS-side messages, reviews, requests
// and inquiries arriving by sync; every refused case of spec 7.2 on this side (proving nothing
// reached the pms-adapter); every validation failure; and the inactive-listing paths of 7.1.
import { eventually, startTestStack, type ErrorBody, type TestStack } from './support/stack';
import { newWorld, pmsChange, relayedWrites, reserve, type World } from './support/guest-world';

interface Page<T> {
  data: T[];
  pagination: { total: number; limit: number; offset: number; hasMore: boolean };
}
interface Conversation {
  id: string;
  propertyId: string;
  reservationId: string | null;
  guestId: string | null;
  messageCount: number;
}
interface Message {
  id: string;
  direction: string;
  body: string;
  attachments: { url: string }[];
}
interface Review {
  id: string;
  propertyId: string;
  rating: number;
  reply: { body: string } | null;
  pms: { provider: string } | null;
}
interface Request {
  id: string;
  propertyId: string;
  kind: string;
  status: string;
  pms: { provider: string } | null;
}

describe('conversations, reviews and requests end to end', () => {
  let t: TestStack;
  let w: World;
  const attachment = { url: 'https://example.com/guide.pdf', name: 'guide.pdf', contentType: 'application/pdf' };

  beforeAll(async () => {
    t = await startTestStack();
    w = await newWorld(t, [{ name: 'Plain' }, { name: 'Closed' }, { name: 'Fjord', provider: 'PMS-F' }, { name: 'Glen', provider: 'PMS-G' }]);
  });
  afterAll(async () => {
    await t.stop();
  });

  /** The conversation of a PMS thread, opened by the guest's first message arriving by sync. */
  async function pmsThread(listing: string, provider: string): Promise<Conversation> {
    const thread = `thr-${listing}-${Math.random()}`;
    await pmsChange(t, w, provider, 'message', { externalId: `m-${thread}`, listingId: w.listings[listing], conversationExternalId: thread, body: 'Hello?', sentAt: '2031-01-01T10:00:00Z' });
    const list = await w.api<Page<Conversation>>('GET', `/v1/conversations?property_id=${w.listings[listing]}`);
    return list.body.data[0]!;
  }

  describe('conversations and messages', () => {
    let conversation: Conversation;
    beforeAll(async () => {
      const reservationId = await reserve(t, w, w.listings.Plain!, { firstName: 'Ada', email: 'ada@example.com' });
      const res = await w.api<Page<Conversation>>('GET', `/v1/conversations?reservation_id=${reservationId}`);
      conversation = res.body.data[0]!;
    });

    it('opens one conversation per reservation, tied to its listing and guest', async () => {
      expect(conversation).toMatchObject({ propertyId: w.listings.Plain, reservationId: expect.stringMatching(/^res_/), guestId: expect.stringMatching(/^gst_/), messageCount: 0 });
      const got = await w.api<{ data: Conversation }>('GET', `/v1/conversations/${conversation.id}`);
      expect(got.body.data).toEqual(conversation);
      const byGuest = await w.api<Page<Conversation>>('GET', `/v1/conversations?guest_id=${conversation.guestId}`);
      expect(byGuest.body.data.map((c) => c.id)).toEqual([conversation.id]);
    });

    it('sends messages (201), lists them oldest first with pagination edges, and replays an idempotent send', async () => {
      const first = await w.api<{ data: Message }>('POST', `/v1/conversations/${conversation.id}/messages`, { body: 'Welcome!', attachments: [attachment] }, { 'Idempotency-Key': 'send-welcome-1' });
      expect(first.status).toBe(201);
      expect(first.body.data).toMatchObject({ direction: 'outbound', body: 'Welcome!', attachments: [{ url: attachment.url, name: 'guide.pdf', contentType: 'application/pdf' }], pms: null });
      const replay = await w.api<{ data: Message }>('POST', `/v1/conversations/${conversation.id}/messages`, { body: 'Welcome!', attachments: [attachment] }, { 'Idempotency-Key': 'send-welcome-1' });
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body.data.id).toBe(first.body.data.id);
      await w.api('POST', `/v1/conversations/${conversation.id}/messages`, { body: 'Check-in is at 3pm.' });
      await w.api('POST', `/v1/conversations/${conversation.id}/messages`, { attachments: [attachment] });

      const all = await w.api<Page<Message>>('GET', `/v1/conversations/${conversation.id}/messages`);
      expect(all.body.data.map((m) => m.body)).toEqual(['Welcome!', 'Check-in is at 3pm.', '']);
      expect(all.body.pagination).toEqual({ total: 3, limit: 50, offset: 0, hasMore: false });
      const middle = await w.api<Page<Message>>('GET', `/v1/conversations/${conversation.id}/messages?limit=1&offset=1`);
      expect(middle.body).toMatchObject({ data: [{ body: 'Check-in is at 3pm.' }], pagination: { total: 3, limit: 1, offset: 1, hasMore: true } });
      const past = await w.api<Page<Message>>('GET', `/v1/conversations/${conversation.id}/messages?offset=3`);
      expect(past.body).toEqual({ data: [], pagination: { total: 3, limit: 50, offset: 3, hasMore: false } });
      expect((await w.api<{ data: Conversation }>('GET', `/v1/conversations/${conversation.id}`)).body.data.messageCount).toBe(3);
    });

    it.each([
      ['no body and no attachments', {}, { body: 'must send a non-empty body or at least one attachment' }],
      ['a blank body', { body: '   ' }, { body: 'must send a non-empty body or at least one attachment' }],
      ['a body over 10000 characters', { body: 'x'.repeat(10_001) }, { body: 'must be at most 10000 characters' }],
      ['a non-http attachment URL', { body: 'hi', attachments: [{ url: 'ftp://example.com/x' }] }, { 'attachments[0].url': 'must be an http(s) URL' }],
      ['an attachment without URL', { body: 'hi', attachments: [{ name: 'x' }] }, { 'attachments[0].url': 'is required' }],
      ['11 attachments', { body: 'hi', attachments: Array.from({ length: 11 }, () => attachment) }, { attachments: 'must have at most 10 items' }],
      ['attachments not an array', { body: 'hi', attachments: 'file' }, { attachments: 'must be an array' }],
      ['an unknown field', { body: 'hi', cc: 'boss' }, { cc: 'is not a known field' }],
    ])('refuses a send with %s: 400 naming the field', async (_label, body, fields) => {
      const res = await w.api<ErrorBody>('POST', `/v1/conversations/${conversation.id}/messages`, body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.fields).toMatchObject(fields);
    });

    it.each([
      ['/v1/conversations?limit=0', { limit: 'must be at least 1' }],
      ['/v1/conversations?offset=-2', { offset: 'must be at least 0' }],
      ['/v1/conversations?listing=1', { listing: 'is not a known parameter' }],
      ['/v1/reviews?limit=500', { limit: 'must be at most 200' }],
      ['/v1/requests?status=open', { status: 'must be one of: pending, accepted, declined, pre_approved, expired' }],
      ['/v1/requests?kind=booking', { kind: 'must be one of: request, inquiry' }],
    ])('refuses GET %s with 400 naming the parameter', async (path, fields) => {
      const res = await w.api<ErrorBody>('GET', path);
      expect(res.status).toBe(400);
      expect(res.body.error.fields).toEqual(fields);
    });

    it('404s unknown and foreign conversations', async () => {
      expect((await w.api<ErrorBody>('GET', '/v1/conversations/cnv_nope')).status).toBe(404);
      for (const [method, path] of [['GET', `/v1/conversations/${conversation.id}`], ['GET', `/v1/conversations/${conversation.id}/messages`], ['POST', `/v1/conversations/${conversation.id}/messages`]] as const) {
        const res = await t.api<ErrorBody>(method, path, method === 'POST' ? { body: 'hi' } : undefined);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('not_found');
      }
    });

    it('stores a PMS-side message once and lists it as inbound', async () => {
      const c = await pmsThread('Glen', 'PMS-G');
      expect(c).toMatchObject({ propertyId: w.listings.Glen, reservationId: null, messageCount: 1 });
      const messages = await w.api<Page<Message>>('GET', `/v1/conversations/${c.id}/messages`);
      expect(messages.body.data).toMatchObject([{ direction: 'inbound', body: 'Hello?' }]);
    });
  });

  describe('refused writes of spec 7.2 (nothing reaches the PMS)', () => {
    it('refuses attachments on PMS-G and PMS-F', async () => {
      for (const [listing, provider] of [['Glen', 'PMS-G'], ['Fjord', 'PMS-F']] as const) {
        const c = await pmsThread(listing, provider);
        const before = await relayedWrites(t);
        const res = await w.api<ErrorBody>('POST', `/v1/conversations/${c.id}/messages`, { body: 'See attached', attachments: [attachment] });
        expect(res.status).toBe(422);
        expect(res.body.error).toMatchObject({ code: 'pms_write_unsupported', provider });
        expect(await relayedWrites(t)).toBe(before);
        expect((await w.api<Page<Message>>('GET', `/v1/conversations/${c.id}/messages`)).body.pagination.total).toBe(1);
      }
    });

    it('relays a message without attachments on PMS-G (the counter the refusals rely on moves)', async () => {
      const c = await pmsThread('Glen', 'PMS-G');
      const before = await relayedWrites(t);
      await w.api('POST', `/v1/conversations/${c.id}/messages`, { body: 'Plain text is fine' });
      expect(await relayedWrites(t)).toBe(before + 1);
    });

    it('refuses a review reply on PMS-F', async () => {
      await pmsChange(t, w, 'PMS-F', 'review', { externalId: 'rev-f', listingId: w.listings.Fjord, guestName: 'Finn', rating: 4, body: 'Nice fjord', submittedAt: '2031-02-01T00:00:00Z', updatedAt: '2031-02-01T00:00:00Z' });
      const review = (await w.api<Page<Review>>('GET', `/v1/reviews?property_id=${w.listings.Fjord}`)).body.data[0]!;
      expect(review).toMatchObject({ rating: 4, reply: null, pms: { provider: 'PMS-F' } });
      const before = await relayedWrites(t);
      const res = await w.api<ErrorBody>('POST', `/v1/reviews/${review.id}/reply`, { body: 'Thank you!' });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'pms_write_unsupported', provider: 'PMS-F' });
      expect(await relayedWrites(t)).toBe(before);
      expect((await w.api<{ data: Review }>('GET', `/v1/reviews/${review.id}`)).body.data.reply).toBeNull();
      for (const [body, fields] of [[{}, { body: 'is required' }], [{ body: '  ' }, { body: 'is required' }], [{ body: 'x'.repeat(5001) }, { body: 'must be at most 5000 characters' }], [{ body: 'ok', rating: 5 }, { rating: 'is not a known field' }]] as const) {
        const bad = await w.api<ErrorBody>('POST', `/v1/reviews/${review.id}/reply`, body);
        expect([bad.status, bad.body.error.fields]).toEqual([400, fields]);
      }
    });

    it('refuses accepting or declining a request, and pre-approving an inquiry, relayed by PMS-F; blockInstantBooking on PMS-G', async () => {
      const stay = { guest: { firstName: 'Rae' }, checkIn: '2031-03-01', checkOut: '2031-03-04', guests: 2, updatedAt: '2031-02-01T00:00:00Z' };
      await pmsChange(t, w, 'PMS-F', 'request', { externalId: 'req-f', listingId: w.listings.Fjord, ...stay });
      await pmsChange(t, w, 'PMS-F', 'inquiry', { externalId: 'inq-f', listingId: w.listings.Fjord, ...stay });
      await pmsChange(t, w, 'PMS-G', 'inquiry', { externalId: 'inq-g', listingId: w.listings.Glen, ...stay });
      const all = (await w.api<Page<Request>>('GET', '/v1/requests')).body.data;
      const [reqF, inqF, inqG] = ['request', 'inquiry', 'inquiry'].map((kind, i) => all.find((r) => r.kind === kind && r.propertyId === [w.listings.Fjord, w.listings.Fjord, w.listings.Glen][i])!);
      expect(reqF).toMatchObject({ status: 'pending', pms: { provider: 'PMS-F' } });

      const before = await relayedWrites(t);
      for (const [path, body, provider] of [
        [`/v1/requests/${reqF!.id}/accept`, undefined, 'PMS-F'],
        [`/v1/requests/${reqF!.id}/decline`, { message: 'Sorry' }, 'PMS-F'],
        [`/v1/requests/${inqF!.id}/pre-approve`, {}, 'PMS-F'],
        [`/v1/requests/${inqG!.id}/pre-approve`, { blockInstantBooking: true }, 'PMS-G'],
      ] as const) {
        const res = await w.api<ErrorBody>('POST', path, body);
        expect([res.status, res.body.error.code, res.body.error.provider]).toEqual([422, 'pms_write_unsupported', provider]);
      }
      expect(await relayedWrites(t)).toBe(before);
      expect((await w.api<Page<Request>>('GET', '/v1/requests?status=pending')).body.pagination.total).toBe(3);

      // The wrong action for the kind is a conflict; bad bodies name the field.
      expect((await w.api<ErrorBody>('POST', `/v1/requests/${inqG!.id}/accept`)).status).toBe(409);
      expect((await w.api<ErrorBody>('POST', `/v1/requests/${reqF!.id}/pre-approve`)).status).toBe(409);
      const bad = await w.api<ErrorBody>('POST', `/v1/requests/${inqG!.id}/pre-approve`, { blockInstantBooking: 'yes' });
      expect([bad.status, bad.body.error.fields]).toEqual([400, { blockInstantBooking: 'must be true or false' }]);
      const unknown = await w.api<ErrorBody>('POST', `/v1/requests/${reqF!.id}/accept`, { note: 'hi' });
      expect([unknown.status, unknown.body.error.fields]).toEqual([400, { note: 'is not a known field' }]);
      expect((await w.api<ErrorBody>('POST', '/v1/requests/rqs_nope/accept')).status).toBe(404);
      expect((await t.api<ErrorBody>('POST', `/v1/requests/${reqF!.id}/accept`)).status).toBe(404);
    });
  });

  describe('data of an inactive listing (spec 7.1)', () => {
    it('is left out of collections and answers 403 on direct reads, writes and filters; 404 still comes first', async () => {
      const closed = w.listings.Closed!;
      const reservationId = await reserve(t, w, closed, { firstName: 'Cleo', email: 'cleo@example.com' });
      const conversation = (await w.api<Page<Conversation>>('GET', `/v1/conversations?reservation_id=${reservationId}`)).body.data[0]!;
      await pmsChange(t, w, 'PMS-A', 'review', { externalId: 'rev-closed', listingId: closed, rating: 5, body: 'Great', submittedAt: '2031-02-02T00:00:00Z', updatedAt: '2031-02-02T00:00:00Z' });
      await pmsChange(t, w, 'PMS-A', 'request', { externalId: 'req-closed', listingId: closed, guest: { firstName: 'Cleo' }, checkIn: '2031-05-01', checkOut: '2031-05-02', updatedAt: '2031-02-01T00:00:00Z' });
      const review = (await w.api<Page<Review>>('GET', `/v1/reviews?property_id=${closed}`)).body.data[0]!;
      const request = (await w.api<Page<Request>>('GET', `/v1/requests?property_id=${closed}`)).body.data[0]!;
      const counts = async () => ({
        conversations: (await w.api<Page<Conversation>>('GET', '/v1/conversations')).body.pagination.total,
        reviews: (await w.api<Page<Review>>('GET', '/v1/reviews')).body.pagination.total,
        requests: (await w.api<Page<Request>>('GET', '/v1/requests')).body.pagination.total,
      });
      const before = await counts();

      expect((await w.api('PATCH', `/v1/listings/${closed}`, { active: false })).status).toBe(200);
      await eventually(async () => (await w.api('GET', `/v1/conversations/${conversation.id}`)).status === 403, 5000, 'the conversation to become 403');

      const after = await counts();
      expect(after).toEqual({ conversations: before.conversations - 1, reviews: before.reviews - 1, requests: before.requests - 1 });
      for (const list of ['/v1/conversations', '/v1/reviews', '/v1/requests']) {
        const rows = (await w.api<Page<{ propertyId: string }>>('GET', list)).body.data;
        expect(rows.map((r) => r.propertyId)).not.toContain(closed);
      }

      const forbidden: [string, string, unknown?][] = [
        ['GET', `/v1/conversations/${conversation.id}`],
        ['GET', `/v1/conversations/${conversation.id}/messages`],
        ['POST', `/v1/conversations/${conversation.id}/messages`, { body: 'hello' }],
        ['GET', `/v1/conversations?property_id=${closed}`],
        ['GET', `/v1/reviews/${review.id}`],
        ['POST', `/v1/reviews/${review.id}/reply`, { body: 'thanks' }],
        ['GET', `/v1/reviews?property_id=${closed}`],
        ['GET', `/v1/requests/${request.id}`],
        ['POST', `/v1/requests/${request.id}/accept`],
        ['GET', `/v1/requests?property_id=${closed}`],
      ];
      const relayedBefore = await relayedWrites(t);
      for (const [method, path, body] of forbidden) {
        const res = await w.api<ErrorBody>(method, path, body);
        expect([method, path, res.status]).toEqual([method, path, 403]);
        expect(res.body.error).toMatchObject({ code: 'listing_inactive', listing_ids: [closed], listings: [{ id: closed, name: 'Closed' }] });
      }
      expect(await relayedWrites(t)).toBe(relayedBefore);
      // Another workspace asking for the same ids: 404, never 403.
      for (const path of [`/v1/conversations/${conversation.id}`, `/v1/reviews/${review.id}`, `/v1/requests/${request.id}`]) expect((await t.api('GET', path)).status).toBe(404);

      // Activation: the data is back, including what arrived while inactive (it kept syncing).
      await pmsChange(t, w, 'PMS-A', 'review', { externalId: 'rev-closed-2', listingId: closed, rating: 3, body: 'Ok', submittedAt: '2031-02-03T00:00:00Z', updatedAt: '2031-02-03T00:00:00Z' });
      expect((await w.api('PATCH', `/v1/listings/${closed}`, { active: true })).status).toBe(200);
      await eventually(async () => (await w.api('GET', `/v1/conversations/${conversation.id}`)).status === 200, 5000, 'the conversation to come back');
      expect((await w.api<Page<Review>>('GET', `/v1/reviews?property_id=${closed}`)).body.pagination.total).toBe(2);
    });
  });
});
