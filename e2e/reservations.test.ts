// Reservations end to end over HTTP: the record and its status, their validation, the
// inactive-listing paths, the PMS refusals, idempotency and pagination edges.
// Black-box: listings are made through the admin API, PMS listings and PMS reservations in the
// PMS simulator (control API) and imported by the connection's sync.
import { eventually, startTestStack, type ErrorBody, type TestStack } from './support/stack';
import { listingWorkspace, simulatorOf, syncNow, type ListingSpec } from './support/workspaces';

interface Reservation {
  id: string;
  propertyId: string;
  status: string;
  source: string;
  confirmationCode: string;
  checkIn: string;
  checkOut: string;
  financials: {
    totalPrice: number;
    currency: string;
    breakdown: { basePrice: number; cleaningFee: number; taxes: { type: string; amount: number; rate: number }[] };
  };
  notes: { host: string; guest: string };
  customFields: Record<string, string>;
  updatedAt: string;
}
interface Page {
  data: Reservation[];
  pagination: { total: number; limit: number; offset: number; hasMore: boolean };
}
type Api = <T>(method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<{ status: number; body: T; headers: Headers }>;

describe('reservations end to end', () => {
  let t: TestStack;
  beforeAll(async () => {
    t = await startTestStack();
  });
  afterAll(async () => {
    await t.stop();
  });

  /** A workspace of its own with its listings (admin API, or imported from the simulator). */
  async function workspace(listings: ListingSpec[]) {
    const w = await listingWorkspace(t, listings);
    const api: Api = (method, path, body, headers) => w.api(method, path, body, headers ? { headers } : {});
    return { ...w, api };
  }

  const guest = { firstName: 'Ana', lastName: 'Silva', email: 'ana@example.com' };
  const fieldsOf = (res: { body: unknown }) => Object.keys((res.body as ErrorBody).error.fields ?? {}).sort();
  const ids = (res: { body: Page }) => res.body.data.map((r) => r.id);

  describe('create, read, change, cancel', () => {
    let w: Awaited<ReturnType<typeof workspace>>;
    beforeAll(async () => {
      w = await workspace([{ name: 'Sea', channelId: 'cha-77' }, { name: 'Town' }]);
    });

    it('POST creates a CONFIRMED reservation priced from the calendar with a confirmation code', async () => {
      const res = await w.api<{ data: Reservation }>('POST', '/v1/reservations', {
        propertyId: w.ids[0],
        checkIn: '2030-05-01',
        checkOut: '2030-05-04',
        primaryGuest: guest,
        occupancy: { adults: 2, children: 1, infants: 0, pets: 0 },
        source: 'MANUAL',
      });
      expect(res.status).toBe(201);
      const r = res.body.data;
      expect(r).toMatchObject({ propertyId: w.ids[0], status: 'CONFIRMED', source: 'MANUAL', checkIn: '2030-05-01', checkOut: '2030-05-04' });
      expect(r.confirmationCode).toMatch(/^[34679ACDEFGHJKMNPQRTWXY]{8}$/);
      // 3 nights x 100 + 50 cleaning, 10 % tax on both.
      expect(r.financials).toMatchObject({
        totalPrice: 385,
        currency: 'EUR',
        breakdown: { basePrice: 300, cleaningFee: 50, taxes: [{ type: 'TAX', amount: 35, rate: 0.1 }] },
      });
      const got = await w.api<{ data: Reservation }>('GET', `/v1/reservations/${r.id}`);
      expect(got.status).toBe(200);
      expect(got.body.data).toEqual(r);
    });

    it('accepts a channel id as propertyId and stores the listing id', async () => {
      const res = await w.api<{ data: Reservation }>('POST', '/v1/reservations', {
        propertyId: 'cha-77',
        checkIn: '2030-06-01',
        checkOut: '2030-06-02',
        primaryGuest: { firstName: 'Bo' },
      });
      expect(res.status).toBe(201);
      expect(res.body.data.propertyId).toBe(w.ids[0]);
    });

    it('PATCH changes status, dates, notes and custom fields, returned in reads', async () => {
      const { body } = await w.api<{ data: Reservation }>('POST', '/v1/reservations', {
        propertyId: w.ids[1],
        checkIn: '2030-07-01',
        checkOut: '2030-07-03',
        primaryGuest: guest,
      });
      const res = await w.api<{ data: Reservation }>('PATCH', `/v1/reservations/${body.data.id}`, {
        status: 'PENDING',
        checkOut: '2030-07-05',
        notes: { host: 'early check-in' },
        customFields: { door: '4321' },
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        status: 'PENDING',
        checkIn: '2030-07-01',
        checkOut: '2030-07-05',
        notes: { host: 'early check-in', guest: '' },
        customFields: { door: '4321' },
      });
      expect((await w.api<{ data: Reservation }>('GET', `/v1/reservations/${body.data.id}`)).body.data.customFields).toEqual({ door: '4321' });
      const cancelled = await w.api<{ data: Reservation }>('POST', `/v1/reservations/${body.data.id}/cancel`);
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.data.status).toBe('CANCELLED');
    });

    it('quotes a stay as a breakdown', async () => {
      const res = await w.api<{ data: { nights: number; totalPrice: number; breakdown: unknown; available: boolean } }>('POST', '/v1/reservations/quote', {
        propertyId: w.ids[0],
        checkIn: '2030-08-01',
        checkOut: '2030-08-03',
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        nights: 2,
        totalPrice: 275,
        available: true,
        breakdown: { basePrice: 200, cleaningFee: 50, fees: [], taxes: [{ type: 'TAX', amount: 25, rate: 0.1 }], discounts: [] },
      });
    });

    it('another workspace’s reservation and an unknown id are 404', async () => {
      const other = await workspace([{ name: 'Other' }]);
      const { body } = await other.api<{ data: Reservation }>('POST', '/v1/reservations', {
        propertyId: other.ids[0],
        checkIn: '2030-05-01',
        checkOut: '2030-05-02',
        primaryGuest: guest,
      });
      for (const [method, path, payload] of [
        ['GET', `/v1/reservations/${body.data.id}`, undefined],
        ['PATCH', `/v1/reservations/${body.data.id}`, { status: 'PENDING' }],
        ['POST', `/v1/reservations/${body.data.id}/cancel`, undefined],
        ['GET', '/v1/reservations/res_missing', undefined],
      ] as const) {
        const res = await w.api<ErrorBody>(method, path, payload);
        expect([path, res.status, res.body.error.code]).toEqual([path, 404, 'not_found']);
      }
      const missingListing = await w.api<ErrorBody>('POST', '/v1/reservations', {
        propertyId: other.ids[0],
        checkIn: '2030-05-01',
        checkOut: '2030-05-02',
        primaryGuest: guest,
      });
      expect(missingListing.status).toBe(404);
    });
  });

  describe('validation: 400 validation_failed naming each field', () => {
    let w: Awaited<ReturnType<typeof workspace>>;
    beforeAll(async () => {
      w = await workspace([{ name: 'V' }]);
    });
    const cases: [string, string, string, unknown, string[]][] = [
      ['list: bad dates', 'GET', '/v1/reservations?check_in_after=2030-02-30&check_in_before=tomorrow', undefined, ['check_in_after', 'check_in_before']],
      ['list: unknown status and source', 'GET', '/v1/reservations?status=BOOKED&source=FAX', undefined, ['source', 'status']],
      ['list: negative offset, limit over the maximum', 'GET', '/v1/reservations?offset=-1&limit=201', undefined, ['limit', 'offset']],
      ['list: limit 0 and not a number', 'GET', '/v1/reservations?limit=0&offset=abc', undefined, ['limit', 'offset']],
      ['list: bad updated_since', 'GET', '/v1/reservations?updated_since=yesterday', undefined, ['updated_since']],
      ['list: unknown parameter', 'GET', '/v1/reservations?guest=ana', undefined, ['guest']],
      ['create: required fields', 'POST', '/v1/reservations', {}, ['checkIn', 'checkOut', 'primaryGuest', 'propertyId']],
      [
        'create: unreal dates',
        'POST',
        '/v1/reservations',
        { propertyId: 'x', checkIn: '2030-13-01', checkOut: '2030-2-01', primaryGuest: guest },
        ['checkIn', 'checkOut'],
      ],
      [
        'create: empty first name, bad email',
        'POST',
        '/v1/reservations',
        { propertyId: 'x', checkIn: '2030-01-01', checkOut: '2030-01-02', primaryGuest: { firstName: '', email: 'nope' } },
        ['primaryGuest.email', 'primaryGuest.firstName'],
      ],
      [
        'create: occupancy not non-negative integers',
        'POST',
        '/v1/reservations',
        { propertyId: 'x', checkIn: '2030-01-01', checkOut: '2030-01-02', primaryGuest: guest, occupancy: { adults: -1, children: 1.5, infants: 'two' } },
        ['occupancy.adults', 'occupancy.children', 'occupancy.infants'],
      ],
      [
        'create: unknown source, platform, currency, field',
        'POST',
        '/v1/reservations',
        {
          propertyId: 'x',
          checkIn: '2030-01-01',
          checkOut: '2030-01-02',
          primaryGuest: guest,
          source: 'FAX',
          platform: 'agent',
          financials: { currency: 'euro' },
          vip: true,
        },
        ['financials.currency', 'platform', 'source', 'vip'],
      ],
      [
        'patch: POST_STAY, bad date, bad time',
        'PATCH',
        '/v1/reservations/res_x',
        { status: 'POST_STAY', checkIn: '2030-02-30', checkInTime: '7pm' },
        ['checkIn', 'checkInTime', 'status'],
      ],
      ['patch: empty body', 'PATCH', '/v1/reservations/res_x', {}, ['body']],
      ['quote: missing dates', 'POST', '/v1/reservations/quote', { propertyId: 'x' }, ['checkIn', 'checkOut']],
    ];
    it.each(cases)('%s', async (_what, method, path, body, fields) => {
      const res = await w.api<ErrorBody>(method, path, body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(fieldsOf(res)).toEqual(fields);
    });

    it('checkOut not after checkIn, on create and on a change (decided by the service)', async () => {
      const same = await w.api<ErrorBody>('POST', '/v1/reservations', {
        propertyId: w.ids[0],
        checkIn: '2030-01-05',
        checkOut: '2030-01-05',
        primaryGuest: guest,
      });
      expect([same.status, same.body.error.fields]).toEqual([400, { checkOut: 'must be after checkIn' }]);
      const { body } = await w.api<{ data: Reservation }>('POST', '/v1/reservations', {
        propertyId: w.ids[0],
        checkIn: '2030-01-05',
        checkOut: '2030-01-07',
        primaryGuest: guest,
      });
      const before = await w.api<ErrorBody>('PATCH', `/v1/reservations/${body.data.id}`, { checkOut: '2030-01-04' });
      expect([before.status, before.body.error.fields]).toEqual([400, { checkOut: 'must be after checkIn' }]);
    });
  });

  describe('GET /v1/reservations: every query parameter and the page edges', () => {
    let w: Awaited<ReturnType<typeof workspace>>;
    const made: Record<string, Reservation> = {};
    beforeAll(async () => {
      w = await workspace([{ name: 'P1' }, { name: 'P2' }]);
      const create = async (name: string, body: Record<string, unknown>) => {
        const res = await w.api<{ data: Reservation }>('POST', '/v1/reservations', { primaryGuest: guest, ...body });
        expect(res.status).toBe(201);
        made[name] = res.body.data;
      };
      await create('past', { propertyId: w.ids[0], checkIn: '2020-03-01', checkOut: '2020-03-04', source: 'CHANNEL_A' });
      await create('soon', { propertyId: w.ids[0], checkIn: '2030-03-01', checkOut: '2030-03-04', source: 'CHANNEL_B' });
      await create('later', { propertyId: w.ids[1], checkIn: '2030-04-01', checkOut: '2030-04-03', source: 'DIRECT' });
      await create('latest', { propertyId: w.ids[1], checkIn: '2031-01-10', checkOut: '2031-01-12', source: 'CHANNEL_A' });
      await w.api('PATCH', `/v1/reservations/${made.later!.id}`, { status: 'PENDING' });
      await w.api('POST', `/v1/reservations/${made.latest!.id}/cancel`);
    });

    it('defaults: limit 50, offset 0, check-in order, POST_STAY for ended stays', async () => {
      const res = await w.api<Page>('GET', '/v1/reservations');
      expect(res.status).toBe(200);
      expect(ids(res)).toEqual([made.past!.id, made.soon!.id, made.later!.id, made.latest!.id]);
      expect(res.body.pagination).toEqual({ total: 4, limit: 50, offset: 0, hasMore: false });
      expect(res.body.data.map((r) => r.status)).toEqual(['POST_STAY', 'CONFIRMED', 'PENDING', 'CANCELLED']);
    });

    it('status, including POST_STAY', async () => {
      expect(ids(await w.api<Page>('GET', '/v1/reservations?status=POST_STAY'))).toEqual([made.past!.id]);
      expect(ids(await w.api<Page>('GET', '/v1/reservations?status=CONFIRMED'))).toEqual([made.soon!.id]);
      expect(ids(await w.api<Page>('GET', '/v1/reservations?status=PENDING'))).toEqual([made.later!.id]);
      expect(ids(await w.api<Page>('GET', '/v1/reservations?status=CANCELLED'))).toEqual([made.latest!.id]);
    });

    it('property_id, check_in_after / check_in_before (inclusive), source, updated_since', async () => {
      expect(ids(await w.api<Page>('GET', `/v1/reservations?property_id=${w.ids[1]}`))).toEqual([made.later!.id, made.latest!.id]);
      expect(ids(await w.api<Page>('GET', '/v1/reservations?check_in_after=2030-03-01'))).toEqual([made.soon!.id, made.later!.id, made.latest!.id]);
      expect(ids(await w.api<Page>('GET', '/v1/reservations?check_in_before=2030-04-01'))).toEqual([made.past!.id, made.soon!.id, made.later!.id]);
      expect(ids(await w.api<Page>('GET', '/v1/reservations?check_in_after=2030-01-01&check_in_before=2030-12-31'))).toEqual([made.soon!.id, made.later!.id]);
      expect(ids(await w.api<Page>('GET', '/v1/reservations?source=CHANNEL_A'))).toEqual([made.past!.id, made.latest!.id]);
      const soon = (await w.api<{ data: Reservation }>('GET', `/v1/reservations/${made.soon!.id}`)).body.data;
      const since = await w.api<Page>('GET', `/v1/reservations?updated_since=${encodeURIComponent(soon.updatedAt)}`);
      expect(ids(since).sort()).toEqual([made.later!.id, made.latest!.id].sort());
      expect(ids(await w.api<Page>('GET', `/v1/reservations?property_id=${w.ids[0]}&source=CHANNEL_B&status=CONFIRMED`))).toEqual([made.soon!.id]);
    });

    it('pagination: a middle page, the last page, an empty page past the end, limit at its maximum', async () => {
      const first = await w.api<Page>('GET', '/v1/reservations?limit=3&offset=0');
      expect(ids(first)).toEqual([made.past!.id, made.soon!.id, made.later!.id]);
      expect(first.body.pagination).toEqual({ total: 4, limit: 3, offset: 0, hasMore: true });
      const last = await w.api<Page>('GET', '/v1/reservations?limit=3&offset=3');
      expect(ids(last)).toEqual([made.latest!.id]);
      expect(last.body.pagination).toEqual({ total: 4, limit: 3, offset: 3, hasMore: false });
      const empty = await w.api<Page>('GET', '/v1/reservations?limit=3&offset=10');
      expect(empty.body).toEqual({ data: [], pagination: { total: 4, limit: 3, offset: 10, hasMore: false } });
      const max = await w.api<Page>('GET', '/v1/reservations?limit=200');
      expect(max.body.pagination).toEqual({ total: 4, limit: 200, offset: 0, hasMore: false });
      const none = await w.api<Page>('GET', '/v1/reservations?status=CONFIRMED&source=DIRECT');
      expect(none.body).toEqual({ data: [], pagination: { total: 0, limit: 50, offset: 0, hasMore: false } });
    });
  });

  describe('reservations of an inactive listing', () => {
    it('are left out of lists; a filter on the listing, a read, a change, a cancel, a quote and a create are 403', async () => {
      const w = await workspace([{ name: 'Stays', channelId: 'cha-off' }, { name: 'Open' }]);
      const mk = async (propertyId: string) =>
        (await w.api<{ data: Reservation }>('POST', '/v1/reservations', { propertyId, checkIn: '2030-09-01', checkOut: '2030-09-03', primaryGuest: guest }))
          .body.data;
      const onOff = await mk(w.ids[0]!);
      const onOpen = await mk(w.ids[1]!);
      expect((await w.api('PATCH', `/v1/listings/${w.ids[0]}`, { active: false })).status).toBe(200);

      // The reservation service learns it from listing.activity.v1.
      await eventually(async () => ids(await w.api<Page>('GET', '/v1/reservations')).join() === onOpen.id, 5000, 'the reservation left out');
      const expect403 = async (method: string, path: string, body?: unknown) => {
        const res = await w.api<ErrorBody>(method, path, body);
        expect([path, res.status, res.body.error.code, res.body.error.listing_ids]).toEqual([path, 403, 'listing_inactive', [w.ids[0]]]);
        expect(res.body.error.listings).toEqual([{ id: w.ids[0], name: 'Stays' }]);
      };
      await expect403('GET', `/v1/reservations?property_id=${w.ids[0]}`);
      await expect403('GET', '/v1/reservations?property_id=cha-off');
      await expect403('GET', `/v1/reservations/${onOff.id}`);
      await expect403('PATCH', `/v1/reservations/${onOff.id}`, { notes: { host: 'x' } });
      await expect403('POST', `/v1/reservations/${onOff.id}/cancel`);
      await expect403('POST', '/v1/reservations/quote', { propertyId: w.ids[0], checkIn: '2030-10-01', checkOut: '2030-10-02' });
      await expect403('POST', '/v1/reservations', { propertyId: w.ids[0], checkIn: '2030-10-01', checkOut: '2030-10-02', primaryGuest: guest });
      await expect403('PATCH', `/v1/reservations/${onOpen.id}`, { propertyId: w.ids[0] });

      // Activation brings them back.
      await w.api('PATCH', `/v1/listings/${w.ids[0]}`, { active: true });
      await eventually(async () => ids(await w.api<Page>('GET', '/v1/reservations')).length === 2, 5000, 'both reservations listed');
      expect(ids(await w.api<Page>('GET', '/v1/reservations')).sort()).toEqual([onOff.id, onOpen.id].sort());
      expect((await w.api('GET', `/v1/reservations/${onOff.id}`)).status).toBe(200);
    });
  });

  describe('PMS refusals decided from the capability matrix, nothing sent to the PMS', () => {
    let w: Awaited<ReturnType<typeof workspace>>;
    beforeAll(async () => {
      w = await workspace(['A', 'B', 'C', 'D', 'E', 'F'].map((p) => ({ name: `PMS-${p} home`, pmsProvider: `PMS-${p}` })));
    });
    const stay = { checkIn: '2030-11-01', checkOut: '2030-11-03', primaryGuest: guest };
    const on = (provider: string) => w.ids['ABCDEF'.indexOf(provider)]!;

    const refusals: [string, string, string, (ids: (p: string) => string) => unknown, string][] = [
      ['owner block on a PMS listing', 'POST', '/v1/reservations', (id) => ({ ...stay, propertyId: id('B'), platform: 'owner' }), 'PMS-B'],
      ['unitId on PMS-F', 'POST', '/v1/reservations', (id) => ({ ...stay, propertyId: id('F'), unitId: 'u-2' }), 'PMS-F'],
      ['unitId on PMS-E', 'POST', '/v1/reservations', (id) => ({ ...stay, propertyId: id('E'), unitId: 'u-2', financials: { totalPrice: 300 } }), 'PMS-E'],
      [
        'tentative hold on PMS-E',
        'POST',
        '/v1/reservations',
        (id) => ({ ...stay, propertyId: id('E'), tentativeHold: true, financials: { totalPrice: 300 } }),
        'PMS-E',
      ],
      ['group booking on PMS-A', 'POST', '/v1/reservations', (id) => ({ ...stay, propertyId: id('A'), groupId: 'grp-9' }), 'PMS-A'],
      ['group booking on PMS-C', 'POST', '/v1/reservations', (id) => ({ ...stay, propertyId: id('C'), groupId: 'grp-9' }), 'PMS-C'],
      ['quote on PMS-C', 'POST', '/v1/reservations/quote', (id) => ({ propertyId: id('C'), checkIn: '2030-11-01', checkOut: '2030-11-03' }), 'PMS-C'],
      ['quote on PMS-D', 'POST', '/v1/reservations/quote', (id) => ({ propertyId: id('D'), checkIn: '2030-11-01', checkOut: '2030-11-03' }), 'PMS-D'],
      ['quote on PMS-E', 'POST', '/v1/reservations/quote', (id) => ({ propertyId: id('E'), checkIn: '2030-11-01', checkOut: '2030-11-03' }), 'PMS-E'],
    ];
    it.each(refusals)('%s -> 422 pms_write_unsupported naming the PMS; nothing stored', async (_what, method, path, body, provider) => {
      const before = (await w.api<Page>('GET', '/v1/reservations')).body.pagination.total;
      await t.pms.clearRequests();
      const res = await w.api<ErrorBody>(method, path, body(on));
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('pms_write_unsupported');
      expect(res.body.error.provider).toBe(provider);
      expect((await w.api<Page>('GET', '/v1/reservations')).body.pagination.total).toBe(before);
      // Nothing reached the PMS (its own request log).
      expect(await t.pms.requests({ account: w.account })).toEqual([]);
    });

    /** A reservation made in the PMS (simulator), arriving with the connection's next sync. */
    async function syncedFromPms(provider: string, externalId: string): Promise<Reservation> {
      await simulatorOf(t).putReservation(provider, w.account, externalId, {
        listing_id: `ext-${provider} home`,
        arrival: '2030-11-10',
        departure: '2030-11-12',
        source: 'CHANNEL_A',
        guest: { first_name: 'Pia' },
        adults: 1,
        total: 250,
        currency: 'EUR',
      });
      expect((await syncNow(t, w.id, w.connections.get(provider)!)).status).toBe(200);
      let found: Reservation | undefined;
      await eventually(
        async () => {
          const page = await w.api<Page>('GET', `/v1/reservations?property_id=${on(provider.slice(-1))}`);
          found = page.body.data.find((r) => (r as unknown as { pms: { externalId: string } | null }).pms?.externalId === externalId);
          return !!found;
        },
        5000,
        `the ${provider} reservation ${externalId}`,
      );
      return found!;
    }

    it('a PMS reservation arrives with the sync; changes its PMS cannot make are refused and it stays as it was', async () => {
      const onA = await syncedFromPms('PMS-A', 'a-1');
      const onB = await syncedFromPms('PMS-B', 'b-1');
      const refused: [string, string, unknown, string][] = [
        ['POST', `/v1/reservations/${onA.id}/cancel`, undefined, 'PMS-A'],
        ['PATCH', `/v1/reservations/${onA.id}`, { status: 'CANCELLED' }, 'PMS-A'],
        ['PATCH', `/v1/reservations/${onB.id}`, { checkIn: '2030-11-09' }, 'PMS-B'],
        ['PATCH', `/v1/reservations/${onB.id}`, { propertyId: on('A') }, 'PMS-B'],
        ['PATCH', `/v1/reservations/${onA.id}`, { checkInTime: '16:00' }, 'PMS-A'],
        ['PATCH', `/v1/reservations/${onB.id}`, { checkOutTime: '09:00' }, 'PMS-B'],
      ];
      for (const [method, path, body, provider] of refused) {
        const res = await w.api<ErrorBody>(method, path, body);
        expect([method, path, res.status, res.body.error.code, res.body.error.provider]).toEqual([method, path, 422, 'pms_write_unsupported', provider]);
      }
      expect((await w.api<{ data: Reservation }>('GET', `/v1/reservations/${onA.id}`)).body.data).toEqual(onA);
      expect((await w.api<{ data: Reservation }>('GET', `/v1/reservations/${onB.id}`)).body.data).toEqual(onB);
    });

    it('PMS-E without totalPrice: 400 naming financials.totalPrice', async () => {
      const res = await w.api<ErrorBody>('POST', '/v1/reservations', { ...stay, propertyId: on('E') });
      expect([res.status, res.body.error.fields]).toEqual([400, { 'financials.totalPrice': 'is required on listings managed by PMS-E' }]);
    });
  });

  describe('Idempotency-Key on POST', () => {
    it('the same key and body returns the first response; another body with it is 409', async () => {
      const w = await workspace([{ name: 'Idem' }]);
      const body = { propertyId: w.ids[0], checkIn: '2030-12-01', checkOut: '2030-12-03', primaryGuest: guest };
      const first = await w.api<{ data: Reservation }>('POST', '/v1/reservations', body, { 'Idempotency-Key': 'idem-1' });
      const again = await w.api<{ data: Reservation }>('POST', '/v1/reservations', body, { 'Idempotency-Key': 'idem-1' });
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(again.body.data).toEqual(first.body.data);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      const other = await w.api<ErrorBody>('POST', '/v1/reservations', { ...body, checkOut: '2030-12-04' }, { 'Idempotency-Key': 'idem-1' });
      expect(other.status).toBe(409);
      expect(other.body.error.code).toBe('idempotency_conflict');
      expect((await w.api<Page>('GET', '/v1/reservations')).body.pagination.total).toBe(1);

      const cancel1 = await w.api<{ data: Reservation }>('POST', `/v1/reservations/${first.body.data.id}/cancel`, undefined, { 'Idempotency-Key': 'idem-2' });
      const cancel2 = await w.api<{ data: Reservation }>('POST', `/v1/reservations/${first.body.data.id}/cancel`, undefined, { 'Idempotency-Key': 'idem-2' });
      expect(cancel2.body).toEqual(cancel1.body);
    });
  });
});
