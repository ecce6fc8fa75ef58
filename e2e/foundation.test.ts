// The first vertical slice, black-box: HTTP -> gateway -> listing service over gRPC -> store.
import { startTestStack, type ErrorBody, type TestStack } from './support/stack';

interface Listing {
  id: string;
  name: string;
  status: string;
  channels: { channel: string; externalId: string }[];
}
interface ListingPage {
  data: Listing[];
  pagination: { total: number; limit: number; offset: number; hasMore: boolean };
}

describe('embedded stack, end to end over HTTP', () => {
  let t: TestStack;
  beforeAll(async () => {
    t = await startTestStack();
  });
  afterAll(async () => {
    await t.stop();
  });

  it('serves GET /v1/listings with the demo key: active listings only, paginated', async () => {
    const res = await t.api<ListingPage>('GET', '/v1/listings');
    expect(res.status).toBe(200);
    expect(res.body.data.map((l) => l.name)).toEqual(['Sea View Apartment', 'Old Town Loft']);
    expect(res.body.data.every((l) => l.status === 'active')).toBe(true);
    expect(res.body.pagination).toEqual({ total: 2, limit: 50, offset: 0, hasMore: false });
    expect(res.headers.get('x-request-id')).toMatch(/.{8,}/);
  });

  it('includes the inactive demo listing with status=all, carrying only id, name, status and channels', async () => {
    const res = await t.api<ListingPage>('GET', '/v1/listings?status=all&limit=2&offset=1');
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ total: 3, limit: 2, offset: 1, hasMore: false });
    const inactive = res.body.data.find((l) => l.status === 'inactive')!;
    expect(Object.keys(inactive).sort()).toEqual(['channels', 'id', 'name', 'status']);
    expect(inactive.name).toBe('Mountain Cabin');
  });

  it('scopes data to the key’s workspace: a new workspace sees no demo listings', async () => {
    const ws = await t.admin<{ data: { id: string } }>('POST', '/admin/v1/workspaces', { name: 'Other Co', activeListingLimit: 3 });
    expect(ws.status).toBe(201);
    const key = await t.admin<{ data: { key: string } }>('POST', `/admin/v1/workspaces/${ws.body.data.id}/api-keys`, { mode: 'test' });
    expect(key.status).toBe(201);
    const res = await t.api<ListingPage>('GET', '/v1/listings?status=all', undefined, { key: key.body.data.key });
    expect(res.body.data).toEqual([]);
    const demoListing = t.demoListingIds[0]!;
    const other = await t.api<ErrorBody>('GET', `/v1/listings/${demoListing}`, undefined, { key: key.body.data.key });
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('not_found');
  });

  it('answers an inactive listing with the listing_inactive envelope, request id included', async () => {
    const inactiveId = t.demoListingIds[2]!;
    const res = await t.api<ErrorBody>('GET', `/v1/properties/${inactiveId}`, undefined, { headers: { 'x-request-id': 'e2e-request-0001' } });
    expect(res.status).toBe(403);
    expect(res.headers.get('x-request-id')).toBe('e2e-request-0001');
    expect(res.body.error).toMatchObject({
      code: 'listing_inactive',
      request_id: 'e2e-request-0001',
      listing_ids: [inactiveId],
      listings: [{ id: inactiveId, name: 'Mountain Cabin' }],
    });
    expect(res.body.error.docs_url).toBe(`${t.publicBaseUrl}/docs/errors/listing_inactive`);
  });

  it('refuses a request without a key with a 401 envelope', async () => {
    const res = await t.api<ErrorBody>('GET', '/v1/listings', undefined, { key: null });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('authentication_required');
  });
});
