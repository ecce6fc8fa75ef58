// Issue 3 end to end over HTTP: listing activity (spec 3.2), the listing rows of 4.3, the
// listing paths of 7.1, the plan limit under concurrency, and the activity event on its topic.
import { listing as listingPb, listingEvents, TOPICS } from '@vrp/contracts';
import { createUpstream, dataWorkspaceId } from '@vrp/platform';
import { eventually, startTestStack, type ErrorBody, type TestStack } from './support/stack';

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
    [seaView, oldTown, cabin] = t.stack.demo!.listingIds as [string, string, string];
  });
  afterAll(async () => {
    await t.stop();
  });

  /** A workspace of its own, with a key and `count` listings created through the listing service. */
  async function workspace(limit: number, listings: { name: string; channelId?: string; inactive?: boolean }[]) {
    const ws = await t.admin<{ data: { id: string } }>('POST', '/admin/v1/workspaces', { name: `WS ${Math.random()}`, activeListingLimit: limit });
    const key = await t.admin<{ data: { key: string } }>('POST', `/admin/v1/workspaces/${ws.body.data.id}/api-keys`, { mode: 'test' });
    const client = createUpstream(listingPb.ListingServiceClient, { name: 'listing-e2e', address: `127.0.0.1:${t.stack.services.listing.grpcPort}` });
    const ids: string[] = [];
    for (const l of listings) {
      const { listing } = await client.call('createListing', {
        workspaceId: dataWorkspaceId(ws.body.data.id, 'test'),
        listing: listingPb.Listing.create({ name: l.name, channels: l.channelId ? [{ channel: 'CHANNEL_A', externalId: l.channelId }] : [] }),
        inactive: l.inactive ?? false,
      });
      ids.push(listing!.id);
    }
    client.close();
    const api = <T>(method: string, path: string, body?: unknown) => t.api<T>(method, path, body, { key: key.body.data.key });
    return { id: ws.body.data.id, ids, api };
  }

  describe('spec 3.2: activity state machine', () => {
    it('owner deactivation: active -> inactive, no longer billed, stops counting toward the limit', async () => {
      const w = await workspace(2, [{ name: 'A' }, { name: 'B' }]);
      expect((await t.admin<{ data: { testUsage: { activeListings: number; billableListings: number } } }>('GET', `/admin/v1/workspaces/${w.id}`)).body.data.testUsage).toMatchObject({ activeListings: 2, billableListings: 2 });
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
      const ws = await t.admin<{ data: { id: string } }>('POST', '/admin/v1/workspaces', { name: 'PMS Co', activeListingLimit: 5 });
      const key = await t.admin<{ data: { key: string } }>('POST', `/admin/v1/workspaces/${ws.body.data.id}/api-keys`, { mode: 'test' });
      const client = createUpstream(listingPb.ListingServiceClient, { name: 'listing-e2e', address: `127.0.0.1:${t.stack.services.listing.grpcPort}` });
      const { listing } = await client.call('createListing', { workspaceId: dataWorkspaceId(ws.body.data.id, 'test'), listing: listingPb.Listing.create({ name: 'Managed', pmsProvider: 'PMS-B', pmsExternalId: 'b-1' }), inactive: false });
      // Managed by another account of the same PMS, which stays connected.
      const { listing: other } = await client.call('createListing', { workspaceId: dataWorkspaceId(ws.body.data.id, 'test'), listing: listingPb.Listing.create({ name: 'Other account', pmsProvider: 'PMS-B', pmsExternalId: 'b-2' }), inactive: false });
      const { deactivated } = await client.call('deactivateConnectionListings', { workspaceId: dataWorkspaceId(ws.body.data.id, 'test'), pmsProvider: 'PMS-B', pmsExternalIds: ['b-1'] });
      client.close();
      expect(deactivated).toEqual([listing!.id]);
      const res = await t.api<ErrorBody>('GET', `/v1/listings/${listing!.id}`, undefined, { key: key.body.data.key });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('listing_inactive');
      expect((await t.api('GET', `/v1/listings/${other!.id}`, undefined, { key: key.body.data.key })).status).toBe(200);
    });
  });

  describe('spec 4.3 listing rows', () => {
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
      const res = await w.api<{ active: boolean; updated: string[]; unchanged: string[] }>('POST', '/v1/listings/status', { listingIds: [w.ids[0], w.ids[2]], active: false });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ active: false, updated: [w.ids[0]], unchanged: [w.ids[2]] });
      const over = await workspace(1, [{ name: 'X', inactive: true }, { name: 'Y', inactive: true }]);
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
      const okRes = await w.api<{ data: { daysUpdated: number } }>('PATCH', '/v1/availability/batch', { updates: [{ listingId: w.ids[0], from: '2027-01-01', to: '2027-01-03', price: 180 }] });
      expect(okRes.body.data.daysUpdated).toBe(3);
    });

    it('PUT /v1/listings/{id}/content: 422 and nothing stored when the PMS can store no section; everything stored without a PMS', async () => {
      const ws = await t.admin<{ data: { id: string } }>('POST', '/admin/v1/workspaces', { name: 'Content Co', activeListingLimit: 5 });
      const key = (await t.admin<{ data: { key: string } }>('POST', `/admin/v1/workspaces/${ws.body.data.id}/api-keys`, { mode: 'test' })).body.data.key;
      const client = createUpstream(listingPb.ListingServiceClient, { name: 'listing-e2e', address: `127.0.0.1:${t.stack.services.listing.grpcPort}` });
      const { listing } = await client.call('createListing', { workspaceId: dataWorkspaceId(ws.body.data.id, 'test'), listing: listingPb.Listing.create({ name: 'Plain' }), inactive: false });
      const { listing: managed } = await client.call('createListing', {
        workspaceId: dataWorkspaceId(ws.body.data.id, 'test'),
        listing: listingPb.Listing.create({ name: 'Managed by PMS-G', pmsProvider: 'PMS-G', pmsExternalId: 'g-1' }),
        inactive: false,
      });
      client.close();
      // PMS-G cannot store room counts nor text in a non-default language: nothing applied -> 422.
      const refused = await t.api<ErrorBody>('PUT', `/v1/listings/${managed!.id}/content`, { sections: { rooms: { bedrooms: 2, bathrooms: 1, beds: 2 }, translations: { fr: { description: 'Appartement' } } } }, { key });
      expect(refused.status).toBe(422);
      expect(refused.body.error).toMatchObject({ code: 'pms_write_unsupported', provider: 'PMS-G' });
      expect(refused.body.error.fix).toContain('PMS-G');
      expect((await t.api<{ data: { sections: object } }>('GET', `/v1/listings/${managed!.id}/content`, undefined, { key })).body.data.sections).toEqual({});
      const stored = await t.api<{ data: { applied: string[]; deferred: string[]; pms: null } }>('PUT', `/v1/listings/${listing!.id}/content`, { sections: { description: 'Sunny flat', rooms: { bedrooms: 2, bathrooms: 1.5, beds: 3 } } }, { key });
      expect(stored.status).toBe(200);
      expect(stored.body.data).toMatchObject({ applied: ['description', 'rooms'], deferred: [], pms: null });
      const bad = await t.api<ErrorBody>('PUT', `/v1/listings/${listing!.id}/content`, { sections: { rooms: { bedrooms: -1, bathrooms: 1, beds: 1 } } }, { key });
      expect(bad.status).toBe(400);
    });

    it('photos and publish', async () => {
      const added = await t.api<{ data: { id: string } }>('POST', `/v1/listings/${seaView}/photos`, { url: 'https://img.example.com/1.jpg', caption: 'Living room' });
      expect(added.status).toBe(201);
      expect((await t.api<{ data: unknown[] }>('GET', `/v1/listings/${seaView}/photos`)).body.data).toHaveLength(1);
      expect((await t.api<ErrorBody>('POST', `/v1/listings/${seaView}/photos`, { url: 'http://img.example.com/1.jpg' })).status).toBe(400);
      expect((await t.api('DELETE', `/v1/listings/${seaView}/photos/${added.body.data.id}`)).status).toBe(200);
      const published = await t.api<{ data: { channels: string[] } }>('POST', `/v1/listings/${seaView}/publish`);
      expect(published.status).toBe(200);
      expect(published.body.data.channels).toEqual(['CHANNEL_A']);
    });
  });

  describe('spec 7.1 listing paths of listing_inactive', () => {
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

  it('every change of state publishes ListingActivityChanged on listing.activity.v1, keyed by listing id', async () => {
    const seen: listingEvents.ListingActivityChanged[] = [];
    const sub = await t.stack.bus.subscribe({
      groupId: `e2e-activity-${Date.now()}`,
      topics: [TOPICS.listingActivity.name],
      fromBeginning: false,
      handler: async (m) => {
        const event = listingEvents.ListingActivityChanged.decode(m.value);
        // At-least-once: a repeated event (same id) counts once.
        if (m.key === event.listingId && !seen.some((e) => e.eventId === event.eventId)) seen.push(event);
      },
    });
    await sub.ready;
    await t.api('PATCH', `/v1/listings/${oldTown}`, { active: false });
    await t.api('PATCH', `/v1/listings/${oldTown}`, { active: true });
    await eventually(() => seen.filter((e) => e.listingId === oldTown).length === 2, 5000, 'two activity events');
    const [off, on] = seen.filter((e) => e.listingId === oldTown);
    expect(off).toMatchObject({ workspaceId: t.dataWorkspaceId, active: false, reason: listingEvents.ActivityReason.ACTIVITY_REASON_OWNER, listingName: 'Old Town Loft' });
    expect(on!.active).toBe(true);
    expect(on!.version).toBe(off!.version + 1);
    await sub.stop();
  });
});
