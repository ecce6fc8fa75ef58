// Component test of the store's time limit through the whole request path: the gateway and every
// service in this process, one service's (or the gateway's) embedded store frozen by the test
// fault hook. A frozen database must answer a 503 service_unavailable envelope within the
// gateway's upstream deadline, never hang or answer 500; /readyz of its process must fail.
import { gatewayConfigSchema } from '@vrp/gateway';
import { createMemoryBus } from '@vrp/engines/bus';
import { createMemoryStore, type MemoryDocumentStore } from '@vrp/engines/store';
import type { EventBus } from '@vrp/platform/bus';
import { DEMO_API_KEY, startStack, type ServiceName, type Stack } from '../src';

/** STORE_TIMEOUT_MS of this stack: short, so the test is quick. */
const STORE_TIMEOUT_MS = 400;
/** The gateway's deadline for a call to a service (its default, which the stack keeps). */
const UPSTREAM_DEADLINE_MS = gatewayConfigSchema.shape.UPSTREAM_DEADLINE_MS.parse(undefined);

describe('a frozen database answers 503 service_unavailable within the request deadline', () => {
  let stack: Stack<EventBus> | undefined;
  const stores = new Map<ServiceName | 'gateway', MemoryDocumentStore>();

  beforeAll(async () => {
    // With engines of its own, a stack does not boot again when another process took one of the
    // free ports it picked before binding them (startStack retries only its default engines,
    // which it can make afresh): this test makes fresh ones and tries again itself.
    for (let attempt = 1; ; attempt++) {
      stores.clear();
      try {
        stack = await startStack(
          { port: 0, ephemeralPorts: true, logLevel: 'silent' },
          {
            store: async (name) => {
              const store = createMemoryStore({ timeoutMs: STORE_TIMEOUT_MS });
              stores.set(name, store);
              return store;
            },
            bus: createMemoryBus(),
          },
        );
        return;
      } catch (err) {
        if (attempt >= 3 || !/EADDRINUSE/.test(String(err))) throw err;
      }
    }
  }, 60_000);

  afterAll(async () => {
    for (const store of stores.values()) store.thaw();
    await stack?.stop();
  }, 60_000);

  const storeOf = (name: ServiceName | 'gateway'): MemoryDocumentStore => {
    const store = stores.get(name);
    if (!store) throw new Error(`no store for ${name}`);
    return store;
  };
  const theStack = (): Stack<EventBus> => {
    if (!stack) throw new Error('stack did not start');
    return stack;
  };
  const api = async (path: string, key = DEMO_API_KEY): Promise<{ status: number; body: Record<string, unknown>; ms: number; retryAfter: string | null }> => {
    const started = Date.now();
    const res = await fetch(`${theStack().baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
    const body = (await res.json()) as Record<string, unknown>;
    return { status: res.status, body, ms: Date.now() - started, retryAfter: res.headers.get('retry-after') };
  };
  const readyz = async (url: string): Promise<number> => (await fetch(url)).status;
  const serviceReadyz = (name: ServiceName): string => `http://127.0.0.1:${theStack().services[name].opsPort}/readyz`;

  it("a service's frozen store: the API answers a 503 envelope within the deadline, and the service's /readyz fails until it thaws", async () => {
    expect((await api('/v1/listings')).status).toBe(200);
    expect(await readyz(serviceReadyz('listing'))).toBe(200);

    storeOf('listing').freeze();
    try {
      const frozen = await api('/v1/listings');
      expect(frozen.status).toBe(503);
      expect(frozen.body).toMatchObject({ error: { code: 'service_unavailable', request_id: expect.any(String) } });
      expect(frozen.retryAfter).not.toBeNull();
      expect(frozen.ms).toBeGreaterThanOrEqual(STORE_TIMEOUT_MS - 50); // it waited for the store's limit...
      expect(frozen.ms).toBeLessThan(UPSTREAM_DEADLINE_MS); // ...and answered before the gateway gave up
      expect(await readyz(serviceReadyz('listing'))).toBe(503);
      // The other services are unaffected.
      expect(await readyz(serviceReadyz('reservation'))).toBe(200);
    } finally {
      storeOf('listing').thaw();
    }
    expect(await readyz(serviceReadyz('listing'))).toBe(200);
  }, 30_000);

  it("the gateway's own frozen store (API keys): 503 envelope within the deadline, gateway /readyz fails", async () => {
    // A key never verified before: a key verified within API_KEY_CACHE_TTL_MS is answered from
    // the gateway's cache of verified keys without reading the store.
    const created = await fetch(`${theStack().adminBaseUrl}/admin/v1/workspaces/${theStack().demo!.workspaceId}/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${theStack().adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ mode: 'test' }),
    });
    expect(created.status).toBe(201);
    const { data } = (await created.json()) as { data: { key: string } };
    storeOf('gateway').freeze();
    try {
      const frozen = await api('/v1/reservations', data.key);
      expect(frozen.status).toBe(503);
      expect(frozen.body).toMatchObject({ error: { code: 'service_unavailable' } });
      expect(frozen.ms).toBeLessThan(UPSTREAM_DEADLINE_MS);
      expect(await readyz(`${theStack().baseUrl}/readyz`)).toBe(503);
    } finally {
      storeOf('gateway').thaw();
    }
    expect(await readyz(`${theStack().baseUrl}/readyz`)).toBe(200);
  }, 30_000);
});
