// Guests end to end, black box (the API, the admin API and the PMS simulator's control API):
// guest records (docs/guests.md), search and pagination, create and update with every validation
// failure, the PMS-F refusals of the contract on a guest that arrived by a PMS sync (proving through
// the simulator's request log that nothing reached the PMS), the matching of reservations'
// primary guests to profiles, and the inactive-listing rule for guests.
import { eventually, startTestStack, type ErrorBody, type TestStack } from './support/stack';
import { newWorld, pmsWrites, reserve, simulator, syncUntil, type World } from './support/guest-world';

interface ApiGuest {
  id: string;
  firstName: string;
  lastName: string;
  language: string;
  contacts: { type: string; value: string; isPrimary: boolean }[];
  pms: { provider: string; externalId: string } | null;
  createdAt: string;
}
interface Page<T> {
  data: T[];
  pagination: { total: number; limit: number; offset: number; hasMore: boolean };
}

describe('guests end to end', () => {
  let t: TestStack;
  let w: World;

  beforeAll(async () => {
    t = await startTestStack();
    w = await newWorld(t, [{ name: 'Beach' }, { name: 'Lake' }, { name: 'Fjord', provider: 'PMS-F' }]);
  });
  afterAll(async () => {
    await t.stop();
  });

  const names = (page: Page<ApiGuest>) => page.data.map((g) => `${g.firstName} ${g.lastName}`.trim());

  describe('POST /v1/guests', () => {
    it('creates a guest with language en by default, shaped as the contract says', async () => {
      const res = await w.api<{ data: ApiGuest }>('POST', '/v1/guests', { firstName: 'Amélie', lastName: 'Poulain' });
      expect(res.status).toBe(201);
      expect(res.body.data).toEqual({
        id: expect.stringMatching(/^gst_/),
        firstName: 'Amélie',
        lastName: 'Poulain',
        language: 'en',
        contacts: [],
        pms: null,
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/),
        updatedAt: expect.any(String),
        version: 1,
      });
      const got = await w.api<{ data: ApiGuest }>('GET', `/v1/guests/${res.body.data.id}`);
      expect(got.body.data).toEqual(res.body.data);
      const withLanguage = await w.api<{ data: ApiGuest }>('POST', '/v1/guests', {
        firstName: 'Jürgen',
        language: 'de',
        email: 'jurgen@example.de',
        phone: '+49 30 1234567',
      });
      expect(withLanguage.body.data).toMatchObject({
        language: 'de',
        contacts: [
          { type: 'EMAIL', value: 'jurgen@example.de', isPrimary: true },
          { type: 'PHONE', value: '+49 30 1234567', isPrimary: false },
        ],
      });
    });

    it.each([
      [{}, { firstName: 'is required' }],
      [{ firstName: '' }, { firstName: 'is required' }],
      [{ firstName: '   ' }, { firstName: 'is required' }],
      [{ firstName: 42 }, { firstName: 'must be a string' }],
      [{ firstName: 'A', language: 'english please' }, { language: 'must be a language tag such as en or pt-BR' }],
      [{ firstName: 'A', provider: 'PMS-Z' }, { provider: expect.stringContaining('PMS-A') }],
      [{ firstName: 'A', email: 'not-an-email' }, { email: 'must be an email address' }],
      [{ firstName: 'A', phone: 'call me' }, { phone: 'must be a phone number' }],
      [{ firstName: 'A', lastName: 'x'.repeat(101) }, { lastName: 'must be at most 100 characters' }],
      [{ firstName: 'A', nickname: 'Al' }, { 'body.nickname': 'is not a known field' }],
    ])('refuses %j with 400 validation_failed naming the field', async (body, fields) => {
      const res = await w.api<ErrorBody>('POST', '/v1/guests', body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.fields).toEqual(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k.startsWith('body.') ? k.slice(5) : k, v])));
    });

    it('refuses provider PMS-F with 422 pms_write_unsupported; nothing reaches the PMS, nothing is created', async () => {
      const before = await pmsWrites(t, w);
      const res = await w.api<ErrorBody>('POST', '/v1/guests', { firstName: 'Frida', provider: 'PMS-F' });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('pms_write_unsupported');
      expect(res.body.error.provider).toBe('PMS-F');
      expect(await pmsWrites(t, w)).toEqual(before);
      expect((await w.api<Page<ApiGuest>>('GET', '/v1/guests?search=frida')).body.data).toEqual([]);
    });

    it('creates a guest of another PMS in that PMS (the request log the refusals rely on moves)', async () => {
      const before = (await pmsWrites(t, w)).length;
      expect((await w.api('POST', '/v1/guests', { firstName: 'Greta', provider: 'PMS-A' })).status).toBe(201);
      expect(await pmsWrites(t, w)).toHaveLength(before + 1);
      expect((await simulator(t).account('PMS-A', w.account)).guests.map((g) => g.first_name)).toContain('Greta');
    });
    it('a PMS refusing a guest it could create: a clear envelope, nothing created here or there', async () => {
      const before = (await simulator(t).account('PMS-A', w.account)).guests.length;
      await simulator(t).refuseNext('PMS-A', {
        kind: 'guest.create',
        count: 1,
        status: 400,
        code: 'duplicate_email',
        reason: 'A guest with this email exists.',
      });
      const res = await w.api<ErrorBody>('POST', '/v1/guests', { firstName: 'Hugo', email: 'hugo@example.com', provider: 'PMS-A' });
      expect([res.status, res.body.error.code]).toEqual([502, 'pms_unavailable']);
      expect(res.body.error.message).toContain('A guest with this email exists.');
      expect(res.body.error.request_id).toEqual(expect.any(String));
      expect((await w.api<Page<ApiGuest>>('GET', '/v1/guests?search=hugo')).body.data).toEqual([]);
      expect((await simulator(t).account('PMS-A', w.account)).guests).toHaveLength(before);
    });
  });

  describe('PATCH /v1/guests/{id}', () => {
    it('updates a local guest', async () => {
      const { body } = await w.api<{ data: ApiGuest }>('POST', '/v1/guests', { firstName: 'Lena' });
      const res = await w.api<{ data: ApiGuest }>('PATCH', `/v1/guests/${body.data.id}`, { lastName: 'Søren', language: 'da' });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id: body.data.id, firstName: 'Lena', lastName: 'Søren', language: 'da' });
      expect(names((await w.api<Page<ApiGuest>>('GET', '/v1/guests?search=LENA%20soren')).body)).toEqual(['Lena Søren']);
    });

    it('refuses a guest linked to PMS-F with 422; nothing reaches the PMS, nothing changes', async () => {
      // The guest is created in PMS-F, and arrives with its next sync.
      await simulator(t).putGuest('PMS-F', w.account, 'f-guest-1', { first_name: 'Fenna', last_name: 'Fisher', email: 'fenna@example.com' });
      let fenna: ApiGuest | undefined;
      await syncUntil(
        t,
        w,
        'PMS-F',
        async () => (fenna = (await w.api<Page<ApiGuest>>('GET', '/v1/guests?search=fenna')).body.data[0]) !== undefined,
        'the PMS-F guest',
      );
      expect(fenna!.pms).toEqual({ provider: 'PMS-F', externalId: 'f-guest-1' });
      const before = await pmsWrites(t, w);
      const res = await w.api<ErrorBody>('PATCH', `/v1/guests/${fenna!.id}`, { firstName: 'Fen' });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'pms_write_unsupported', provider: 'PMS-F' });
      expect(await pmsWrites(t, w)).toEqual(before);
      expect((await simulator(t).account('PMS-F', w.account)).guests.map((g) => g.first_name)).toEqual(['Fenna']);
      expect((await w.api<{ data: ApiGuest }>('GET', `/v1/guests/${fenna!.id}`)).body.data.firstName).toBe('Fenna');
    });

    it.each([
      [{}, { body: 'must change at least one of firstName, lastName, language' }],
      [{ firstName: '' }, { firstName: 'must not be empty' }],
      [{ language: 'xx_YY' }, { language: 'must be a language tag such as en or pt-BR' }],
      [{ firstName: 'Val', provider: 'PMS-A' }, { provider: 'is not a known field' }],
    ])('refuses %j with 400 naming the field', async (body, fields) => {
      const { body: g } = await w.api<{ data: ApiGuest }>('POST', '/v1/guests', { firstName: 'Val' });
      const res = await w.api<ErrorBody>('PATCH', `/v1/guests/${g.data.id}`, body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.fields).toEqual(fields);
    });

    it('answers 404 for an unknown id and for another workspace’s guest', async () => {
      expect((await w.api<ErrorBody>('PATCH', '/v1/guests/gst_nope', { firstName: 'X' })).status).toBe(404);
      const { body: g } = await w.api<{ data: ApiGuest }>('POST', '/v1/guests', { firstName: 'Mine' });
      const theirs = await t.api<ErrorBody>('GET', `/v1/guests/${g.data.id}`);
      expect(theirs.status).toBe(404);
      expect(theirs.body.error.code).toBe('not_found');
      expect((await t.api<ErrorBody>('PATCH', `/v1/guests/${g.data.id}`, { firstName: 'X' })).status).toBe(404);
    });
  });

  describe('GET /v1/guests: search and pagination', () => {
    let s: World;
    beforeAll(async () => {
      s = await newWorld(t, []);
      for (const [firstName, lastName] of [
        ['José', 'García'],
        ['Zoë', 'Ångström'],
        ['Anna', 'Joseph'],
        ['Bob', 'Smith'],
        ['jose', 'LOPEZ'],
      ]) {
        await s.api('POST', '/v1/guests', { firstName, lastName });
      }
    });

    it('searches by name, case- and accent-insensitively, anywhere in the name', async () => {
      expect(names((await s.api<Page<ApiGuest>>('GET', '/v1/guests?search=JOSE')).body)).toEqual(['Anna Joseph', 'José García', 'jose LOPEZ']);
      expect(names((await s.api<Page<ApiGuest>>('GET', `/v1/guests?search=${encodeURIComponent('ångström')}`)).body)).toEqual(['Zoë Ångström']);
      expect(names((await s.api<Page<ApiGuest>>('GET', '/v1/guests?search=garcia')).body)).toEqual(['José García']);
      expect((await s.api<Page<ApiGuest>>('GET', '/v1/guests?search=.*')).body.data).toEqual([]);
    });

    it('pages with the same pagination object as every list, including the edges', async () => {
      const all = await s.api<Page<ApiGuest>>('GET', '/v1/guests');
      expect(all.body.pagination).toEqual({ total: 5, limit: 50, offset: 0, hasMore: false });
      const first = await s.api<Page<ApiGuest>>('GET', '/v1/guests?limit=2');
      expect(first.body.pagination).toEqual({ total: 5, limit: 2, offset: 0, hasMore: true });
      const last = await s.api<Page<ApiGuest>>('GET', '/v1/guests?limit=2&offset=4');
      expect(last.body.data).toHaveLength(1);
      expect(last.body.pagination).toEqual({ total: 5, limit: 2, offset: 4, hasMore: false });
      const exact = await s.api<Page<ApiGuest>>('GET', '/v1/guests?limit=5');
      expect(exact.body.pagination.hasMore).toBe(false);
      const past = await s.api<Page<ApiGuest>>('GET', '/v1/guests?offset=99');
      expect(past.body).toEqual({ data: [], pagination: { total: 5, limit: 50, offset: 99, hasMore: false } });
      // Pages neither repeat nor skip.
      const paged: string[] = [];
      for (let offset = 0; offset < 5; offset += 2)
        paged.push(...(await s.api<Page<ApiGuest>>('GET', `/v1/guests?limit=2&offset=${offset}`)).body.data.map((g) => g.id));
      expect(paged).toEqual(all.body.data.map((g) => g.id));
      const searched = await s.api<Page<ApiGuest>>('GET', '/v1/guests?search=jose&limit=1&offset=1');
      expect(searched.body.pagination).toEqual({ total: 3, limit: 1, offset: 1, hasMore: true });
    });

    it.each([
      ['limit=0', { limit: 'must be at least 1' }],
      ['limit=201', { limit: 'must be at most 200' }],
      ['limit=ten', { limit: 'must be an integer' }],
      ['offset=-1', { offset: 'must be at least 0' }],
      ['status=active', { status: 'is not a known parameter' }],
      [`search=${'a'.repeat(201)}`, { search: 'must be at most 200 characters' }],
    ])('refuses ?%s with 400 naming the parameter', async (qs, fields) => {
      const res = await s.api<ErrorBody>('GET', `/v1/guests?${qs}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.fields).toEqual(fields);
    });
  });

  describe('profiles from reservations and the inactive-listing rule', () => {
    let r: World;
    beforeAll(async () => {
      r = await newWorld(t, [{ name: 'North' }, { name: 'South' }]);
    });

    it('matches a primary guest by email (case-insensitive), else phone, else creates a profile', async () => {
      await reserve(r, r.listings.North!, { firstName: 'Kim', lastName: 'Lee', email: 'Kim@Example.com', phone: '+1 555 010 0001' });
      await reserve(r, r.listings.South!, { firstName: 'Kimberly', lastName: 'Lee', email: 'kim@example.COM' });
      await reserve(r, r.listings.North!, { firstName: 'K', phone: '+15550100001' });
      await reserve(r, r.listings.North!, { firstName: 'Ola', lastName: 'Nordmann', email: 'ola@example.no' });
      await reserve(r, r.listings.South!, { firstName: 'Sol', lastName: 'Sur', email: 'sol@example.es' });
      const page = await r.api<Page<ApiGuest>>('GET', '/v1/guests');
      expect(names(page.body)).toEqual(['Kim Lee', 'Ola Nordmann', 'Sol Sur']);
      expect(page.body.data[0]!.contacts).toEqual([
        { type: 'EMAIL', value: 'Kim@Example.com', isPrimary: true },
        { type: 'PHONE', value: '+1 555 010 0001', isPrimary: false },
      ]);
    });

    it('leaves out a guest whose every reservation is on an inactive listing, 403 on direct reads; a guest without reservations stays visible', async () => {
      const { body: loner } = await r.api<{ data: ApiGuest }>('POST', '/v1/guests', { firstName: 'Loner' });
      const sol = (await r.api<Page<ApiGuest>>('GET', '/v1/guests?search=sol')).body.data[0]!;
      const kim = (await r.api<Page<ApiGuest>>('GET', '/v1/guests?search=kim')).body.data[0]!;
      expect((await r.api('PATCH', `/v1/listings/${r.listings.South}`, { active: false })).status).toBe(200);
      await eventually(async () => (await r.api<Page<ApiGuest>>('GET', '/v1/guests')).body.data.every((g) => g.id !== sol.id), 5000, 'Sol to leave the list');

      const list = await r.api<Page<ApiGuest>>('GET', '/v1/guests');
      // Kim also has reservations on North (active); Loner has none.
      expect(names(list.body)).toEqual(['Kim Lee', 'Loner', 'Ola Nordmann']);
      expect(list.body.pagination.total).toBe(3);
      expect((await r.api<Page<ApiGuest>>('GET', '/v1/guests?search=sol')).body.pagination.total).toBe(0);
      const direct = await r.api<ErrorBody>('GET', `/v1/guests/${sol.id}`);
      expect(direct.status).toBe(403);
      expect(direct.body.error).toMatchObject({
        code: 'listing_inactive',
        listing_ids: [r.listings.South],
        listings: [{ id: r.listings.South, name: 'South' }],
      });
      // Not transient.
      expect((await r.api<ErrorBody>('GET', `/v1/guests/${sol.id}`)).status).toBe(403);
      const patch = await r.api<ErrorBody>('PATCH', `/v1/guests/${sol.id}`, { firstName: 'X' });
      expect(patch.status).toBe(403);
      expect((await r.api('GET', `/v1/guests/${kim.id}`)).status).toBe(200);
      expect((await r.api('GET', `/v1/guests/${loner.data.id}`)).status).toBe(200);
      // 404 before 403: the same id from another workspace.
      expect((await t.api<ErrorBody>('GET', `/v1/guests/${sol.id}`)).status).toBe(404);

      // Every listing of Kim inactive: hidden too, naming both listings.
      expect((await r.api('PATCH', `/v1/listings/${r.listings.North}`, { active: false })).status).toBe(200);
      await eventually(async () => (await r.api('GET', `/v1/guests/${kim.id}`)).status === 403, 5000, 'Kim to become hidden');
      const both = await r.api<ErrorBody>('GET', `/v1/guests/${kim.id}`);
      expect([...(both.body.error.listing_ids ?? [])].sort()).toEqual([r.listings.North, r.listings.South].sort());
      expect(names((await r.api<Page<ApiGuest>>('GET', '/v1/guests')).body)).toEqual(['Loner']);

      // Activation brings them back.
      await r.api('POST', '/v1/listings/status', { listingIds: [r.listings.North, r.listings.South], active: true });
      await eventually(async () => (await r.api<Page<ApiGuest>>('GET', '/v1/guests')).body.pagination.total === 4, 5000, 'guests to come back');
      expect((await r.api('GET', `/v1/guests/${sol.id}`)).status).toBe(200);
    });
  });
});
