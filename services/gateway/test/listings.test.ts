// GET /v1/listings, /v1/properties and their single-record forms, in front of the real listing
// service (through the harness's recording proxy).
import { listing } from '@vrp/contracts';
import { AppError, listingInactive } from '@vrp/platform/errors';
import { pmsCapabilities, reservationCapabilities } from '@vrp/pms-matrix';
import { bearer, makeListing, provision, request, type ErrorBody, useGateway } from './harness';

interface Page {
  data: Record<string, unknown>[];
  pagination: { total: number; limit: number; offset: number; hasMore: boolean };
}

describe('gateway listings endpoints', () => {
  const sut = useGateway();
  let ws: { workspaceId: string; dataWorkspaceId: string; key: string };
  let seaView: listing.Listing;
  let oldTown: listing.Listing;
  let quietCabin: listing.Listing;
  let notYours: listing.Listing;

  beforeAll(async () => {
    ws = await provision(sut.gw.adminUrl);
    seaView = await sut.listingService.create(ws.dataWorkspaceId, 'Sea View', { pmsProvider: 'PMS-A', pmsExternalId: 'pa-77' });
    oldTown = await sut.listingService.create(ws.dataWorkspaceId, 'Old Town');
    quietCabin = await sut.listingService.create(ws.dataWorkspaceId, 'Quiet Cabin', { inactive: true });
    notYours = await sut.listingService.create('ws_someone_else', 'Not Yours');
  });
  afterEach(() => {
    for (const key of Object.keys(sut.listingService.override)) delete sut.listingService.override[key as keyof typeof sut.listingService.override];
  });

  const get = <T>(path: string) => request<T>(`${sut.gw.url}${path}`, { headers: bearer(ws.key) });
  const lastCall = (method: string) => sut.listingService.calls.filter((c) => c.method === method).at(-1);

  it('lists active listings by default with defaults limit 50, offset 0, mapped to camelCase API fields', async () => {
    const res = await get<Page>('/v1/listings');
    expect(res.status).toBe(200);
    expect(lastCall('listListings')?.request).toEqual({
      workspaceId: ws.dataWorkspaceId,
      status: listing.ListingStatusFilter.LISTING_STATUS_FILTER_ACTIVE,
      page: { limit: 50, offset: 0 },
    });
    expect(res.body.data.map((l) => l.name)).toEqual(['Sea View', 'Old Town']);
    // The values the listing was created with (harness makeListing), under the API's names.
    const { address, timezone, currency, maxGuests, bedrooms, bathrooms, beds, checkInTime, checkOutTime } = makeListing('Sea View');
    expect(res.body.data[0]).toEqual({
      id: seaView.id,
      name: 'Sea View',
      status: 'active',
      channels: [{ channel: 'CHANNEL_A', externalId: 'ch-SeaView' }],
      address,
      ...{ timezone, currency, maxGuests, bedrooms, bathrooms, beds, checkInTime, checkOutTime },
      pms: { provider: 'PMS-A', externalId: 'pa-77' },
      createdAt: seaView.createdAt!.toISOString(),
      updatedAt: seaView.updatedAt!.toISOString(),
    });
    expect(res.body.data[1]).toMatchObject({ name: 'Old Town', pms: null });
    expect(res.body.data[0]).not.toHaveProperty('capabilities');
    expect(res.body.pagination).toEqual({ total: 2, limit: 50, offset: 0, hasMore: false });
  });

  it('passes status, limit and offset through and returns the upstream pagination', async () => {
    const res = await get<Page>('/v1/listings?status=all&limit=1&offset=1');
    expect(lastCall('listListings')?.request).toEqual({
      workspaceId: ws.dataWorkspaceId,
      status: listing.ListingStatusFilter.LISTING_STATUS_FILTER_ALL,
      page: { limit: 1, offset: 1 },
    });
    expect(res.body.data.map((l) => l.name)).toEqual(['Old Town']);
    expect(res.body.pagination).toEqual({ total: 3, limit: 1, offset: 1, hasMore: true });
  });

  it('shows inactive rows with only id, name, status and channels', async () => {
    const res = await get<Page>('/v1/listings?status=inactive');
    expect(lastCall('listListings')?.request).toMatchObject({ status: listing.ListingStatusFilter.LISTING_STATUS_FILTER_INACTIVE });
    expect(res.body.data).toEqual([
      { id: quietCabin.id, name: 'Quiet Cabin', status: 'inactive', channels: [{ channel: 'CHANNEL_A', externalId: 'ch-QuietCabin' }] },
    ]);
  });

  it('serves the same collection at /v1/properties', async () => {
    const listings = await get<Page>('/v1/listings?status=all');
    const properties = await get<Page>('/v1/properties?status=all');
    expect(properties.status).toBe(200);
    expect(properties.body).toEqual(listings.body);
  });

  it('returns one listing with capabilities at /v1/listings/:id, and without at /v1/properties/:id', async () => {
    const one = await get<{ data: Record<string, unknown> }>(`/v1/listings/${seaView.id}`);
    expect(one.status).toBe(200);
    expect(lastCall('getListing')?.request).toEqual({ workspaceId: ws.dataWorkspaceId, id: seaView.id, allowInactive: false });
    // The capability matrix decides them (PMS-A cannot cancel).
    expect(one.body.data.capabilities).toEqual({ reservations: reservationCapabilities('PMS-A'), pms: pmsCapabilities('PMS-A') });
    expect(one.body.data.capabilities).toMatchObject({ reservations: { provider: 'PMS-A', cancel: false, modify: true } });
    const property = await get<{ data: Record<string, unknown> }>(`/v1/properties/${seaView.id}`);
    expect(property.status).toBe(200);
    expect(property.body.data).not.toHaveProperty('capabilities');
    expect(property.body.data.name).toBe('Sea View');
  });

  it('renders a listing without a PMS as supporting every write, with null providers', async () => {
    const res = await get<{ data: { capabilities: { reservations: Record<string, unknown>; pms: Record<string, unknown> } } }>(`/v1/listings/${oldTown.id}`);
    expect(res.body.data.capabilities.reservations).toEqual({
      provider: null,
      create: true,
      modify: true,
      cancel: true,
      quote: true,
      customPrice: true,
      notes: true,
    });
    expect(res.body.data.capabilities.pms).toMatchObject({ provider: null, reviewReplies: true, messageAttachments: true });
  });

  it('answers 404 not_found for an id outside the workspace', async () => {
    const res = await get<ErrorBody>(`/v1/properties/${notYours.id}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect(res.body.error).not.toHaveProperty('listing_ids');
  });

  it('answers 403 listing_inactive with listing_ids and listings for an inactive listing', async () => {
    for (const path of [`/v1/properties/${quietCabin.id}`, `/v1/listings/${quietCabin.id}`]) {
      const res = await get<ErrorBody>(path);
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({
        code: 'listing_inactive',
        listing_ids: [quietCabin.id],
        listings: [{ id: quietCabin.id, name: 'Quiet Cabin' }],
      });
      expect(res.body.error.docs_url).toMatch(/\/docs\/errors\/listing_inactive$/);
      expect(res.body.error).not.toHaveProperty('provider');
    }
  });

  it('forwards every inactive listing an upstream names', async () => {
    sut.listingService.override.listListings = async () => {
      throw listingInactive([
        { id: 'lst_a', name: 'A' },
        { id: 'lst_b', name: 'B' },
      ]);
    };
    const res = await get<ErrorBody>('/v1/listings');
    expect(res.status).toBe(403);
    expect(res.body.error.listing_ids).toEqual(['lst_a', 'lst_b']);
    expect(res.body.error.listings).toEqual([
      { id: 'lst_a', name: 'A' },
      { id: 'lst_b', name: 'B' },
    ]);
    expect(res.body.error.message).toBe("Listings 'lst_a', 'lst_b' are inactive.");
  });

  it('renders an upstream service_unavailable as 503 with Retry-After', async () => {
    sut.listingService.override.listListings = async () => {
      throw new AppError('service_unavailable', 'The listing store is unavailable.', { retryAfterSeconds: 7 });
    };
    const res = await get<ErrorBody>('/v1/listings');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(res.body.error.code).toBe('service_unavailable');
  });

  it('does not leak an upstream internal error', async () => {
    sut.listingService.override.getListing = async () => {
      throw new Error('mongo says: E11000 duplicate key on secret_index');
    };
    const res = await get<ErrorBody>(`/v1/listings/${seaView.id}`);
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('internal_error');
    expect(res.text).not.toContain('E11000');
  });

  it('validates the id path parameter', async () => {
    const res = await get<ErrorBody>(`/v1/listings/${'x'.repeat(201)}`);
    expect(res.status).toBe(400);
    expect(res.body.error.fields).toEqual({ id: 'must be at most 200 characters' });
  });
});
