// Upstream failures: a listing service that is down (closed port) or does not answer in time
// yields a fast 503/504 envelope, never a hanging request; repeated failures open the breaker.
import net from 'node:net';
import { generateApiKey, parseApiKey } from '../src/domain/api-key';
import { newApiKeyRecord } from '../src/domain/api-key-record';
import { ApiKeyStore } from '../src/store/api-key-store';
import { bearer, PEPPER, request, startListingServiceUnderTest, startTestGateway, type ErrorBody, type TestGateway } from './harness';

/** A port nothing listens on: bound once by the OS, then released. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Issues a key straight into the store: the admin API itself needs the (absent) listing service. */
async function issueKey(gw: TestGateway): Promise<string> {
  const key = generateApiKey('test');
  await new ApiKeyStore(gw.store).insert(newApiKeyRecord(parseApiKey(key)!, { workspaceId: 'ws_offline' }, PEPPER, new Date()));
  return key;
}

async function timed<T>(work: Promise<T>): Promise<{ result: T; ms: number }> {
  const started = Date.now();
  const result = await work;
  return { result, ms: Date.now() - started };
}

describe('gateway with an unavailable listing service', () => {
  let gw: TestGateway;
  let key: string;

  beforeAll(async () => {
    gw = await startTestGateway({ listingAddress: `127.0.0.1:${await closedPort()}`, deadlineMs: 1500 });
    key = await issueKey(gw);
  });
  afterAll(() => gw.stop());

  it('answers 503 service_unavailable with Retry-After at once, then fails fast once the breaker opens', async () => {
    const first = await timed(request<ErrorBody>(`${gw.url}/v1/listings`, { headers: bearer(key) }));
    expect(first.result.status).toBe(503);
    expect(first.result.body.error.code).toBe('service_unavailable');
    expect(first.result.headers.get('retry-after')).toBe('1');
    expect(first.result.body.error.request_id).toBe(first.result.headers.get('x-request-id'));
    expect(first.ms).toBeLessThan(1500);

    // Enough failures in the window open the breaker; from then on nothing reaches the network.
    for (let i = 0; i < 6; i += 1) await request(`${gw.url}/v1/listings`, { headers: bearer(key) });
    expect(gw.listingClient.breaker.opened).toBe(true);
    const open = await timed(request<ErrorBody>(`${gw.url}/v1/listings/lst_x`, { headers: bearer(key) }));
    expect(open.result.status).toBe(503);
    expect(open.result.body.error.message).toMatch(/paused/);
    expect(Number(open.result.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(open.ms).toBeLessThan(200);
  });

  it('keeps serving what does not need the listing service', async () => {
    expect((await request(`${gw.url}/readyz`)).status).toBe(200);
    expect((await request(`${gw.url}/v1/openapi.json`)).status).toBe(200);
    const unauthenticated = await request<ErrorBody>(`${gw.url}/v1/listings`);
    expect(unauthenticated.body.error.code).toBe('authentication_required');
  });
});

describe('gateway with a listing service that does not answer', () => {
  it('gives up at the deadline with 504 upstream_timeout', async () => {
    const listingService = await startListingServiceUnderTest();
    listingService.override.listListings = () => new Promise(() => undefined);
    const gw = await startTestGateway({ listingAddress: `127.0.0.1:${listingService.port}`, deadlineMs: 300 });
    try {
      const key = await issueKey(gw);
      const { result, ms } = await timed(request<ErrorBody>(`${gw.url}/v1/listings`, { headers: bearer(key) }));
      expect(result.status).toBe(504);
      expect(result.body.error.code).toBe('upstream_timeout');
      expect(ms).toBeGreaterThanOrEqual(250);
      expect(ms).toBeLessThan(2000);
    } finally {
      await gw.stop();
      await listingService.stop();
    }
  });
});
