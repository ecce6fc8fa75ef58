// Conversations, messages, reviews, requests end to end, black box (the API, the admin API and
// the PMS simulator's control API): a conversation per reservation, messages listed and sent
// (idempotently), guest messages, reviews, requests and inquiries arriving in a PMS from its
// channels and brought in by a sync; every refused case of the contract about them, on that synced
// data, with `provider` set and nothing sent to the PMS (the simulator's request log); the
// supported writes reaching the PMS; a PMS refusing a write it could do (fault injection); every
// validation failure; and the inactive-listing paths. The expected refusals are written
// here from the contract (docs/api.md, docs/pms.md), not read from the capability matrix.
import { eventually, startTestStack, type ErrorBody, type TestStack } from './support/stack';
import { guestWrites, newWorld, pmsWrites, requestArrives, reserve, reviewArrives, simulator, syncUntil, type World } from './support/guest-world';

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
  async function pmsThread(listing: string): Promise<Conversation> {
    const { id } = await guestWrites(t, w, listing, 'Hello?');
    return (await w.api<{ data: Conversation }>('GET', `/v1/conversations/${id}`)).body.data;
  }

  describe('conversations and messages', () => {
    let conversation: Conversation;
    beforeAll(async () => {
      const reservationId = await reserve(w, w.listings.Plain!, { firstName: 'Ada', email: 'ada@example.com' });
      const res = await w.api<Page<Conversation>>('GET', `/v1/conversations?reservation_id=${reservationId}`);
      conversation = res.body.data[0]!;
    });

    it('opens one conversation per reservation, tied to its listing and guest', async () => {
      expect(conversation).toMatchObject({
        propertyId: w.listings.Plain,
        reservationId: expect.stringMatching(/^res_/),
        guestId: expect.stringMatching(/^gst_/),
        messageCount: 0,
      });
      const got = await w.api<{ data: Conversation }>('GET', `/v1/conversations/${conversation.id}`);
      expect(got.body.data).toEqual(conversation);
      const byGuest = await w.api<Page<Conversation>>('GET', `/v1/conversations?guest_id=${conversation.guestId}`);
      expect(byGuest.body.data.map((c) => c.id)).toEqual([conversation.id]);
    });

    it('sends messages (201), lists them oldest first with pagination edges, and replays an idempotent send', async () => {
      const first = await w.api<{ data: Message }>(
        'POST',
        `/v1/conversations/${conversation.id}/messages`,
        { body: 'Welcome!', attachments: [attachment] },
        { 'Idempotency-Key': 'send-welcome-1' },
      );
      expect(first.status).toBe(201);
      expect(first.body.data).toMatchObject({
        direction: 'outbound',
        body: 'Welcome!',
        attachments: [{ url: attachment.url, name: 'guide.pdf', contentType: 'application/pdf' }],
        pms: { provider: 'PMS-A' },
      });
      const replay = await w.api<{ data: Message }>(
        'POST',
        `/v1/conversations/${conversation.id}/messages`,
        { body: 'Welcome!', attachments: [attachment] },
        { 'Idempotency-Key': 'send-welcome-1' },
      );
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
      for (const [method, path] of [
        ['GET', `/v1/conversations/${conversation.id}`],
        ['GET', `/v1/conversations/${conversation.id}/messages`],
        ['POST', `/v1/conversations/${conversation.id}/messages`],
      ] as const) {
        const res = await t.api<ErrorBody>(method, path, method === 'POST' ? { body: 'hi' } : undefined);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('not_found');
      }
    });

    it('files the PMS thread of a PMS reservation in the reservation’s conversation; the host’s answer goes into that thread', async () => {
      const pms = simulator(t);
      const { provider, externalId: listing } = w.pmsOf.Plain!;
      await pms.putReservation(provider, w.account, 'pms-stay-1', {
        listing_id: listing,
        arrival: '2031-09-01',
        departure: '2031-09-05',
        guest: { first_name: 'Ivo', email: 'ivo@example.com' },
      });
      let reservationId = '';
      let conversation: Conversation | undefined;
      await syncUntil(
        t,
        w,
        provider,
        async () => {
          reservationId =
            (await w.api<Page<{ id: string; checkIn: string }>>('GET', `/v1/reservations?property_id=${w.listings.Plain}&limit=200`)).body.data.find(
              (r) => r.checkIn === '2031-09-01',
            )?.id ?? '';
          conversation = reservationId ? (await w.api<Page<Conversation>>('GET', `/v1/conversations?reservation_id=${reservationId}`)).body.data[0] : undefined;
          return conversation !== undefined;
        },
        'the PMS reservation and its conversation',
      );
      await pms.receiveMessage(provider, w.account, 'pms-msg-ivo-1', { listing_id: listing, reservation_id: 'pms-stay-1', text: 'What is the wifi password?' });
      const messages = async () => (await w.api<Page<Message>>('GET', `/v1/conversations/${conversation!.id}/messages`)).body.data;
      await syncUntil(t, w, provider, async () => (await messages()).length === 1, 'the guest message in the reservation’s conversation');
      expect((await messages())[0]).toMatchObject({ direction: 'inbound', body: 'What is the wifi password?' });
      expect(
        (await w.api<Page<Conversation>>('GET', `/v1/conversations?property_id=${w.listings.Plain}&limit=200`)).body.data.filter(
          (c) => c.reservationId === reservationId,
        ),
      ).toHaveLength(1);

      expect((await w.api('POST', `/v1/conversations/${conversation!.id}/messages`, { body: 'It is on the fridge.' })).status).toBe(201);
      const thread = (await pms.account(provider, w.account)).messages.filter((m) => m.reservation_id === 'pms-stay-1');
      expect(thread.map((m) => [m.author, m.text, m.thread_id])).toEqual([
        ['guest', 'What is the wifi password?', 'thread-pms-stay-1'],
        ['host', 'It is on the fridge.', 'thread-pms-stay-1'],
      ]);
    });

    it('stores a guest message arriving in the PMS once, with its attachments, and lists it as inbound', async () => {
      const { id } = await guestWrites(t, w, 'Glen', 'Hello? Photo of the door attached.', [
        { url: 'https://files.example/door.jpg', filename: 'door.jpg', mime_type: 'image/jpeg' },
      ]);
      const c = (await w.api<{ data: Conversation }>('GET', `/v1/conversations/${id}`)).body.data;
      expect(c).toMatchObject({ propertyId: w.listings.Glen, reservationId: null, messageCount: 1 });
      // Synced again (the whole feed from a rewound cursor is not needed: a second sync and the
      // bus's redeliveries both repeat it): still one message.
      await syncUntil(t, w, 'PMS-G', async () => true, 'a second sync');
      const messages = await w.api<Page<Message>>('GET', `/v1/conversations/${c.id}/messages`);
      expect(messages.body.data).toMatchObject([
        {
          direction: 'inbound',
          body: 'Hello? Photo of the door attached.',
          attachments: [{ url: 'https://files.example/door.jpg', name: 'door.jpg', contentType: 'image/jpeg' }],
        },
      ]);
      expect(messages.body.pagination.total).toBe(1);
    });
  });

  describe('refused writes of the contract on data synced from the PMS (nothing reaches the PMS)', () => {
    it('refuses attachments on messages sent through PMS-G and PMS-F', async () => {
      for (const [listing, provider] of [
        ['Glen', 'PMS-G'],
        ['Fjord', 'PMS-F'],
      ] as const) {
        const c = await pmsThread(listing);
        const before = await pmsWrites(t, w);
        const res = await w.api<ErrorBody>('POST', `/v1/conversations/${c.id}/messages`, { body: 'See attached', attachments: [attachment] });
        expect(res.status).toBe(422);
        expect(res.body.error).toMatchObject({ code: 'pms_write_unsupported', provider });
        expect(await pmsWrites(t, w)).toEqual(before);
        expect((await w.api<Page<Message>>('GET', `/v1/conversations/${c.id}/messages`)).body.pagination.total).toBe(1);
      }
    });

    it('sends a message without attachments through PMS-G: it reaches the PMS, in the guest’s thread', async () => {
      const c = await pmsThread('Glen');
      const before = (await pmsWrites(t, w)).length;
      const sent = await w.api<{ data: Message & { pms: { provider: string; externalId: string } } }>('POST', `/v1/conversations/${c.id}/messages`, {
        body: 'Plain text is fine',
      });
      expect(sent.status).toBe(201);
      expect(await pmsWrites(t, w)).toHaveLength(before + 1);
      const held = (await simulator(t).account('PMS-G', w.account)).messages;
      const hostMessage = held.find((m) => m.id === sent.body.data.pms.externalId)!;
      expect(hostMessage).toMatchObject({ author: 'host', text: 'Plain text is fine' });
      expect(held.filter((m) => m.thread_id === hostMessage.thread_id).map((m) => m.author)).toEqual(['guest', 'host']);
    });

    it('refuses a reply to a review on PMS-F', async () => {
      const review = await reviewArrives<Review>(t, w, 'Fjord', { stars: 4, text: 'Nice fjord', reviewer_name: 'Finn' });
      expect(review).toMatchObject({ rating: 4, reply: null, pms: { provider: 'PMS-F' } });
      const before = await pmsWrites(t, w);
      const res = await w.api<ErrorBody>('POST', `/v1/reviews/${review.id}/reply`, { body: 'Thank you!' });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'pms_write_unsupported', provider: 'PMS-F' });
      expect(await pmsWrites(t, w)).toEqual(before);
      expect((await w.api<{ data: Review }>('GET', `/v1/reviews/${review.id}`)).body.data.reply).toBeNull();
      for (const [body, fields] of [
        [{}, { body: 'is required' }],
        [{ body: '  ' }, { body: 'is required' }],
        [{ body: 'x'.repeat(5001) }, { body: 'must be at most 5000 characters' }],
        [{ body: 'ok', rating: 5 }, { rating: 'is not a known field' }],
      ] as const) {
        const bad = await w.api<ErrorBody>('POST', `/v1/reviews/${review.id}/reply`, body);
        expect([bad.status, bad.body.error.fields]).toEqual([400, fields]);
      }
    });

    it('refuses accepting or declining a request, and pre-approving an inquiry, relayed by PMS-F; blockInstantBooking on a PMS-G pre-approval', async () => {
      const stay = { arrival: '2031-03-01', departure: '2031-03-04', first_name: 'Rae' };
      const reqF = await requestArrives<Request>(t, w, 'Fjord', 'request', stay);
      const inqF = await requestArrives<Request>(t, w, 'Fjord', 'inquiry', stay);
      const inqG = await requestArrives<Request>(t, w, 'Glen', 'inquiry', stay);
      expect(reqF).toMatchObject({ status: 'pending', pms: { provider: 'PMS-F' } });
      expect(inqG).toMatchObject({ status: 'pending', pms: { provider: 'PMS-G' } });

      const before = await pmsWrites(t, w);
      for (const [path, body, provider] of [
        [`/v1/requests/${reqF.id}/accept`, undefined, 'PMS-F'],
        [`/v1/requests/${reqF.id}/decline`, { message: 'Sorry' }, 'PMS-F'],
        [`/v1/requests/${inqF.id}/pre-approve`, {}, 'PMS-F'],
        [`/v1/requests/${inqG.id}/pre-approve`, { blockInstantBooking: true }, 'PMS-G'],
      ] as const) {
        const res = await w.api<ErrorBody>('POST', path, body);
        expect([path, res.status, res.body.error.code, res.body.error.provider]).toEqual([path, 422, 'pms_write_unsupported', provider]);
      }
      expect(await pmsWrites(t, w)).toEqual(before);
      expect((await w.api<Page<Request>>('GET', '/v1/requests?status=pending')).body.pagination.total).toBe(3);
      const held = (await simulator(t).account('PMS-F', w.account)).requests;
      expect(held.map((r) => r.status)).toEqual(['pending', 'pending']);

      // The wrong action for the kind is a conflict; bad bodies name the field.
      expect((await w.api<ErrorBody>('POST', `/v1/requests/${inqG.id}/accept`)).status).toBe(409);
      expect((await w.api<ErrorBody>('POST', `/v1/requests/${reqF.id}/pre-approve`)).status).toBe(409);
      const bad = await w.api<ErrorBody>('POST', `/v1/requests/${inqG.id}/pre-approve`, { blockInstantBooking: 'yes' });
      expect([bad.status, bad.body.error.fields]).toEqual([400, { blockInstantBooking: 'must be true or false' }]);
      const unknown = await w.api<ErrorBody>('POST', `/v1/requests/${reqF.id}/accept`, { note: 'hi' });
      expect([unknown.status, unknown.body.error.fields]).toEqual([400, { note: 'is not a known field' }]);
      expect((await w.api<ErrorBody>('POST', '/v1/requests/rqs_nope/accept')).status).toBe(404);
      expect((await t.api<ErrorBody>('POST', `/v1/requests/${reqF.id}/accept`)).status).toBe(404);

      // Without blockInstantBooking, PMS-G pre-approves: it reaches the PMS, which holds it.
      const ok = await w.api<{ data: Request }>('POST', `/v1/requests/${inqG.id}/pre-approve`, {});
      expect([ok.status, ok.body.data.status]).toEqual([200, 'pre_approved']);
      expect((await simulator(t).account('PMS-G', w.account)).requests.map((r) => [r.kind, r.status, r.block_instant_booking])).toEqual([
        ['inquiry', 'pre_approved', false],
      ]);
    });
  });

  describe('writes the PMS performs, and a PMS refusing one it could do', () => {
    it('relays a reply and a request answer on PMS-A to the PMS, which stores them', async () => {
      const review = await reviewArrives<Review>(t, w, 'Plain', { stars: 5, text: 'Spotless', reviewer_name: 'Ama' });
      expect((await w.api('POST', `/v1/reviews/${review.id}/reply`, { body: 'Thanks, Ama!' })).status).toBe(200);
      const request = await requestArrives<Request>(t, w, 'Plain', 'request', { arrival: '2031-07-01', departure: '2031-07-05', first_name: 'Bea' });
      expect((await w.api<{ data: Request }>('POST', `/v1/requests/${request.id}/decline`, { message: 'Booked already' })).body.data.status).toBe('declined');
      const held = await simulator(t).account('PMS-A', w.account);
      expect(held.reviews.find((r) => r.text === 'Spotless')!.response).toMatchObject({ text: 'Thanks, Ama!' });
      expect(held.requests.find((r) => r.arrival === '2031-07-01')!.status).toBe('declined');
    });

    it('a PMS refusing a write the matrix allows: a clear envelope, nothing stored here, the next write goes through', async () => {
      const review = await reviewArrives<Review>(t, w, 'Plain', { stars: 3, text: 'Noisy at night', reviewer_name: 'Cas' });
      // The PMS says it cannot do it (its own 422 unsupported): the API says so, naming the PMS.
      await simulator(t).refuseNext('PMS-A', {
        kind: 'review.reply',
        count: 1,
        status: 422,
        code: 'unsupported',
        reason: 'Replies are closed for this review.',
      });
      const unsupported = await w.api<ErrorBody>('POST', `/v1/reviews/${review.id}/reply`, { body: 'Sorry about that' });
      expect([unsupported.status, unsupported.body.error.code, unsupported.body.error.provider]).toEqual([422, 'pms_write_unsupported', 'PMS-A']);
      expect(unsupported.body.error.message).toContain('Replies are closed for this review.');
      // The PMS refuses for a reason of its own (a 409): 502 pms_unavailable with its reason.
      await simulator(t).refuseNext('PMS-A', { kind: 'review.reply', count: 1, status: 409, code: 'moderation', reason: 'The review is under moderation.' });
      const refused = await w.api<ErrorBody>('POST', `/v1/reviews/${review.id}/reply`, { body: 'Sorry about that' });
      expect([refused.status, refused.body.error.code]).toEqual([502, 'pms_unavailable']);
      expect(refused.body.error.message).toContain('The review is under moderation.');
      // Nothing stored, here or in the PMS.
      expect((await w.api<{ data: Review }>('GET', `/v1/reviews/${review.id}`)).body.data.reply).toBeNull();
      expect((await simulator(t).account('PMS-A', w.account)).reviews.find((r) => r.text === 'Noisy at night')!.response).toBeNull();
      // Same for a message: nothing listed in the conversation.
      const c = await pmsThread('Plain');
      await simulator(t).refuseNext('PMS-A', {
        kind: 'message.send',
        count: 1,
        status: 400,
        code: 'blocked_words',
        reason: 'The message contains a phone number.',
      });
      const blocked = await w.api<ErrorBody>('POST', `/v1/conversations/${c.id}/messages`, { body: 'Call me on 555-0100' });
      expect([blocked.status, blocked.body.error.code]).toEqual([502, 'pms_unavailable']);
      expect((await w.api<Page<Message>>('GET', `/v1/conversations/${c.id}/messages`)).body.pagination.total).toBe(1);
      // The refusals were one-offs: the reply goes through now.
      expect((await w.api('POST', `/v1/reviews/${review.id}/reply`, { body: 'Sorry about that' })).status).toBe(200);
    });
  });

  describe('data of an inactive listing', () => {
    it('is left out of collections and answers 403 on direct reads, writes and filters; 404 still comes first', async () => {
      const closed = w.listings.Closed!;
      const reservationId = await reserve(w, closed, { firstName: 'Cleo', email: 'cleo@example.com' });
      const conversation = (await w.api<Page<Conversation>>('GET', `/v1/conversations?reservation_id=${reservationId}`)).body.data[0]!;
      const review = await reviewArrives<Review>(t, w, 'Closed', { stars: 5, text: 'Great' });
      const request = await requestArrives<Request>(t, w, 'Closed', 'request', { arrival: '2031-05-01', departure: '2031-05-02', first_name: 'Cleo' });
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
      const writesBefore = await pmsWrites(t, w);
      for (const [method, path, body] of forbidden) {
        const res = await w.api<ErrorBody>(method, path, body);
        expect([method, path, res.status]).toEqual([method, path, 403]);
        expect(res.body.error).toMatchObject({ code: 'listing_inactive', listing_ids: [closed], listings: [{ id: closed, name: 'Closed' }] });
      }
      expect(await pmsWrites(t, w)).toEqual(writesBefore);
      // Another workspace asking for the same ids: 404, never 403.
      for (const path of [`/v1/conversations/${conversation.id}`, `/v1/reviews/${review.id}`, `/v1/requests/${request.id}`])
        expect((await t.api('GET', path)).status).toBe(404);

      // Activation: the data is back, including what arrived while inactive (it kept syncing).
      await simulator(t).putReview('PMS-A', w.account, 'rev-closed-2', { listing_id: w.pmsOf.Closed!.externalId, stars: 3, text: 'Ok' });
      await syncUntil(t, w, 'PMS-A', async () => true, 'a sync while inactive');
      expect((await w.api('PATCH', `/v1/listings/${closed}`, { active: true })).status).toBe(200);
      await eventually(async () => (await w.api('GET', `/v1/conversations/${conversation.id}`)).status === 200, 5000, 'the conversation to come back');
      await eventually(
        async () => (await w.api<Page<Review>>('GET', `/v1/reviews?property_id=${closed}`)).body.pagination.total === 2,
        10_000,
        'the review synced while inactive',
      );
    });
  });
});
