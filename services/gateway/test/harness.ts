// Test harness: the real listing service (embedded engines) behind a recording gRPC proxy, and
// the gateway on port 0 with the embedded store, spoken to with global fetch. The proxy records
// what the gateway sent and lets a test replace one method (to fail it, slow it or meter it);
// every other call reaches the listing service itself, so no listing rule is written here.
import type { ErrorEnvelope } from '@vrp/api-model';
import { listing } from '@vrp/contracts';
import { startListingService } from '@vrp/listing';
import { eventually, request } from '@vrp/testkit';
import {
  createLogger,
  createMemoryBus,
  createMemoryStore,
  createUpstream,
  currentContext,
  DEFAULT_ADDRESSES,
  dataWorkspaceId,
  parseConfig,
  service,
  startGrpcServer,
  type DocumentStore,
  type GrpcServerHandle,
  type Handlers,
  type RunningService,
  type Upstream,
} from '@vrp/platform';
import { closeUpstreams, createUpstreams, gatewayConfigSchema, startGateway, type GatewayUpstreams, type RunningGateway, type Route } from '../src/app';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';
export const PEPPER = 'test-pepper-0123456789-0123456789-abcdef';

type ListingHandlers = Handlers<typeof listing.ListingServiceService>;
type Method = keyof ListingHandlers & keyof listing.ListingServiceClient;
/** Per-test replacements of methods (writable, unlike the generated definition's keys). */
type HandlerOverrides = { -readonly [K in keyof ListingHandlers]?: ListingHandlers[K] };

/** What the listing service received from the gateway, to assert on what the gateway sent. */
export interface ListingCall {
  method: string;
  request: unknown;
  requestId: string | undefined;
}

export interface ListingServiceUnderTest {
  /** The proxy's port: the gateway's LISTING_ADDR. */
  port: number;
  calls: ListingCall[];
  /** Replace one method for the next requests (e.g. to fail); delete the key to restore it. */
  override: HandlerOverrides;
  /** Calls the listing service itself (not recorded, never overridden). */
  forward<K extends Method>(method: K, request: Parameters<listing.ListingServiceClient[K]>[0]): Promise<unknown>;
  /** Creates a listing through the listing service's CreateListing. */
  create(workspaceId: string, name: string, extra?: Partial<listing.Listing> & { inactive?: boolean }): Promise<listing.Listing>;
  /** The active-listing limit the listing service holds for a workspace (0 when it has none). */
  planOf(workspaceId: string): Promise<number>;
  /** Replaces the listing service with a new one over empty engines, behind the same proxy port. */
  restartEmpty(): Promise<void>;
  stop(): Promise<void>;
}

/** The CreateListing input of a listing with every field set, as the gateway's tests expect them. */
export function makeListing(name: string, extra: Partial<listing.Listing> = {}): listing.Listing {
  const slug = name.replace(/\W+/g, '');
  return listing.Listing.create({
    name,
    channels: [{ channel: 'CHANNEL_A', externalId: `ch-${slug}` }],
    address: { line1: '1 Harbour Road', line2: '', city: 'Lisbon', region: '', postalCode: '1100-001', country: 'PT' },
    timezone: 'Europe/Lisbon',
    currency: 'EUR',
    maxGuests: 4,
    bedrooms: 2,
    bathrooms: 1.5,
    beds: 3,
    checkInTime: '15:00',
    checkOutTime: '11:00',
    ...extra,
  });
}

async function bootListingService(): Promise<{ running: RunningService; client: Upstream<listing.ListingServiceClient>; stop(): Promise<void> }> {
  const store = createMemoryStore();
  const bus = createMemoryBus();
  const running = await startListingService({
    store,
    bus,
    logger: createLogger('listing', 'silent'),
    grpcPort: 0,
    opsPort: 0,
    host: '127.0.0.1',
    addresses: DEFAULT_ADDRESSES,
  });
  const client = createUpstream(listing.ListingServiceClient, { name: 'listing-under-test', address: `127.0.0.1:${running.grpcPort}`, deadlineMs: 10_000 });
  return {
    running,
    client,
    async stop() {
      client.close();
      await running.stop();
      await store.close();
      await bus.close();
    },
  };
}

export async function startListingServiceUnderTest(): Promise<ListingServiceUnderTest> {
  const calls: ListingCall[] = [];
  const override: HandlerOverrides = {};
  let real = await bootListingService();
  const forward = <K extends Method>(method: K, request: Parameters<listing.ListingServiceClient[K]>[0]) =>
    (real.client.call as (m: K, r: typeof request) => Promise<unknown>)(method, request);

  const handlers = Object.fromEntries(
    (Object.keys(listing.ListingServiceService) as Method[]).map((method) => [
      method,
      async (request: never, call: never) => {
        calls.push({ method, request, requestId: currentContext()?.requestId });
        const replaced = override[method] as ((req: never, call: never) => Promise<unknown>) | undefined;
        return replaced ? replaced(request, call) : forward(method, request);
      },
    ]),
  ) as unknown as ListingHandlers;

  const proxy: GrpcServerHandle = await startGrpcServer({
    name: 'listing-proxy',
    port: 0,
    host: '127.0.0.1',
    services: [service(listing.ListingServiceService, handlers)],
    logger: createLogger('listing-proxy', 'silent'),
  });
  return {
    port: proxy.port,
    calls,
    override,
    forward,
    async create(workspaceId, name, extra = {}) {
      const { inactive = false, ...fields } = extra;
      const res = await real.client.call('createListing', { workspaceId, listing: makeListing(name, fields), inactive });
      if (!res.listing) throw new Error('listing service answered CreateListing without a listing');
      // Lists are ordered by creation time: the next listing a test creates gets a later one.
      const createdAt = res.listing.createdAt?.getTime() ?? 0;
      await eventually(() => Date.now() > createdAt, { what: 'the clock to pass the creation time', intervalMs: 0 });
      return res.listing;
    },
    async planOf(workspaceId) {
      return (await real.client.call('getWorkspaceUsage', { workspaceId })).usage?.activeListingLimit ?? 0;
    },
    async restartEmpty() {
      await real.stop();
      real = await bootListingService();
    },
    async stop() {
      await proxy.stop(1000);
      await real.stop();
    },
  };
}

export interface TestGateway {
  /** The public listener. */
  url: string;
  /** The private listener: /admin/v1, /metrics. */
  adminUrl: string;
  running: RunningGateway;
  store: DocumentStore;
  listingClient: Upstream<listing.ListingServiceClient>;
  upstreams: GatewayUpstreams;
  stop(): Promise<void>;
}

export async function startTestGateway(opts: {
  listingAddress: string;
  extraRoutes?: Route[];
  env?: Record<string, string>;
  deadlineMs?: number;
  clock?: () => Date;
  /** A store shared with another gateway (several replicas over one database); not closed by stop(). */
  store?: DocumentStore;
}): Promise<TestGateway> {
  const store = opts.store ?? createMemoryStore();
  const config = parseConfig(gatewayConfigSchema, {
    ADMIN_TOKEN,
    API_KEY_PEPPER: PEPPER,
    GATEWAY_PORT: '0',
    GATEWAY_ADMIN_PORT: '0',
    GATEWAY_HOST: '127.0.0.1',
    ...opts.env,
  });
  // Only the listing upstream answers in these tests; the others are never called.
  const upstreams = createUpstreams({ ...config, LISTING_ADDR: opts.listingAddress }, opts.deadlineMs ?? 2000);
  const listingClient = upstreams.listing;
  const running = await startGateway({
    store,
    upstreams,
    config,
    logger: createLogger('gateway', 'silent'),
    ...(opts.extraRoutes ? { extraRoutes: opts.extraRoutes } : {}),
    ...(opts.clock ? { clock: opts.clock } : {}),
    validateResponses: true,
  });
  return {
    url: running.url,
    adminUrl: running.adminUrl,
    running,
    store,
    listingClient,
    upstreams,
    async stop() {
      await running.close();
      closeUpstreams(upstreams);
      if (!opts.store) await store.close();
    },
  };
}

export { request, type ApiResponse } from '@vrp/testkit';

/** The error envelope (docs/api.md, "Errors"), as the API's schema describes it. */
export type ErrorBody = ErrorEnvelope;

export const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });
export const adminHeaders = (): Record<string, string> => ({ ...bearer(ADMIN_TOKEN), 'Content-Type': 'application/json' });

/**
 * Creates a workspace and a key through the admin API, as an operator would. `dataWorkspaceId`
 * is the workspace id the services see for the key's mode (the sandbox for a test key).
 */
export async function provision(
  adminUrl: string,
  opts: { name?: string; limit?: number; mode?: 'test' | 'live'; rateLimits?: Record<string, number> } = {},
): Promise<{ workspaceId: string; dataWorkspaceId: string; key: string; keyId: string }> {
  const ws = await request<{ data: { id: string } }>(`${adminUrl}/admin/v1/workspaces`, {
    method: 'POST',
    headers: adminHeaders(),
    body: JSON.stringify({
      name: opts.name ?? 'Acme Rentals',
      activeListingLimit: opts.limit ?? 10,
      ...(opts.rateLimits ? { rateLimits: opts.rateLimits } : {}),
    }),
  });
  if (ws.status !== 201) throw new Error(`workspace creation failed: ${ws.status} ${ws.text}`);
  const key = await request<{ data: { id: string; key: string } }>(`${adminUrl}/admin/v1/workspaces/${ws.body.data.id}/api-keys`, {
    method: 'POST',
    headers: adminHeaders(),
    body: JSON.stringify({ mode: opts.mode ?? 'test' }),
  });
  if (key.status !== 201) throw new Error(`key creation failed: ${key.status} ${key.text}`);
  return {
    workspaceId: ws.body.data.id,
    dataWorkspaceId: dataWorkspaceId(ws.body.data.id, opts.mode ?? 'test'),
    key: key.body.data.key,
    keyId: key.body.data.id,
  };
}

/** What startTestGateway takes besides the listing service's address. */
export type GatewayOptions = Omit<Parameters<typeof startTestGateway>[0], 'listingAddress'>;

/** The listing service under test and a gateway in front of it. */
export interface GatewayUnderTest {
  listingService: ListingServiceUnderTest;
  gw: TestGateway;
}

async function startGatewayUnderTest(opts: GatewayOptions): Promise<GatewayUnderTest & { stop(): Promise<void> }> {
  const listingService = await startListingServiceUnderTest();
  const gw = await startTestGateway({ ...opts, listingAddress: `127.0.0.1:${listingService.port}` });
  return {
    listingService,
    gw,
    async stop() {
      await gw.stop();
      await listingService.stop();
    },
  };
}

/**
 * The listing service and a gateway in front of it for the calling describe block: started in a
 * beforeAll registered here (so before the block's own), stopped in an afterAll. Read the fields
 * in hooks and tests, where they are set.
 */
export function useGateway(opts: GatewayOptions = {}): GatewayUnderTest {
  const sut = {} as GatewayUnderTest;
  let stop = async (): Promise<void> => undefined;
  beforeAll(async () => {
    const started = await startGatewayUnderTest(opts);
    sut.listingService = started.listingService;
    sut.gw = started.gw;
    stop = () => started.stop();
  });
  afterAll(() => stop());
  return sut;
}

/** The listing service, a gateway in front of it and one provisioned workspace with a key. */
export interface GatewayFixture extends GatewayUnderTest {
  workspaceId: string;
  key: string;
  stop(): Promise<void>;
}

export async function startGatewayFixture(opts: GatewayOptions = {}): Promise<GatewayFixture> {
  const started = await startGatewayUnderTest(opts);
  const { workspaceId, key } = await provision(started.gw.adminUrl);
  return { ...started, workspaceId, key };
}

/** Two gateway replicas over one store and one real listing service (behind the recording proxy) (counters, caches shared through the store). */
export interface TestReplicas {
  a: TestGateway;
  b: TestGateway;
  stop(): Promise<void>;
}

/**
 * Two replicas for a describe block, started before its tests and stopped after them. Their
 * `a` and `b` are read inside the tests (they exist once beforeAll has run).
 */
export function useReplicas(env?: Record<string, string>): { a: TestGateway; b: TestGateway } {
  const replicas = {} as { a: TestGateway; b: TestGateway };
  let started: TestReplicas | undefined;
  beforeAll(async () => {
    started = await startTestReplicas(env);
    replicas.a = started.a;
    replicas.b = started.b;
  });
  afterAll(() => started?.stop());
  return replicas;
}

export async function startTestReplicas(env?: Record<string, string>): Promise<TestReplicas> {
  const listingService = await startListingServiceUnderTest();
  const store = createMemoryStore();
  const listingAddress = `127.0.0.1:${listingService.port}`;
  const a = await startTestGateway({ listingAddress, store, ...(env ? { env } : {}) });
  const b = await startTestGateway({ listingAddress, store, ...(env ? { env } : {}) });
  return {
    a,
    b,
    async stop() {
      await a.stop();
      await b.stop();
      await store.close();
      await listingService.stop();
    },
  };
}
