// Test harness: a real grpc-js server standing in for the listing service (handlers swappable
// per test), and the gateway on port 0 with the embedded store, spoken to with global fetch.
import { listing } from '@vrp/contracts';
import {
  AppError,
  createLogger,
  createMemoryStore,

  currentContext,
  dataWorkspaceId,
  listingInactive,
  notFound,
  parseConfig,
  service,
  startGrpcServer,
  type DocumentStore,
  type GrpcServerHandle,
  type Handlers,
  type Upstream,
} from '@vrp/platform';
import { closeUpstreams, createUpstreams, gatewayConfigSchema, startGateway, type GatewayUpstreams, type RunningGateway, type Route } from '../src/app';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';
export const PEPPER = 'test-pepper-0123456789-0123456789-abcdef';

type ListingHandlers = Handlers<typeof listing.ListingServiceService>;
/** Per-test replacements of fake handlers (writable, unlike the generated definition's keys). */
type HandlerOverrides = { -readonly [K in keyof ListingHandlers]?: ListingHandlers[K] };

/** What the fake listing service received, to assert on what the gateway sent. */
export interface ListingCall {
  method: string;
  request: unknown;
  requestId: string | undefined;
}

export interface FakeListingService {
  port: number;
  calls: ListingCall[];
  listings: listing.Listing[];
  plans: Map<string, number>;
  /** Replace one handler for the next requests (e.g. to fail). */
  override: HandlerOverrides;
  stop(): Promise<void>;
}

export function makeListing(workspaceId: string, name: string, extra: Partial<listing.Listing> = {}): listing.Listing {
  const id = extra.id ?? `lst_${name.replace(/\W+/g, '')}`;
  return listing.Listing.create({
    id,
    workspaceId,
    name,
    status: 'active',
    channels: [{ channel: 'CHANNEL_A', externalId: `ch-${id}` }],
    address: { line1: '1 Harbour Road', line2: '', city: 'Lisbon', region: '', postalCode: '1100-001', country: 'PT' },
    timezone: 'Europe/Lisbon',
    currency: 'EUR',
    maxGuests: 4,
    bedrooms: 2,
    bathrooms: 1.5,
    beds: 3,
    checkInTime: '15:00',
    checkOutTime: '11:00',
    pmsProvider: '',
    pmsExternalId: '',
    createdAt: new Date('2024-05-01T10:00:00.000Z'),
    updatedAt: new Date('2024-05-02T10:00:00.000Z'),
    ...extra,
  });
}

export async function startFakeListingService(): Promise<FakeListingService> {
  const calls: ListingCall[] = [];
  const listings: listing.Listing[] = [];
  const plans = new Map<string, number>();
  const override: HandlerOverrides = {};
  const record = (method: string, request: unknown) => calls.push({ method, request, requestId: currentContext()?.requestId });

  const usageOf = (workspaceId: string): listing.WorkspaceUsage => {
    const own = listings.filter((l) => l.workspaceId === workspaceId);
    const active = own.filter((l) => l.status === 'active').length;
    return { workspaceId, activeListingLimit: plans.get(workspaceId) ?? 0, activeListings: active, inactiveListings: own.length - active, billableListings: active };
  };

  // Methods the gateway does not call yet answer "unimplemented" (the server needs one per method).
  const unused = Object.fromEntries(
    Object.keys(listing.ListingServiceService).map((method) => [
      method,
      async () => {
        record(method, null);
        throw new AppError('internal_error', `fake listing service: ${method} is not implemented`);
      },
    ]),
  ) as unknown as ListingHandlers;

  const handlers: ListingHandlers = {
    ...unused,
    async listListings(req, call) {
      record('listListings', req);
      if (override.listListings) return override.listListings(req, call);
      const statuses =
        req.status === listing.ListingStatusFilter.LISTING_STATUS_FILTER_ALL
          ? ['active', 'inactive']
          : req.status === listing.ListingStatusFilter.LISTING_STATUS_FILTER_INACTIVE
            ? ['inactive']
            : ['active'];
      const matching = listings.filter((l) => l.workspaceId === req.workspaceId && statuses.includes(l.status));
      const limit = req.page?.limit || 50;
      const offset = req.page?.offset ?? 0;
      const page = matching.slice(offset, offset + limit);
      return { listings: page, page: { total: matching.length, limit, offset, hasMore: offset + page.length < matching.length } };
    },
    async getListing(req, call) {
      record('getListing', req);
      if (override.getListing) return override.getListing(req, call);
      const found = listings.find((l) => l.workspaceId === req.workspaceId && (l.id === req.id || l.channels.some((c) => c.externalId === req.id)));
      if (!found) throw notFound('listing', req.id);
      if (found.status !== 'active' && !req.allowInactive) throw listingInactive([{ id: found.id, name: found.name }]);
      return { listing: found };
    },
    async setWorkspacePlan(req, call) {
      record('setWorkspacePlan', req);
      if (override.setWorkspacePlan) return override.setWorkspacePlan(req, call);
      plans.set(req.workspaceId, req.activeListingLimit);
      return { usage: usageOf(req.workspaceId) };
    },
    async getWorkspaceUsage(req, call) {
      record('getWorkspaceUsage', req);
      if (override.getWorkspaceUsage) return override.getWorkspaceUsage(req, call);
      return { usage: usageOf(req.workspaceId) };
    },
  };

  const server: GrpcServerHandle = await startGrpcServer({
    name: 'fake-listing',
    port: 0,
    host: '127.0.0.1',
    services: [service(listing.ListingServiceService, handlers)],
    logger: createLogger('fake-listing', 'silent'),
  });
  return { port: server.port, calls, listings, plans, override, stop: () => server.stop(1000) };
}

export interface TestGateway {
  url: string;
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
  const config = parseConfig(gatewayConfigSchema, { ADMIN_TOKEN, API_KEY_PEPPER: PEPPER, GATEWAY_PORT: '0', GATEWAY_HOST: '127.0.0.1', ...opts.env });
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

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface ErrorBody {
  error: {
    code: string;
    message: string;
    fix: string;
    docs_url: string;
    request_id: string;
    fields?: Record<string, string>;
    listing_ids?: string[];
    listings?: { id: string; name: string }[];
    provider?: string;
  };
}

/** fetch + JSON decode (text kept for non-JSON answers). */
export async function request<T = unknown>(url: string, init: RequestInit = {}): Promise<ApiResponse<T>> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown = null;
  if ((res.headers.get('content-type') ?? '').includes('json') && text) body = JSON.parse(text) as unknown;
  return { status: res.status, headers: res.headers, body: body as T, text };
}

export const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });
export const adminHeaders = (): Record<string, string> => ({ ...bearer(ADMIN_TOKEN), 'Content-Type': 'application/json' });

/**
 * Creates a workspace and a key through the admin API, as an operator would. `dataWorkspaceId`
 * is the workspace id the services see for the key's mode (the sandbox for a test key).
 */
export async function provision(
  baseUrl: string,
  opts: { name?: string; limit?: number; mode?: 'test' | 'live'; rateLimits?: Record<string, number> } = {},
): Promise<{ workspaceId: string; dataWorkspaceId: string; key: string; keyId: string }> {
  const ws = await request<{ data: { id: string } }>(`${baseUrl}/admin/v1/workspaces`, {
    method: 'POST',
    headers: adminHeaders(),
    body: JSON.stringify({ name: opts.name ?? 'Acme Rentals', activeListingLimit: opts.limit ?? 10, ...(opts.rateLimits ? { rateLimits: opts.rateLimits } : {}) }),
  });
  if (ws.status !== 201) throw new Error(`workspace creation failed: ${ws.status} ${ws.text}`);
  const key = await request<{ data: { id: string; key: string } }>(`${baseUrl}/admin/v1/workspaces/${ws.body.data.id}/api-keys`, {
    method: 'POST',
    headers: adminHeaders(),
    body: JSON.stringify({ mode: opts.mode ?? 'test' }),
  });
  if (key.status !== 201) throw new Error(`key creation failed: ${key.status} ${key.text}`);
  return { workspaceId: ws.body.data.id, dataWorkspaceId: dataWorkspaceId(ws.body.data.id, opts.mode ?? 'test'), key: key.body.data.key, keyId: key.body.data.id };
}

/** A fake listing service, a gateway in front of it and one provisioned workspace with a key. */
export interface GatewayFixture {
  listingService: FakeListingService;
  gw: TestGateway;
  workspaceId: string;
  key: string;
  stop(): Promise<void>;
}

export async function startGatewayFixture(opts: Omit<Parameters<typeof startTestGateway>[0], 'listingAddress'> = {}): Promise<GatewayFixture> {
  const listingService = await startFakeListingService();
  const gw = await startTestGateway({ ...opts, listingAddress: `127.0.0.1:${listingService.port}` });
  const { workspaceId, key } = await provision(gw.url);
  return {
    listingService,
    gw,
    workspaceId,
    key,
    async stop() {
      await gw.stop();
      await listingService.stop();
    },
  };
}

/** Two gateway replicas over one store and one fake listing service (counters, caches shared through the store). */
export interface TestReplicas {
  a: TestGateway;
  b: TestGateway;
  stop(): Promise<void>;
}

export async function startTestReplicas(env?: Record<string, string>): Promise<TestReplicas> {
  const listingService = await startFakeListingService();
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
