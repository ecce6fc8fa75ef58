// Write safety end to end, black box over HTTP only: availability is the source of truth (no
// double booking, closed and booked nights refused, calendar and quote show bookings, cancel
// frees them), no lost update (concurrent PATCHes of different fields, ETag / If-Match), and
// idempotency that survives a client dropping the connection.
import { request as httpRequest } from 'node:http';
import { eventually, startTestStack, type ErrorBody, type TestStack } from './support/stack';
import { syncDemoPms } from './support/workspaces';

interface Reservation {
  id: string;
  propertyId: string;
  status: string;
  checkIn: string;
  checkOut: string;
  notes: { host: string; guest: string };
  customFields: Record<string, string>;
  version: number;
  conflict: { reservationIds: string[] } | null;
}
interface Guest {
  id: string;
  firstName: string;
  lastName: string;
  language: string;
  version: number;
}
interface Conflict {
  date: string;
  reason: 'booked' | 'closed';
  reservationId?: string;
}
type ConflictBody = ErrorBody & { error: { conflicts: Conflict[] } };
interface CalendarDay {
  date: string;
  available: boolean;
  reservationId: string | null;
}

/** Every test books its own nights, far from the demo data and from each other. */
let nextStay = 0;
function stay(nights = 2): { checkIn: string; checkOut: string; nights: string[] } {
  const start = Date.UTC(2041, 0, 1) + nextStay * 86_400_000;
  nextStay += nights + 1;
  const day = (i: number) => new Date(start + i * 86_400_000).toISOString().slice(0, 10);
  return { checkIn: day(0), checkOut: day(nights), nights: Array.from({ length: nights }, (_, i) => day(i)) };
}

describe('write safety end to end', () => {
  let t: TestStack;
  let listingId: string;
  const guest = { firstName: 'Ada', lastName: 'Byron', email: 'ada@example.com' };

  beforeAll(async () => {
    t = await startTestStack();
    const listings = await t.api<{ data: { id: string; status: string; capabilities?: unknown }[] }>('GET', '/v1/listings');
    listingId = listings.body.data[0]!.id;
  });
  afterAll(async () => {
    await t.stop();
  });

  /** A create over HTTP; a stay's `nights` list is the test's own, not part of the body. */
  const create = ({ nights: _nights, ...body }: Record<string, unknown>, headers?: Record<string, string>) =>
    t.api<{ data: Reservation } & ConflictBody>(
      'POST',
      '/v1/reservations',
      { propertyId: listingId, primaryGuest: guest, ...body },
      headers ? { headers } : {},
    );
  const calendar = async (from: string, to: string) =>
    (await t.api<{ data: { days: CalendarDay[] } }>('GET', `/v1/listings/${listingId}/calendar?from=${from}&to=${to}`)).body.data.days;
  const quote = (s: { checkIn: string; checkOut: string }) =>
    t.api<ConflictBody>('POST', '/v1/reservations/quote', { propertyId: listingId, checkIn: s.checkIn, checkOut: s.checkOut });
  const reservationsFrom = async (checkIn: string) =>
    (await t.api<{ data: Reservation[] }>('GET', `/v1/reservations?property_id=${listingId}&check_in_after=${checkIn}&check_in_before=${checkIn}&limit=200`))
      .body.data;

  describe('availability is the source of truth', () => {
    it('20 concurrent creates for the same nights: exactly one 201, the rest 409 dates_unavailable naming it', async () => {
      const s = stay(3);
      const results = await Promise.all(Array.from({ length: 20 }, () => create(s)));
      const created = results.filter((r) => r.status === 201);
      expect(created).toHaveLength(1);
      const winner = created[0]!.body.data.id;
      for (const r of results.filter((x) => x.status !== 201)) {
        expect(r.status).toBe(409);
        expect(r.body.error.code).toBe('dates_unavailable');
        expect(r.body.error.conflicts).toEqual(s.nights.map((date) => ({ date, reason: 'booked', reservationId: winner })));
      }
      expect((await reservationsFrom(s.checkIn)).map((r) => r.id)).toEqual([winner]);
    });

    it('nights closed through the availability batch refuse a create and a date change; nothing is written', async () => {
      const s = stay(3);
      const closed = await t.api('PATCH', '/v1/availability/batch', { updates: [{ listingId, from: s.nights[1], to: s.nights[1], available: false }] });
      expect(closed.status).toBe(200);
      const refused = await create(s);
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({ code: 'dates_unavailable', conflicts: [{ date: s.nights[1], reason: 'closed' }] });
      expect(await reservationsFrom(s.checkIn)).toEqual([]);

      const other = stay(2);
      const booked = await create(other);
      expect(booked.status).toBe(201);
      const moved = await t.api<ConflictBody>('PATCH', `/v1/reservations/${booked.body.data.id}`, { checkIn: s.nights[1], checkOut: s.checkOut });
      expect(moved.status).toBe(409);
      expect(moved.body.error.conflicts).toEqual([{ date: s.nights[1], reason: 'closed' }]);
      const after = await t.api<{ data: Reservation }>('GET', `/v1/reservations/${booked.body.data.id}`);
      expect(after.body.data.checkIn).toBe(other.checkIn);
    });

    it('the calendar and the quote show booked nights; cancel frees them', async () => {
      const s = stay(2);
      const booked = await create(s);
      expect(booked.status).toBe(201);
      const id = booked.body.data.id;

      const days = await calendar(s.checkIn, s.checkOut);
      expect(days.map((d) => [d.date, d.available, d.reservationId])).toEqual([
        [s.nights[0], false, id],
        [s.nights[1], false, id],
        [s.checkOut, true, null], // the check-out day is free for the next guest
      ]);
      const refused = await quote(s);
      expect(refused.status).toBe(409);
      expect(refused.body.error.conflicts).toEqual(s.nights.map((date) => ({ date, reason: 'booked', reservationId: id })));

      const cancelled = await t.api<{ data: Reservation }>('POST', `/v1/reservations/${id}/cancel`);
      expect(cancelled.status).toBe(200);
      expect((await calendar(s.checkIn, s.checkOut)).every((d) => d.available && d.reservationId === null)).toBe(true);
      expect((await quote(s)).status).toBe(200);
      expect((await create(s)).status).toBe(201);
      // Un-cancelling onto nights booked meanwhile is refused.
      const back = await t.api<ConflictBody>('PATCH', `/v1/reservations/${id}`, { status: 'CONFIRMED' });
      expect(back.status).toBe(409);
      expect(back.body.error.code).toBe('dates_unavailable');
    });

    it('an owner block occupies its nights like a stay', async () => {
      const s = stay(2);
      const block = await create({ ...s, platform: 'owner' });
      expect(block.status).toBe(201);
      const refused = await create(s);
      expect(refused.status).toBe(409);
      expect(refused.body.error.conflicts.map((c) => c.reservationId)).toEqual([block.body.data.id, block.body.data.id]);
    });
  });

  describe('no lost update', () => {
    it('40 pairs of concurrent PATCHes of different fields on a reservation: none lost', async () => {
      const r = (await create(stay(1))).body.data;
      for (let i = 0; i < 40; i++) {
        const [a, b] = await Promise.all([
          t.api('PATCH', `/v1/reservations/${r.id}`, { notes: { host: `host ${i}` } }),
          t.api('PATCH', `/v1/reservations/${r.id}`, { customFields: { round: String(i) } }),
        ]);
        expect([a.status, b.status]).toEqual([200, 200]);
        const now = (await t.api<{ data: Reservation }>('GET', `/v1/reservations/${r.id}`)).body.data;
        expect([now.notes.host, now.customFields.round]).toEqual([`host ${i}`, String(i)]);
      }
    });

    it('40 pairs of concurrent PATCHes of different fields on a guest: none lost', async () => {
      const g = (await t.api<{ data: Guest }>('POST', '/v1/guests', { firstName: 'Grace', lastName: 'Hopper' })).body.data;
      for (let i = 0; i < 40; i++) {
        const [a, b] = await Promise.all([
          t.api('PATCH', `/v1/guests/${g.id}`, { firstName: `First${i}` }),
          t.api('PATCH', `/v1/guests/${g.id}`, { lastName: `Last${i}` }),
        ]);
        expect([a.status, b.status]).toEqual([200, 200]);
        const now = (await t.api<{ data: Guest }>('GET', `/v1/guests/${g.id}`)).body.data;
        expect([now.firstName, now.lastName]).toEqual([`First${i}`, `Last${i}`]);
      }
    });

    it('If-Match with a stale ETag: 412 precondition_failed and nothing changed; the current ETag applies', async () => {
      const r = (await create(stay(1))).body.data;
      const read = await t.api<{ data: Reservation }>('GET', `/v1/reservations/${r.id}`);
      const etag = read.headers.get('etag')!;
      expect(etag).toBe(`"${read.body.data.version}"`);
      const first = await t.api<{ data: Reservation }>('PATCH', `/v1/reservations/${r.id}`, { notes: { host: 'first' } }, { headers: { 'If-Match': etag } });
      expect(first.status).toBe(200);
      expect(first.headers.get('etag')).toBe(`"${read.body.data.version + 1}"`);
      const stale = await t.api<ErrorBody>('PATCH', `/v1/reservations/${r.id}`, { notes: { host: 'second' } }, { headers: { 'If-Match': etag } });
      expect(stale.status).toBe(412);
      expect(stale.body.error.code).toBe('precondition_failed');
      expect(stale.body.error.docs_url).toMatch(/\/docs\/errors\/precondition_failed$/);
      const after = await t.api<{ data: Reservation }>('GET', `/v1/reservations/${r.id}`);
      expect(after.body.data.notes.host).toBe('first');
      expect(after.headers.get('etag')).toBe(first.headers.get('etag'));

      const g = await t.api<{ data: Guest }>('POST', '/v1/guests', { firstName: 'Alan' });
      const guestEtag = g.headers.get('etag')!;
      expect((await t.api('PATCH', `/v1/guests/${g.body.data.id}`, { lastName: 'Turing' }, { headers: { 'If-Match': guestEtag } })).status).toBe(200);
      const staleGuest = await t.api<ErrorBody>('PATCH', `/v1/guests/${g.body.data.id}`, { lastName: 'Kay' }, { headers: { 'If-Match': guestEtag } });
      expect(staleGuest.status).toBe(412);
      expect((await t.api<{ data: Guest }>('GET', `/v1/guests/${g.body.data.id}`)).body.data.lastName).toBe('Turing');

      // A listing: PATCH with a stale ETag changes nothing.
      const listing = await t.api('GET', `/v1/listings/${listingId}`);
      const listingEtag = listing.headers.get('etag')!;
      expect(listingEtag).toMatch(/^"\d+"$/);
      const stalePatch = await t.api<ErrorBody>('PATCH', `/v1/listings/${listingId}`, { active: false }, { headers: { 'If-Match': '"999999"' } });
      expect(stalePatch.status).toBe(412);
      expect((await t.api<{ data: { status: string } }>('GET', `/v1/listings/${listingId}`)).body.data.status).toBe('active');
      const samePatch = await t.api('PATCH', `/v1/listings/${listingId}`, { active: true }, { headers: { 'If-Match': listingEtag } });
      expect(samePatch.status).toBe(200);

      // PUT accepts If-Match too: listing content.
      const content = `/v1/listings/${listingId}/content`;
      const written = await t.api('PUT', content, { sections: { description: 'Sea view, first version' } });
      const contentEtag = written.headers.get('etag')!;
      expect(contentEtag).toMatch(/^"\d+"$/);
      expect((await t.api('GET', content)).headers.get('etag')).toBe(contentEtag);
      expect((await t.api('PUT', content, { sections: { description: 'Second version' } }, { headers: { 'If-Match': contentEtag } })).status).toBe(200);
      const staleContent = await t.api<ErrorBody>('PUT', content, { sections: { description: 'Third version' } }, { headers: { 'If-Match': contentEtag } });
      expect(staleContent.status).toBe(412);
      expect(staleContent.body.error.code).toBe('precondition_failed');
      expect((await t.api<{ data: { sections: { description: string } } }>('GET', content)).body.data.sections.description).toBe('Second version');
    });
  });

  describe('idempotency that survives a disconnect', () => {
    /** Sends the request on a raw socket and destroys it after `ms`, whatever has happened by then. */
    function sendAndDrop(path: string, body: unknown, key: string, ms: number): Promise<void> {
      const payload = JSON.stringify(body);
      const url = new URL(t.baseUrl);
      return new Promise((resolve) => {
        const req = httpRequest({
          host: url.hostname,
          port: url.port,
          path,
          method: 'POST',
          headers: {
            authorization: `Bearer ${t.apiKey}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(payload),
            'idempotency-key': key,
          },
        });
        req.on('error', () => resolve());
        req.on('response', (res) => {
          res.resume();
          res.on('end', () => resolve());
          res.on('error', () => resolve());
        });
        req.on('close', () => resolve());
        setTimeout(() => req.destroy(), ms);
        req.end(payload);
      });
    }

    it('40 trials of "send, drop the connection after a few ms, retry with the same key": 0 duplicates', async () => {
      let keptFromDropped = 0;
      for (let trial = 0; trial < 40; trial++) {
        const s = stay(1);
        const body = { propertyId: listingId, checkIn: s.checkIn, checkOut: s.checkOut, primaryGuest: guest };
        const key = `drop-${trial}-${s.checkIn}`;
        await sendAndDrop('/v1/reservations', body, key, 1 + (trial % 8));
        let retry = await t.api<{ data: Reservation } & ErrorBody>('POST', '/v1/reservations', body, { headers: { 'Idempotency-Key': key } });
        while (retry.status === 409 && retry.body.error.code === 'idempotency_in_progress') {
          // When the running request's lease on the key ends: at most its 3 s, renewed while it runs.
          expect(retry.headers.get('retry-after')).toMatch(/^[123]$/);
          retry = await t.api('POST', '/v1/reservations', body, { headers: { 'Idempotency-Key': key } });
        }
        expect(retry.status).toBe(201);
        if (retry.headers.get('idempotent-replayed') === 'true') keptFromDropped += 1;
        const stored = await reservationsFrom(s.checkIn);
        expect(stored.map((r) => r.id)).toEqual([retry.body.data.id]);
      }
      // The trials did exercise the drop: requests whose client was gone still ran and were recorded.
      expect(keptFromDropped).toBeGreaterThan(0);
    });

    it('a replay carries Idempotent-Replayed; the same key on another body is idempotency_conflict; PATCH honours keys', async () => {
      const s = stay(1);
      const body = { propertyId: listingId, checkIn: s.checkIn, checkOut: s.checkOut, primaryGuest: guest };
      const first = await create(body, { 'Idempotency-Key': 'replay-1' });
      const again = await create(body, { 'Idempotency-Key': 'replay-1' });
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body.data.id).toBe(first.body.data.id);
      const other = await create({ ...body, primaryGuest: { firstName: 'Someone else' } }, { 'Idempotency-Key': 'replay-1' });
      expect(other.status).toBe(409);
      expect(other.body.error.code).toBe('idempotency_conflict');

      const patch = () =>
        t.api<{ data: Reservation }>(
          'PATCH',
          `/v1/reservations/${first.body.data.id}`,
          { customFields: { paid: 'yes' } },
          { headers: { 'Idempotency-Key': 'patch-1' } },
        );
      const p1 = await patch();
      const p2 = await patch();
      expect(p2.headers.get('idempotent-replayed')).toBe('true');
      expect(p2.body).toEqual(p1.body);
      expect(p2.headers.get('etag')).toBe(p1.headers.get('etag'));
    });
  });

  it('OpenAPI and /docs describe it', async () => {
    const doc = (
      await t.api<{
        paths: Record<
          string,
          Record<string, { parameters: { name: string }[]; responses: Record<string, { 'x-error-codes'?: string[]; headers?: Record<string, unknown> }> }>
        >;
        components: { schemas: Record<string, unknown> };
      }>('GET', '/v1/openapi.json')
    ).body;
    const patch = doc.paths['/v1/reservations/{id}']!.patch!;
    expect(patch.parameters.map((p) => p.name)).toEqual(expect.arrayContaining(['If-Match', 'Idempotency-Key']));
    expect(patch.responses['412']?.['x-error-codes']).toEqual(['precondition_failed']);
    expect(patch.responses['409']?.['x-error-codes']).toEqual(expect.arrayContaining(['dates_unavailable', 'idempotency_in_progress', 'idempotency_conflict']));
    expect(patch.responses['200']?.headers).toHaveProperty('ETag');
    expect(doc.paths['/v1/guests/{id}']!.patch!.parameters.map((p) => p.name)).toContain('If-Match');
    expect(doc.paths['/v1/listings/{id}/content']!.put!.parameters.map((p) => p.name)).toContain('If-Match');
    // A create has no version to match yet.
    expect(doc.paths['/v1/reservations']!.post!.parameters.map((p) => p.name)).not.toContain('If-Match');
    expect(JSON.stringify(doc.components.schemas.ErrorEnvelope)).toContain('conflicts');
    for (const code of ['dates_unavailable', 'precondition_failed', 'idempotency_in_progress']) {
      const page = await fetch(`${t.baseUrl}/docs/errors/${code}`);
      expect(page.status).toBe(200);
    }
  });
});

/** The id of the demo's PMS-A listing ("Riverside ..."), once its import landed. */
async function demoPmsListing(t: TestStack): Promise<string> {
  let id = '';
  await eventually(
    async () => {
      const listings = (await t.api<{ data: { id: string; name: string }[] }>('GET', '/v1/listings?status=all&limit=200')).body.data;
      id = listings.find((l) => l.name.startsWith('Riverside'))?.id ?? '';
      return id !== '';
    },
    10_000,
    'the demo PMS listing',
  );
  return id;
}

describe('PMS listings: the PMS is the source of truth', () => {
  let t: TestStack;
  let riverside: string;
  beforeAll(async () => {
    t = await startTestStack({ demoPms: true });
    riverside = await demoPmsListing(t);
  });
  afterAll(async () => {
    await t.stop();
  });

  /** A stay on riverside booked here by "Local" (and relayed to PMS-A, which accepts it). */
  const bookHere = async (checkIn: string, checkOut: string) => {
    const local = await t.api<{ data: Reservation }>('POST', '/v1/reservations', {
      propertyId: riverside,
      checkIn,
      checkOut,
      primaryGuest: { firstName: 'Local' },
    });
    expect(local.status).toBe(201);
    return local;
  };
  /** A CHANNEL_B booking of one adult on riverside, as PMS-A takes it itself. */
  const pmsBooking = (arrival: string, departure: string, email: string) => ({
    listing_id: 'riverside',
    arrival,
    departure,
    source: 'CHANNEL_B',
    guest: { first_name: 'Remote', last_name: 'Guest', email },
    adults: 1,
    total: 300,
    currency: 'EUR',
  });

  it('the demo data has no overlaps; a booking made in the PMS over a local one is applied, and both are flagged', async () => {
    await eventually(
      async () => (await t.api<{ data: Reservation[] }>('GET', `/v1/reservations?property_id=${riverside}`)).body.data.length > 0,
      5000,
      'the demo PMS reservation',
    );
    const demo = (await t.api<{ data: Reservation[] }>('GET', '/v1/reservations?limit=200')).body.data;
    expect(demo.every((r) => r.conflict === null)).toBe(true);

    // Booked here (and relayed to PMS-A, which accepts it).
    const local = await bookHere('2042-03-01', '2042-03-04');
    // Meanwhile the PMS took a booking over two of those nights itself.
    await t.pms.putReservation('PMS-A', 'demo', 'booking-overlap', pmsBooking('2042-03-03', '2042-03-06', 'remote@example.com'));
    await syncDemoPms(t);

    let pmsOne: Reservation | undefined;
    await eventually(
      async () => {
        const page = (
          await t.api<{ data: Reservation[] }>('GET', `/v1/reservations?property_id=${riverside}&check_in_after=2042-03-03&check_in_before=2042-03-03`)
        ).body.data;
        pmsOne = page[0];
        return pmsOne !== undefined;
      },
      10_000,
      'the PMS booking to be synced',
    );
    expect(pmsOne!.conflict).toEqual({ reservationIds: [local.body.data.id] });
    const flagged = await t.api<{ data: Reservation }>('GET', `/v1/reservations/${local.body.data.id}`);
    expect(flagged.body.data.conflict).toEqual({ reservationIds: [pmsOne!.id] });
    expect(flagged.body.data.version).toBeGreaterThan(local.body.data.version); // the flag is a change (the PMS's echo of the local booking is another)
    // Each keeps what it could hold: the local stay its nights, the PMS booking the free ones.
    const days = (
      await t.api<{ data: { days: { date: string; reservationId: string | null }[] } }>(
        'GET',
        `/v1/listings/${riverside}/calendar?from=2042-03-01&to=2042-03-05`,
      )
    ).body.data.days;
    expect(days.map((d) => d.reservationId)).toEqual([local.body.data.id, local.body.data.id, local.body.data.id, pmsOne!.id, pmsOne!.id]);
  });
  it('when the overlap ends (the PMS booking cancelled in the PMS, then synced) the local stay loses its conflict, with a new version', async () => {
    const local = await bookHere('2042-05-01', '2042-05-04');
    const booking = pmsBooking('2042-05-03', '2042-05-06', 'remote2@example.com');
    await t.pms.putReservation('PMS-A', 'demo', 'booking-overlap-ends', booking);
    await syncDemoPms(t);
    const read = async (id: string) => (await t.api<{ data: Reservation }>('GET', `/v1/reservations/${id}`)).body.data;
    let pmsId = '';
    await eventually(
      async () => {
        const page = (
          await t.api<{ data: Reservation[] }>('GET', `/v1/reservations?property_id=${riverside}&check_in_after=2042-05-03&check_in_before=2042-05-03`)
        ).body.data;
        pmsId = page[0]?.id ?? '';
        return pmsId !== '' && (await read(local.body.data.id)).conflict !== null;
      },
      10_000,
      'the overlapping PMS booking to be synced and flagged',
    );
    const flagged = await read(local.body.data.id);
    expect(flagged.conflict).toEqual({ reservationIds: [pmsId] });

    // The PMS cancels its booking; the next sync ends the overlap on both sides.
    await t.pms.putReservation('PMS-A', 'demo', 'booking-overlap-ends', { ...booking, status: 'cancelled' });
    await syncDemoPms(t);
    await eventually(async () => (await read(local.body.data.id)).conflict === null, 10_000, "the local stay's conflict to clear");
    const cleared = await read(local.body.data.id);
    expect(cleared.version).toBeGreaterThan(flagged.version);
    expect(cleared.status).toBe('CONFIRMED');
    const cancelled = await read(pmsId);
    expect([cancelled.status, cancelled.conflict]).toEqual(['CANCELLED', null]);
    // The local stay keeps its nights; the cancelled booking holds none.
    const days = (
      await t.api<{ data: { days: { date: string; reservationId: string | null }[] } }>(
        'GET',
        `/v1/listings/${riverside}/calendar?from=2042-05-01&to=2042-05-05`,
      )
    ).body.data.days;
    expect(days.map((d) => d.reservationId)).toEqual([local.body.data.id, local.body.data.id, local.body.data.id, null, null]);
  });
});

// "The gateway has no record": a 5xx is never recorded by the gateway, so when its deadline
// passes while the service still commits (here: the PMS answers slower than the gateway waits),
// the retry with the same key reaches the service again. The key stored with the write answers
// the first outcome: one reservation, one message, one relay to the PMS. (Listing and webhook
// writes reach no PMS, so nothing black-box can hold them past the deadline: their services'
// component tests prove the same retry over gRPC.)
describe('a write whose answer was a 5xx but which committed is not written twice', () => {
  const DEADLINE_MS = 400;
  const PMS_DELAY_MS = 1000; // over the gateway's deadline, under the service's and the PMS adapter's
  let t: TestStack;
  let riverside: string;
  beforeAll(async () => {
    t = await startTestStack({ demoPms: true, upstreamDeadlineMs: DEADLINE_MS });
    riverside = await demoPmsListing(t);
  });
  afterEach(async () => {
    await t.pms.clearFaults();
  });
  afterAll(async () => {
    await t.stop();
  });

  // The PMS receives the caller's key (reservations prefix it with the workspace).
  const relaysWithKey = async (key: string) =>
    (await t.pms.requests({ provider: 'PMS-A' })).filter((r) => r.idempotencyKey === key || r.idempotencyKey?.endsWith(`:${key}`));

  it('reservations: a create that timed out at the gateway and committed answers the same reservation on retry', async () => {
    const key = 'late-create-1';
    const body = { propertyId: riverside, checkIn: '2042-07-01', checkOut: '2042-07-03', primaryGuest: { firstName: 'Late' } };
    await t.pms.setFault('PMS-A', { mode: 'slow', delayMs: PMS_DELAY_MS });
    const first = await t.api<{ data: Reservation }>('POST', '/v1/reservations', body, { headers: { 'Idempotency-Key': key } });
    expect(first.status).toBeGreaterThanOrEqual(500);
    const stored = async () =>
      (await t.api<{ data: Reservation[] }>('GET', `/v1/reservations?property_id=${riverside}&check_in_after=2042-07-01&check_in_before=2042-07-01`)).body.data;
    await eventually(async () => (await stored()).length === 1, 10_000, 'the create to commit behind the 5xx');
    await t.pms.clearFaults();

    const retry = await t.api<{ data: Reservation }>('POST', '/v1/reservations', body, { headers: { 'Idempotency-Key': key } });
    expect(retry.status).toBe(201);
    expect(retry.body.data.id).toBe((await stored())[0]!.id);
    expect(await stored()).toHaveLength(1);
    expect(await relaysWithKey(key)).toHaveLength(1);
    // The key stays bound to its request at the service too.
    const other = await t.api('POST', '/v1/reservations', { ...body, checkOut: '2042-07-04' }, { headers: { 'Idempotency-Key': key } });
    expect([other.status, (other.body as ErrorBody).error.code]).toEqual([409, 'idempotency_conflict']);
  });

  it('conversations: a message that timed out at the gateway and was sent is not sent again on retry', async () => {
    let conversationId = '';
    await eventually(
      async () => {
        conversationId = (await t.api<{ data: { id: string }[] }>('GET', `/v1/conversations?property_id=${riverside}`)).body.data[0]?.id ?? '';
        return conversationId !== '';
      },
      5000,
      "the demo PMS reservation's conversation",
    );
    const key = 'late-message-1';
    const messages = async () =>
      (await t.api<{ data: { id: string; body: string }[] }>('GET', `/v1/conversations/${conversationId}/messages?limit=200`)).body.data.filter(
        (m) => m.body === 'Sent once',
      );
    await t.pms.setFault('PMS-A', { mode: 'slow', delayMs: PMS_DELAY_MS });
    const first = await t.api('POST', `/v1/conversations/${conversationId}/messages`, { body: 'Sent once' }, { headers: { 'Idempotency-Key': key } });
    expect(first.status).toBeGreaterThanOrEqual(500);
    await eventually(async () => (await messages()).length === 1, 10_000, 'the message to be stored behind the 5xx');
    await t.pms.clearFaults();

    const retry = await t.api<{ data: { id: string } }>(
      'POST',
      `/v1/conversations/${conversationId}/messages`,
      { body: 'Sent once' },
      { headers: { 'Idempotency-Key': key } },
    );
    expect(retry.status).toBe(201);
    expect(retry.body.data.id).toBe((await messages())[0]!.id);
    expect(await messages()).toHaveLength(1);
    expect(await relaysWithKey(key)).toHaveLength(1);
  });
});
