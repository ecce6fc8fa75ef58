// Rate limits through the gateway: per API key and per workspace with the plan's values set by
// the admin API, RateLimit-* headers on every response, 429 rate_limited with Retry-After,
// failed authentication and the admin API limited per client address, test and live counted
// apart, and two gateway replicas over one store holding one limit between them (on the embedded
// store: one in-memory limiter per store object; the store-backed limiter of MongoDB deployments
// is tested on its own in rate-limit-store.test.ts).
import { eventually } from '@vrp/testkit';
import { DEFAULT_RATE_LIMITS, FLOOD_FACTOR, REFUSAL_HOLD_MS } from '../src/domain/rate-limits';
import {
  adminHeaders,
  bearer,
  provision,
  request,
  startTestGateway,
  useReplicas,
  type ApiResponse,
  type ErrorBody,
  type TestGateway,
  useGateway,
} from './harness';

const listings = (gw: TestGateway, key: string) => request<ErrorBody>(`${gw.url}/v1/listings`, { headers: bearer(key) });

/** Fires `n` requests at once; the responses in order, and how long the burst took. */
async function burst(n: number, send: (i: number) => Promise<ApiResponse<ErrorBody>>): Promise<ApiResponse<ErrorBody>[] & { elapsedMs: number }> {
  const started = Date.now();
  const responses = await Promise.all(Array.from({ length: n }, (_, i) => send(i)));
  return Object.assign(responses, { elapsedMs: Date.now() - started });
}

/**
 * The number of requests a limit of `perSecond` plus `burst` per 10 s admits in a burst: exactly
 * perSecond + burst when the burst fits in one second; on a machine slow enough to stretch it
 * over several, one more window per started second (never fewer, never more).
 */
function expectAdmitted(admitted: number, limit: { perSecond: number; burst: number; requests: number; elapsedMs: number }): void {
  const most = limit.perSecond * (Math.floor(limit.elapsedMs / 1000) + 1) + limit.burst * (Math.floor(limit.elapsedMs / 10_000) + 1);
  expect(admitted).toBeGreaterThanOrEqual(Math.min(limit.requests, limit.perSecond + limit.burst));
  expect(admitted).toBeLessThanOrEqual(most);
}

const count = (responses: ApiResponse[], status: number) => responses.filter((r) => r.status === status).length;

async function setPlan(
  gw: TestGateway,
  workspaceId: string,
  rateLimits: Record<string, number | null>,
): Promise<ApiResponse<{ data: { rateLimits: Record<string, number> } }>> {
  return request(`${gw.adminUrl}/admin/v1/workspaces/${workspaceId}`, { method: 'PATCH', headers: adminHeaders(), body: JSON.stringify({ rateLimits }) });
}

describe('rate limits', () => {
  const sut = useGateway({ env: { AUTH_FAILURES_PER_MINUTE: '5', ADMIN_RATE_LIMIT_PER_SECOND: '50' } });

  it('shows the default plan on a new workspace and lets the admin API change and restore it', async () => {
    const { workspaceId } = await provision(sut.gw.adminUrl);
    const got = await request<{ data: { rateLimits: Record<string, number> } }>(`${sut.gw.adminUrl}/admin/v1/workspaces/${workspaceId}`, {
      headers: adminHeaders(),
    });
    expect(got.body.data.rateLimits).toEqual(DEFAULT_RATE_LIMITS);
    const changed = await setPlan(sut.gw, workspaceId, { keyRequestsPerSecond: 7, workspaceConcurrency: 3 });
    expect(changed.status).toBe(200);
    expect(changed.body.data.rateLimits).toEqual({ ...DEFAULT_RATE_LIMITS, keyRequestsPerSecond: 7, workspaceConcurrency: 3 });
    const restored = await setPlan(sut.gw, workspaceId, { keyRequestsPerSecond: null });
    expect(restored.body.data.rateLimits).toEqual({ ...DEFAULT_RATE_LIMITS, workspaceConcurrency: 3 });
    const bad = await setPlan(sut.gw, workspaceId, { keyBurst: 0, toString: 1 });
    expect(bad.status).toBe(400);
    expect((bad.body as unknown as ErrorBody).error.fields).toEqual({
      'rateLimits.keyBurst': 'must be at least 1',
      'rateLimits.toString': 'is not a known field',
    });
  });

  it('sets RateLimit-Limit, -Remaining and -Reset on every API response, errors included', async () => {
    const { key } = await provision(sut.gw.adminUrl, { rateLimits: { keyRequestsPerSecond: 40 } });
    const first = await listings(sut.gw, key);
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-limit')).toBe('40');
    expect(Number(first.headers.get('ratelimit-remaining'))).toBe(39);
    expect(Number(first.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(0);
    const invalid = await request<ErrorBody>(`${sut.gw.url}/v1/listings?limit=0`, { headers: bearer(key) });
    expect(invalid.status).toBe(400);
    // 38, unless the one-second window started again between the two requests (a slow machine).
    expect([38, 39]).toContain(Number(invalid.headers.get('ratelimit-remaining')));
  });

  it('refuses a key over its rate plus burst with 429 rate_limited and Retry-After', async () => {
    const { key } = await provision(sut.gw.adminUrl, { rateLimits: { keyRequestsPerSecond: 3, keyBurst: 2 } });
    const responses = await burst(15, () => listings(sut.gw, key));
    expectAdmitted(count(responses, 200), { perSecond: 3, burst: 2, requests: 15, elapsedMs: responses.elapsedMs });
    const refused = responses.filter((r) => r.status === 429);
    expect(refused.length).toBe(15 - count(responses, 200));
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(r.body.error.code).toBe('rate_limited');
      expect(r.body.error.message).toContain('API key');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(r.headers.get('ratelimit-remaining')).toBe('0');
    }
  });

  it('answers the refusals of a key far over its limit (a flood) only after a hold, still as 429 rate_limited', async () => {
    const perSecond = 1;
    const { key } = await provision(sut.gw.adminUrl, { rateLimits: { keyRequestsPerSecond: perSecond, keyBurst: 1 } });
    // One request after the other: refused at once while the key has sent up to FLOOD_FACTOR x its
    // per-second allowance in this second, held past that.
    const answers: (ApiResponse<ErrorBody> & { tookMs: number })[] = [];
    for (let i = 0; i < FLOOD_FACTOR * perSecond + 4; i++) {
      const sent = Date.now();
      const response = await listings(sut.gw, key);
      answers.push(Object.assign(response, { tookMs: Date.now() - sent }));
    }
    const refused = answers.filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(r.body.error.code).toBe('rate_limited');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // A lone request to this gateway takes milliseconds; a held refusal at least the hold.
    expect(refused.filter((r) => r.tookMs >= REFUSAL_HOLD_MS).length).toBeGreaterThanOrEqual(1);
  });

  it('holds the workspace limit across its keys, and counts test and live mode apart', async () => {
    const { workspaceId, key } = await provision(sut.gw.adminUrl, { rateLimits: { workspaceRequestsPerSecond: 4, workspaceBurst: 1 } });
    const issue = async (mode: string) =>
      (
        await request<{ data: { key: string } }>(`${sut.gw.adminUrl}/admin/v1/workspaces/${workspaceId}/api-keys`, {
          method: 'POST',
          headers: adminHeaders(),
          body: JSON.stringify({ mode }),
        })
      ).body.data.key;
    const [second, live] = [await issue('test'), await issue('live')];
    const responses = await burst(15, (i) => listings(sut.gw, i % 2 === 0 ? key : second));
    expectAdmitted(count(responses, 200), { perSecond: 4, burst: 1, requests: 15, elapsedMs: responses.elapsedMs });
    expect(count(responses, 429)).toBeGreaterThan(0);
    expect(responses.filter((r) => r.status === 429).every((r) => r.body.error.message.includes('workspace'))).toBe(true);
    // The live workspace has counters of its own: test traffic never throttles live traffic.
    expect((await listings(sut.gw, live)).status).toBe(200);
  });

  it('limits failed authentications per client address, then refuses even a valid key from it', async () => {
    // Its own gateway: this test exhausts the loopback address's allowance.
    const own = await startTestGateway({ listingAddress: `127.0.0.1:${sut.listingService.port}`, env: { AUTH_FAILURES_PER_MINUTE: '5' } });
    try {
      const { key } = await provision(own.adminUrl);
      const bad = await burst(5, (i) => request<ErrorBody>(`${own.url}/v1/listings`, { headers: bearer(`sk_test_${'x'.repeat(31)}${i}`) }));
      expect(bad.map((r) => r.status)).toEqual([401, 401, 401, 401, 401]);
      const blocked = await listings(own, key);
      expect(blocked.status).toBe(429);
      expect(blocked.body.error.code).toBe('rate_limited');
      expect(blocked.body.error.message).toContain('failed authentications');
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(1);
      const admin = await request<ErrorBody>(`${own.adminUrl}/admin/v1/workspaces/ws_x`, { headers: bearer('wrong-admin-token-000000') });
      expect(admin.status).toBe(429);
    } finally {
      await own.stop();
    }
  });

  it('limits the admin API per client address', async () => {
    const own = await startTestGateway({ listingAddress: `127.0.0.1:${sut.listingService.port}`, env: { ADMIN_RATE_LIMIT_PER_SECOND: '2' } });
    try {
      // 2 per second plus a burst of 20 per 10 s.
      const responses = await burst(40, () => request<ErrorBody>(`${own.adminUrl}/admin/v1/workspaces/ws_nope`, { headers: adminHeaders() }));
      expectAdmitted(count(responses, 404), { perSecond: 2, burst: 20, requests: 40, elapsedMs: responses.elapsedMs });
      expect(count(responses, 429)).toBe(40 - count(responses, 404));
      expect(count(responses, 429)).toBeGreaterThan(0);
      expect(responses.find((r) => r.status === 429)!.body.error.message).toContain('admin API');
    } finally {
      await own.stop();
    }
  });
});

describe('rate limits with two gateway replicas over one store', () => {
  // Plans are cached per replica (API_KEY_CACHE_TTL_MS), as separate processes cache them.
  const TTL_MS = 800;
  const replicas = useReplicas({ API_KEY_CACHE_TTL_MS: String(TTL_MS) });

  it('holds one key limit across both replicas: they count against the same counters', async () => {
    const { key } = await provision(replicas.a.adminUrl, { rateLimits: { keyRequestsPerSecond: 4, keyBurst: 2 } });
    const responses = await burst(18, (i) => listings(i % 2 === 0 ? replicas.a : replicas.b, key));
    // One allowance between them (a private one per replica would admit twice as many).
    expectAdmitted(count(responses, 200), { perSecond: 4, burst: 2, requests: 18, elapsedMs: responses.elapsedMs });
    expect(count(responses, 429)).toBe(18 - count(responses, 200));
  });

  it('applies a plan change at once on the replica that made it, and on the other within the cache TTL', async () => {
    const { workspaceId, key } = await provision(replicas.a.adminUrl, { rateLimits: { keyRequestsPerSecond: 1, keyBurst: 1 } });
    const first = await burst(6, () => listings(replicas.b, key));
    expectAdmitted(count(first, 200), { perSecond: 1, burst: 1, requests: 6, elapsedMs: first.elapsedMs });
    await setPlan(replicas.a, workspaceId, { keyRequestsPerSecond: 100, keyBurst: 100 });
    const changedAt = Date.now();
    // Replica a evicted its cached plan: a burst over the old limit passes there at once.
    const onA = await burst(6, () => listings(replicas.a, key));
    expect(count(onA, 200)).toBe(6);
    // Replica b had the old plan cached: it admits the burst once its entry expired, within the TTL.
    await eventually(async () => count(await burst(6, () => listings(replicas.b, key)), 200) === 6, {
      timeoutMs: TTL_MS + 2000,
      intervalMs: 50,
      what: 'replica b to apply the new plan',
    });
    expect(Date.now() - changedAt).toBeLessThanOrEqual(TTL_MS + 1000);
  });
});
