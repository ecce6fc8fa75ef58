// API key authentication over HTTP: every way a key can be missing, wrong or right, and
// revocation through the cache of verified keys.
import { eventually } from '@vrp/testkit';
import { ADMIN_TOKEN, adminHeaders, bearer, provision, request, useReplicas, type ErrorBody, useGateway } from './harness';

describe('gateway API key authentication', () => {
  const sut = useGateway();
  let ws: { workspaceId: string; dataWorkspaceId: string; key: string; keyId: string };

  beforeAll(async () => {
    ws = await provision(sut.gw.adminUrl, { name: 'Auth Rentals' });
    await sut.listingService.create(ws.dataWorkspaceId, 'Sea View');
  });

  const listings = (headers: Record<string, string>) => request<ErrorBody>(`${sut.gw.url}/v1/listings`, { headers });

  it('answers 401 authentication_required without an Authorization header', async () => {
    const res = await listings({});
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('authentication_required');
  });

  it.each([
    ['a non-Bearer scheme', { Authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }],
    ['a key without the sk_ prefix', bearer('pk_test_0123456789abcdefghijklmnopqrstuvwx')],
    ['a key with an unknown mode', bearer('sk_prod_0123456789abcdefghijklmnopqrstuvwx')],
    ['a key that is too short', bearer('sk_test_abc123')],
    ['a key with forbidden characters', bearer('sk_test_0123456789abcdefghijklmnopqrstuv-_!')],
  ])('answers 401 invalid_api_key for %s', async (_what, headers) => {
    const res = await listings(headers);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_api_key');
  });

  it('answers 401 invalid_api_key for a well-formed key that was never issued', async () => {
    const res = await listings(bearer('sk_test_' + 'A'.repeat(40)));
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_api_key');
  });

  it('accepts a valid key, with or without a matching X-Workspace-Id, and scopes the upstream call to its workspace', async () => {
    const plain = await listings(bearer(ws.key));
    expect(plain.status).toBe(200);
    const withHeader = await listings({ ...bearer(ws.key), 'X-Workspace-Id': ws.workspaceId });
    expect(withHeader.status).toBe(200);
    const last = sut.listingService.calls.filter((c) => c.method === 'listListings').at(-1);
    expect(last?.request).toMatchObject({ workspaceId: ws.dataWorkspaceId });
  });

  it('answers 403 workspace_mismatch when X-Workspace-Id names another workspace', async () => {
    const other = await provision(sut.gw.adminUrl, { name: 'Other Rentals' });
    const res = await listings({ ...bearer(ws.key), 'X-Workspace-Id': other.workspaceId });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('workspace_mismatch');
  });

  it('binds a key to its mode: a live key works, and the same secret under the other prefix does not', async () => {
    const live = await provision(sut.gw.adminUrl, { name: 'Live Rentals', mode: 'live' });
    expect(live.key).toMatch(/^sk_live_[1-9A-HJ-NP-Za-km-z]{40}$/);
    expect((await listings(bearer(live.key))).status).toBe(200);
    const swapped = live.key.replace(/^sk_live_/, 'sk_test_');
    const res = await listings(bearer(swapped));
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_api_key');
  });

  it('stops accepting a key on the very next request after it is revoked, although it was just verified (cached)', async () => {
    const fresh = await provision(sut.gw.adminUrl, { name: 'Revoked Rentals' });
    // Verified twice: the second request is answered from the cache of verified keys.
    expect((await listings(bearer(fresh.key))).status).toBe(200);
    expect((await listings(bearer(fresh.key))).status).toBe(200);
    const revoke = await request(`${sut.gw.adminUrl}/admin/v1/api-keys/${fresh.keyId}`, { method: 'DELETE', headers: adminHeaders() });
    expect(revoke.status).toBe(200);
    const res = await listings(bearer(fresh.key));
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_api_key');
  });

  it('never accepts the admin token as an API key, nor an API key on the admin API', async () => {
    expect((await listings(bearer(ADMIN_TOKEN))).body.error.code).toBe('invalid_api_key');
    const res = await request<ErrorBody>(`${sut.gw.adminUrl}/admin/v1/workspaces/${ws.workspaceId}`, { headers: bearer(ws.key) });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('admin_token_invalid');
  });
});

describe('API key revocation with two gateway replicas over one store', () => {
  // Each replica caches verified keys apart, as separate processes do: the bound of a revocation
  // on the other replica is its cache's TTL.
  const TTL_MS = 800;
  const replicas = useReplicas({ API_KEY_CACHE_TTL_MS: String(TTL_MS) });

  it('a key revoked through one replica is refused there at once, and by the other within the cache TTL', async () => {
    const ws = await provision(replicas.a.adminUrl, { name: 'Replica Rentals' });
    const on = (gw: { url: string }) => request<ErrorBody>(`${gw.url}/v1/listings`, { headers: bearer(ws.key) });
    expect((await on(replicas.a)).status).toBe(200);
    expect((await on(replicas.b)).status).toBe(200);
    const revoke = await request(`${replicas.b.adminUrl}/admin/v1/api-keys/${ws.keyId}`, { method: 'DELETE', headers: adminHeaders() });
    expect(revoke.status).toBe(200);
    const revokedAt = Date.now();
    const onB = await on(replicas.b);
    expect(onB.status).toBe(401);
    expect(onB.body.error.code).toBe('invalid_api_key');
    // Replica a had the key cached: it refuses it once its entry expires, never later.
    let refused: Awaited<ReturnType<typeof on>> | undefined;
    await eventually(
      async () => {
        refused = await on(replicas.a);
        return refused.status === 401;
      },
      { timeoutMs: TTL_MS + 2000, intervalMs: 20, what: 'replica a to refuse the revoked key' },
    );
    expect(Date.now() - revokedAt).toBeLessThanOrEqual(TTL_MS + 1000);
    expect(refused!.body.error.code).toBe('invalid_api_key');
  });
});
