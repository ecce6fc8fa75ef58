// Listings end to end over HTTP: listing activity, the listing rows, the listing paths of
// listing_inactive (docs/api.md, "Listings are active or inactive") and the plan limit under concurrency. Black-box: listings come from the
// demo seed, the admin API and the PMS simulator. (The activity event on listing.activity.v1 is
// proven in the listing service's component test.)
import { eventually, startTestStack, type ErrorBody, type TestStack } from './support/stack';
import { connectPms, listingWorkspace, newWorkspace, simulatorOf, type ListingSpec } from './support/workspaces';

interface Row {
  id: string;
  name: string;
  status: 'active' | 'inactive';
  channels: { channel: string; externalId: string }[];
}

describe('listings end to end', () => {
  let t: TestStack;
  let seaView: string;
  let oldTown: string;
  let cabin: string;

  beforeAll(async () => {
    t = await startTestStack();
    const demo = (await t.api<{ data: Row[] }>('GET', '/v1/listings?status=all&limit=200')).body.data;
    const idOf = (name: string) => demo.find((l) => l.name === name)!.id;
    [seaView, oldTown, cabin] = [idOf('Sea View Apartment'), idOf('Old Town Loft'), idOf('Mountain Cabin')];
  });
  afterAll(async () => {
    await t.stop();
  });

  /** A workspace of its own, with a key and its listings made through the admin API. */
  async function workspace(limit: number, listings: ListingSpec[]) {
    const w = await listingWorkspace(t, listings, limit);
    const api = <T>(method: string, path: string, body?: unknown) => w.api<T>(method, path, body);
    return { id: w.id, ids: w.ids, api };
  }

  describe('activity state machine', () => {
    it('owner deactivation: active -> inactive, no longer billed, stops counting toward the limit', async () => {
      const w = await workspace(2, [{ name: 'A' }, { name: 'B' }]);
      expect(
        (await t.admin<{ data: { testUsage: { activeListings: number; billableListings: number } } }>('GET', `/admin/v1/workspaces/${w.id}`)).body.data
          .testUsage,
      ).toMatchObject({ activeListings: 2, billableListings: 2 });
      const res = await w.api<{ data: Row }>('PATCH', `/v1/listings/${w.ids[0]}`, { active: false });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ id: w.ids[0], name: 'A', status: 'inactive', channels: [] });
      const usage = await t.admin<{ data: { testUsage: Record<string, number> } }>('GET', `/admin/v1/workspaces/${w.id}`);
      expect(usage.body.data.testUsage).toEqual({ activeListings: 1, inactiveListings: 1, billableListings: 1, activeListingLimit: 2 });
    });

    it('activation when the plan can hold another listing: inactive -> active', async () => {
      const w = await workspace(2, [{ name: 'A', inactive: true }]);
      const res = await w.api<{ data: Row }>('PATCH', `/v1/listings/${w.ids[0]}`, { active: true });
      expect(res.status).toBe(200);
      expect(res.body.data.status).toBe('active');
    });

    it('activation at the plan limit: stays inactive, 402 listings_limit_exceeded', async () => {
      const w = await workspace(1, [{ name: 'A' }, { name: 'B', inactive: true }]);
      const res = await w.api<ErrorBody>('PATCH', `/v1/listings/${w.ids[1]}`, { active: true });
      expect(res.status).toBe(402);
      expect(res.body.error.code).toBe('listings_limit_exceeded');
      const row = await w.api<{ data: Row[] }>('GET', '/v1/listings?status=inactive');
      expect(row.body.data.map((r) => r.id)).toEqual([w.ids[1]]);
    });

    it('a listing imported while unlisted on its channel starts inactive', async () => {
      const res = await t.api<{ data: Row[] }>('GET', '/v1/listings?status=inactive');
      expect(res.body.data.map((r) => r.id)).toEqual([cabin]);
    });

    it('disconnecting the connected account makes its listings inactive', async () => {
      const pms = simulatorOf(t);
      const w = await newWorkspace(t, 'PMS Co', 5);
      // Two accounts of the same PMS; only the first is disconnected.
      for (const [account, id, name] of [
        [`${w.id}-1`, 'b-1', 'Managed'],
        [`${w.id}-2`, 'b-2', 'Other account'],
      ] as const) {
        await pms.createAccount('PMS-B', account);
        await pms.putListing('PMS-B', account, id, { name });
      }
      const first = await connectPms(t, w.id, 'PMS-B', `${w.id}-1`);
      await connectPms(t, w.id, 'PMS-B', `${w.id}-2`);
      let rows: (Row & { pms?: { externalId: string } })[] = [];
      await eventually(
        async () => (rows = (await w.api<{ data: typeof rows }>('GET', '/v1/listings?status=all')).body.data).length === 2,
        5000,
        'both imports',
      );
      const listing = rows.find((r) => r.pms?.externalId === 'b-1')!;
      const other = rows.find((r) => r.pms?.externalId === 'b-2')!;
      const disconnected = await t.admin<{ data: { deactivatedListingIds: string[] } }>('DELETE', `/admin/v1/workspaces/${w.id}/connections/${first}`);
      expect(disconnected.body.data.deactivatedListingIds).toEqual([listing.id]);
      const res = await w.api<ErrorBody>('GET', `/v1/listings/${listing.id}`);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('listing_inactive');
      expect((await w.api('GET', `/v1/listings/${other.id}`)).status).toBe(200);
    });
  });

  describe('admin API: creating a listing no PMS manages', () => {
    it('creates it in the mode asked, takes a plan slot, and refuses a full plan, a taken channel id and bad input', async () => {
      const w = await newWorkspace(t, 'Admin listings', 1);
      const create = (body: object) =>
        t.admin<ErrorBody & { data: Row & { currency: string } }>('POST', `/admin/v1/workspaces/${w.id}/listings`, { mode: 'test', ...body });
      const made = await create({ name: 'Harbour Flat', currency: 'NOK', channels: [{ channel: 'CHANNEL_B', externalId: 'chb-harbour' }] });
      expect(made.status).toBe(201);
      expect(made.body.data).toMatchObject({
        name: 'Harbour Flat',
        status: 'active',
        currency: 'NOK',
        channels: [{ channel: 'CHANNEL_B', externalId: 'chb-harbour' }],
      });
      // The test key sees it, by id and by its channel id.
      expect((await w.api<{ data: Row }>('GET', '/v1/listings/chb-harbour')).body.data.id).toBe(made.body.data.id);
      const full = await create({ name: 'Second' });
      expect([full.status, full.body.error.code]).toEqual([402, 'listings_limit_exceeded']);
      const taken = await create({ name: 'Copy', active: false, channels: [{ channel: 'CHANNEL_A', externalId: 'chb-harbour' }] });
      expect([taken.status, taken.body.error.code]).toEqual([409, 'conflict']);
      const bad = await create({ name: ' ', currency: 'euro', taxRate: 2, colour: 'red' });
      expect(bad.status).toBe(400);
      expect(Object.keys(bad.body.error.fields ?? {}).sort()).toEqual(['colour', 'currency', 'name', 'taxRate']);
      expect((await w.api<{ data: Row[] }>('GET', '/v1/listings?status=all')).body.data.map((r) => r.name)).toEqual(['Harbour Flat']);
      expect((await t.admin<ErrorBody>('POST', '/admin/v1/workspaces/ws_nope/listings', { mode: 'test', name: 'X' })).status).toBe(404);
      // Not even served where API keys are used: the admin API is on the private listener only.
      const withKey = await t.api<ErrorBody>('POST', `/admin/v1/workspaces/${w.id}/listings`, { mode: 'test', name: 'X' });
      expect([withKey.status, withKey.body.error.code]).toEqual([404, 'route_not_found']);
    });
  });

  describe('listing rows', () => {
    it('GET /v1/listings and /v1/properties: active by default, inactive and all on request', async () => {
      for (const path of ['/v1/listings', '/v1/properties']) {
        expect((await t.api<{ data: Row[] }>('GET', path)).body.data.map((r) => r.id)).toEqual([seaView, oldTown]);
        expect((await t.api<{ data: Row[] }>('GET', `${path}?status=inactive`)).body.data.map((r) => r.id)).toEqual([cabin]);
        expect((await t.api<{ data: Row[] }>('GET', `${path}?status=all`)).body.data.map((r) => r.id)).toEqual([seaView, oldTown, cabin]);
      }
    });

    it('rejects an unknown status filter naming the parameter', async () => {
      const res = await t.api<ErrorBody>('GET', '/v1/listings?status=archived');
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.error.fields ?? {})).toEqual(['status']);
    });

    it('GET /v1/listings/{id} includes capabilities; GET /v1/properties/{id} is 403 when inactive', async () => {
      const one = await t.api<{ data: { capabilities: { reservations: { cancel: boolean } } } }>('GET', `/v1/listings/${seaView}`);
      expect(one.status).toBe(200);
      expect(one.body.data.capabilities.reservations.cancel).toBe(true);
      expect((await t.api<ErrorBody>('GET', `/v1/properties/${cabin}`)).status).toBe(403);
    });

    it('POST /v1/listings/status: all or nothing, {active, updated, unchanged}', async () => {
      const w = await workspace(3, [{ name: 'A' }, { name: 'B' }, { name: 'C', inactive: true }]);
      const unknown = await w.api<ErrorBody>('POST', '/v1/listings/status', { listingIds: [w.ids[0], 'lst_missing'], active: false });
      expect(unknown.status).toBe(404);
      expect((await w.api<{ data: Row[] }>('GET', '/v1/listings')).body.data).toHaveLength(2);
      const res = await w.api<{ active: boolean; updated: string[]; unchanged: string[] }>('POST', '/v1/listings/status', {
        listingIds: [w.ids[0], w.ids[2]],
        active: false,
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ active: false, updated: [w.ids[0]], unchanged: [w.ids[2]] });
      const over = await workspace(1, [
        { name: 'X', inactive: true },
        { name: 'Y', inactive: true },
      ]);
      const refused = await over.api<ErrorBody>('POST', '/v1/listings/status', { listingIds: over.ids, active: true });
      expect(refused.status).toBe(402);
      expect((await over.api<{ data: Row[] }>('GET', '/v1/listings')).body.data).toEqual([]);
    });

    it('DELETE /v1/listings/{id} works on an inactive listing and frees nothing it did not hold', async () => {
      const w = await workspace(1, [{ name: 'A' }, { name: 'B', inactive: true }]);
      expect((await w.api('DELETE', `/v1/listings/${w.ids[1]}`)).status).toBe(200);
      expect((await w.api<ErrorBody>('GET', `/v1/listings/${w.ids[1]}`)).status).toBe(404);
      expect((await w.api('DELETE', `/v1/listings/${w.ids[0]}`)).status).toBe(200);
      const usage = await t.admin<{ data: { testUsage: Record<string, number> } }>('GET', `/admin/v1/workspaces/${w.id}`);
      expect(usage.body.data.testUsage.activeListings).toBe(0);
    });

    it('PATCH /v1/availability/batch writes nothing when any listing is inactive, naming every one', async () => {
      const w = await workspace(5, [{ name: 'A' }, { name: 'B', inactive: true }, { name: 'C', inactive: true }]);
      const res = await w.api<ErrorBody>('PATCH', '/v1/availability/batch', {
        updates: w.ids.map((id) => ({ listingId: id, from: '2027-01-01', to: '2027-01-03', price: 180 })),
      });
      expect(res.status).toBe(403);
      expect(res.body.error.listing_ids).toEqual([w.ids[1], w.ids[2]]);
      expect(res.body.error.listings).toEqual([
        { id: w.ids[1], name: 'B' },
        { id: w.ids[2], name: 'C' },
      ]);
      const cal = await w.api<{ data: { days: { price: number }[] } }>('GET', `/v1/listings/${w.ids[0]}/calendar?from=2027-01-01&to=2027-01-03`);
      expect(cal.body.data.days.map((d) => d.price)).toEqual([100, 100, 100]);
      const okRes = await w.api<{ data: { daysUpdated: number } }>('PATCH', '/v1/availability/batch', {
        updates: [{ listingId: w.ids[0], from: '2027-01-01', to: '2027-01-03', price: 180 }],
      });
      expect(okRes.body.data.daysUpdated).toBe(3);
    });

    it('PUT /v1/listings/{id}/content: 422 and nothing stored when the PMS can store no section; everything stored without a PMS', async () => {
      const w = await listingWorkspace(t, [{ name: 'Plain' }, { name: 'Managed by PMS-G', pmsProvider: 'PMS-G' }], 5);
      const key = w.key;
      const [listing, managed] = w.ids.map((id) => ({ id }));
      // PMS-G cannot store room counts nor text in a non-default language: nothing applied -> 422.
      const refused = await t.api<ErrorBody>(
        'PUT',
        `/v1/listings/${managed!.id}/content`,
        { sections: { rooms: { bedrooms: 2, bathrooms: 1, beds: 2 }, translations: { fr: { description: 'Appartement' } } } },
        { key },
      );
      expect(refused.status).toBe(422);
      expect(refused.body.error).toMatchObject({ code: 'pms_write_unsupported', provider: 'PMS-G' });
      expect(refused.body.error.fix).toContain('PMS-G');
      expect((await t.api<{ data: { sections: object } }>('GET', `/v1/listings/${managed!.id}/content`, undefined, { key })).body.data.sections).toEqual({});
      const stored = await t.api<{ data: { applied: string[]; deferred: string[]; pms: null } }>(
        'PUT',
        `/v1/listings/${listing!.id}/content`,
        { sections: { description: 'Sunny flat', rooms: { bedrooms: 2, bathrooms: 1.5, beds: 3 } } },
        { key },
      );
      expect(stored.status).toBe(200);
      expect(stored.body.data).toMatchObject({ applied: ['description', 'rooms'], deferred: [], pms: null });
      const bad = await t.api<ErrorBody>(
        'PUT',
        `/v1/listings/${listing!.id}/content`,
        { sections: { rooms: { bedrooms: -1, bathrooms: 1, beds: 1 } } },
        { key },
      );
      expect(bad.status).toBe(400);
    });

    it('photos and publish', async () => {
      const added = await t.api<{ data: { id: string } }>('POST', `/v1/listings/${seaView}/photos`, {
        url: 'https://img.example.com/1.jpg',
        caption: 'Living room',
      });
      expect(added.status).toBe(201);
      expect((await t.api<{ data: unknown[] }>('GET', `/v1/listings/${seaView}/photos`)).body.data).toHaveLength(1);
      expect((await t.api<ErrorBody>('POST', `/v1/listings/${seaView}/photos`, { url: 'http://img.example.com/1.jpg' })).status).toBe(400);
      expect((await t.api('DELETE', `/v1/listings/${seaView}/photos/${added.body.data.id}`)).status).toBe(200);
      const published = await t.api<{ data: { channels: string[] } }>('POST', `/v1/listings/${seaView}/publish`);
      expect(published.status).toBe(200);
      expect(published.body.data.channels).toEqual(['CHANNEL_A']);
    });
  });

  describe('listing paths of listing_inactive', () => {
    it('by listing id and by a mapped channel id, repeating until activated', async () => {
      for (const id of [cabin, 'chc-3003']) {
        const first = await t.api<ErrorBody>('GET', `/v1/listings/${id}`);
        const again = await t.api<ErrorBody>('GET', `/v1/listings/${id}`);
        for (const res of [first, again]) {
          expect(res.status).toBe(403);
          expect(res.body.error).toMatchObject({ code: 'listing_inactive', listing_ids: [cabin], listings: [{ id: cabin, name: 'Mountain Cabin' }] });
        }
      }
    });

    it('through the data of the listing: calendar, content, photos, publish', async () => {
      const paths: [string, string, unknown?][] = [
        ['GET', `/v1/listings/${cabin}/calendar?from=2027-01-01&to=2027-01-02`],
        ['GET', `/v1/listings/${cabin}/content`],
        ['PUT', `/v1/listings/${cabin}/content`, { sections: { description: 'x' } }],
        ['GET', `/v1/listings/${cabin}/photos`],
        ['POST', `/v1/listings/${cabin}/photos`, { url: 'https://img.example.com/2.jpg' }],
        ['POST', `/v1/listings/${cabin}/publish`],
      ];
      for (const [method, path, body] of paths) {
        const res = await t.api<ErrorBody>(method, path, body);
        expect([method, path, res.status, res.body.error.code]).toEqual([method, path, 403, 'listing_inactive']);
      }
    });

    it('404 before 403, and never another workspace’s ids', async () => {
      expect((await t.api<ErrorBody>('GET', '/v1/listings/lst_nope/calendar?from=2027-01-01&to=2027-01-02')).status).toBe(404);
      const other = await workspace(1, []);
      expect((await other.api<ErrorBody>('GET', `/v1/listings/${cabin}`)).status).toBe(404);
      expect((await other.api<ErrorBody>('PATCH', `/v1/listings/${cabin}`, { active: true })).status).toBe(404);
    });

    it('toggles work on inactive listings and the data is back after activation', async () => {
      const w = await workspace(2, [{ name: 'A', channelId: 'cha-toggle' }]);
      await w.api('PATCH', '/v1/availability/batch', { updates: [{ listingId: w.ids[0], from: '2027-02-01', to: '2027-02-01', price: 250 }] });
      await w.api('PATCH', `/v1/listings/cha-toggle`, { active: false });
      expect((await w.api<ErrorBody>('GET', `/v1/listings/${w.ids[0]}/calendar?from=2027-02-01&to=2027-02-01`)).status).toBe(403);
      expect((await w.api('PATCH', `/v1/listings/cha-toggle`, { active: true })).status).toBe(200);
      const cal = await w.api<{ data: { days: { price: number }[] } }>('GET', `/v1/listings/${w.ids[0]}/calendar?from=2027-02-01&to=2027-02-01`);
      expect(cal.body.data.days[0]!.price).toBe(250);
    });
  });

  it('two concurrent activations cannot both squeeze past the plan limit', async () => {
    const w = await workspace(3, [{ name: 'On' }, ...Array.from({ length: 8 }, (_, i) => ({ name: `Off ${i}`, inactive: true }))]);
    // Eight concurrent activations, two free slots: exactly two succeed.
    const results = await Promise.all(w.ids.slice(1).map((id) => w.api<ErrorBody>('PATCH', `/v1/listings/${id}`, { active: true })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 402, 402, 402, 402, 402, 402]);
    const usage = await t.admin<{ data: { testUsage: Record<string, number> } }>('GET', `/admin/v1/workspaces/${w.id}`);
    expect(usage.body.data.testUsage.activeListings).toBe(3);
    expect((await w.api<{ data: Row[] }>('GET', '/v1/listings')).body.data).toHaveLength(3);
  });
});
