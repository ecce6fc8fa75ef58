// Wiring of the gateway: the only public HTTP surface. Stores and upstream clients come in;
// two Express apps with the route table, docs, ops endpoints and the error envelope go out: the
// public one (/v1, /docs, /healthz, /readyz) and the private one (/admin/v1, /metrics, health),
// served on separate listeners (GATEWAY_PORT, GATEWAY_ADMIN_PORT) so that no public Ingress
// can reach the operator API or the metrics.
// It authenticates, validates, assigns the request id, calls the services and renders errors;
// it holds no domain rules of its own.
import type http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler } from 'express';
import { AppliedRequests } from '@vrp/platform/applied-requests';
import type { DocumentStore } from '@vrp/platform/store';
import type { Logger } from '@vrp/platform/logging';
import type { GatewayConfig } from './config';
import { answerClientErrors } from './http/client-errors';
import { classifyError, sendError } from './http/envelope';
import { installJsonResponse } from './http/json-response';
import { createAppServer } from './http/server';
import { buildOpenApiDocument, serversOf, type OpenApiDocument } from './http/openapi';
import { mountPages, PAGE_ENDPOINTS, type Listener } from './http/pages';
import { responseDeadline } from './http/middleware/deadline';
import { requestContext } from './http/middleware/request-context';
import { requestState } from './http/request-state';
import type { Route } from './http/route';
import { mountRoutes, unmatchedRequests } from './http/router';
import { WorkspaceConcurrency } from './http/middleware/concurrency';
import { Admission } from './http/middleware/rate-limit';
import { adminRoutes } from './http/routes/admin';
import { adminConnectionRoutes } from './http/routes/admin-connections';
import { adminListingRoutes } from './http/routes/admin-listings';
import { adminDeadLetterRoutes } from './http/routes/admin-dead-letters';
import { connectRoutes } from './http/routes/connect';
import { listingDataRoutes } from './http/routes/listing-data';
import { listingRoutes } from './http/routes/listings';
import { conversationRoutes } from './http/routes/conversations';
import { guestRoutes } from './http/routes/guests';
import { metaRoutes } from './http/routes/meta';
import { reviewRoutes } from './http/routes/reviews';
import { reservationRoutes } from './http/routes/reservations';
import { adminSettingsRoutes } from './http/routes/admin-settings';
import { webhookRoutes } from './http/routes/webhooks';
import { eventRoutes } from './http/routes/events';
import { ApiKeyStore } from './store/api-key-store';
import { IdempotencyStore } from './store/idempotency-store';
import { WorkspaceStore } from './store/workspace-store';
import type { GatewayUpstreams } from './ports/upstreams';
import {
  bootstrapWorkspace as bootstrap,
  type BootstrapWorkspaceInput,
  type BootstrapWorkspaceResult,
  type WorkspaceAdminDeps,
} from './use-cases/workspace-admin';

export type { GatewayConfig } from './config';
export { gatewayConfigSchema } from './config';
export type { BootstrapWorkspaceInput, BootstrapWorkspaceResult } from './use-cases/workspace-admin';
export type { Route } from './http/route';
export { defineRoute } from './http/route';
/** The body schema of each webhook event type, as documented in the OpenAPI `webhooks`. */
export { webhookEventSchemas } from '@vrp/api-model';

export type { GatewayUpstreams } from './ports/upstreams';
export { createUpstreams, closeUpstreams } from './ports/upstreams';

export interface GatewayDeps {
  store: DocumentStore;
  upstreams: GatewayUpstreams;
  config: GatewayConfig;
  logger: Logger;
  /** More routes mounted with the same pipeline and documented alike (tests, later slices). */
  extraRoutes?: readonly Route[];
  /** Check every response against its declared schema; on in tests. */
  validateResponses?: boolean;
  clock?: () => Date;
}

export interface Gateway {
  /** The public listener's app: /v1, /docs, /healthz, /readyz. */
  app: express.Express;
  /** The private listener's app: /admin/v1, /metrics, /healthz, /readyz. */
  adminApp: express.Express;
  routes: readonly Route[];
  /** The OpenAPI document as served at /v1/openapi.json. */
  openApiDocument(): OpenApiDocument;
  /** Base of absolute links: PUBLIC_BASE_URL, else http://localhost:<port>. */
  publicBaseUrl(): string;
  bootstrapWorkspace(input: BootstrapWorkspaceInput): Promise<BootstrapWorkspaceResult>;
  /** Tells the gateway the port it listens on (port 0 resolves only after listen). */
  setListeningPort(port: number): void;
  /** /readyz answers 503 from now on (graceful shutdown). */
  setDraining(): void;
}

function workspaceAdminOf(deps: Pick<GatewayDeps, 'store' | 'upstreams' | 'config' | 'clock'>, cacheScope?: object): WorkspaceAdminDeps {
  const scope = cacheScope ? { cacheScope } : {};
  return {
    workspaces: new WorkspaceStore(deps.store, scope),
    apiKeys: new ApiKeyStore(deps.store, scope),
    listing: deps.upstreams.listing,
    reservation: deps.upstreams.reservation,
    apiKeyPepper: deps.config.API_KEY_PEPPER,
    store: deps.store,
    applied: new AppliedRequests(deps.store, deps.clock),
    ...(deps.clock ? { clock: deps.clock } : {}),
  };
}

export function createGateway(deps: GatewayDeps): Gateway {
  const { config, logger } = deps;
  let listeningPort = config.GATEWAY_PORT;
  let draining = false;
  const publicBaseUrl = () => config.PUBLIC_BASE_URL ?? `http://localhost:${listeningPort}`;

  // This gateway's caches of keys and workspaces: a change made through it evicts them at once;
  // other replicas see it when their entries expire (API_KEY_CACHE_TTL_MS).
  const cacheScope = {};
  const admin = workspaceAdminOf(deps, cacheScope);
  const apiKeys = new ApiKeyStore(deps.store, { cacheTtlMs: config.API_KEY_CACHE_TTL_MS, cacheScope });
  const idempotencyStore = new IdempotencyStore(deps.store, deps.clock);

  // The document describes the route table, which includes the route serving the document.
  let document: OpenApiDocument | null = null;
  const openApiDocument = (): OpenApiDocument => {
    if (!document) throw new Error('the OpenAPI document was requested before the gateway was built');
    return { ...document, servers: serversOf(publicBaseUrl()) };
  };
  const routes: Route[] = [
    ...listingRoutes(deps.upstreams.listing),
    ...listingDataRoutes(deps.upstreams.listing),
    ...reservationRoutes(deps.upstreams.reservation),
    ...guestRoutes(deps.upstreams.guest),
    ...conversationRoutes(deps.upstreams.guest),
    ...reviewRoutes(deps.upstreams.guest),
    ...connectRoutes(deps.upstreams.pmsAdapter),
    ...adminConnectionRoutes(deps.upstreams.pmsAdapter, admin, deps.upstreams.syncHealth),
    ...adminRoutes(admin),
    ...adminSettingsRoutes(admin),
    ...adminListingRoutes(deps.upstreams.listing, admin),
    ...adminDeadLetterRoutes(deps.upstreams.deadLetters),
    ...webhookRoutes(deps.upstreams.webhook),
    ...eventRoutes(deps.upstreams.webhook),
    ...metaRoutes(openApiDocument),
    ...(deps.extraRoutes ?? []),
  ];
  // Built now so that a schema zod cannot express fails at start, not on the first /docs request.
  document = buildOpenApiDocument(routes, { serverUrl: publicBaseUrl() });

  const routerDeps = {
    apiKeys,
    apiKeyPepper: config.API_KEY_PEPPER,
    adminToken: config.ADMIN_TOKEN,
    idempotencyStore,
    logger,
    validateResponses: deps.validateResponses ?? false,
    admission: new Admission({
      store: deps.store,
      workspaces: new WorkspaceStore(deps.store, { cacheTtlMs: config.API_KEY_CACHE_TTL_MS, cacheScope }),
      config,
      logger,
    }),
    concurrency: new WorkspaceConcurrency(),
  };

  const renderErrors: ErrorRequestHandler = (err: unknown, req, res, _next) => {
    const { appError, expected } = classifyError(err);
    if (!expected) logger.error({ err, method: req.method, path: req.path }, 'unhandled error');
    if (res.headersSent && !res.writableEnded) {
      // Too late for an envelope: cut the response so the client sees a failure, not a truncated success.
      res.destroy();
      return;
    }
    // Answered already (the response deadline's 504): sendError still hands the outcome to the
    // idempotency recorder, and the app's res.json drops the envelope.
    sendError(res, appError, requestState(req).context.requestId, publicBaseUrl());
  };

  // The operator API is on the private listener only; what the public one does not serve is
  // answered there as any unknown path is (404 route_not_found).
  const listenerOf = (route: Route): Listener => (route.path === '/admin' || route.path.startsWith('/admin/') ? 'private' : 'public');
  const buildApp = (listener: Listener): express.Express => {
    const app = express();
    app.disable('x-powered-by');
    app.set('etag', false);
    app.set('trust proxy', config.TRUST_PROXY_HOPS);
    installJsonResponse(app);
    // A draining gateway still answers what it is asked, then closes the connection: the client
    // opens its next one to another replica instead of reusing one about to close.
    app.use((_req, res, next) => {
      if (draining) res.setHeader('Connection', 'close');
      next();
    });
    app.use(requestContext(logger));
    app.use(responseDeadline({ deadlineMs: config.UPSTREAM_DEADLINE_MS, baseUrl: publicBaseUrl }));
    mountPages(app, listener, { document: openApiDocument, baseUrl: publicBaseUrl, checks: { store: () => deps.store.ready() }, draining: () => draining });
    const served = routes.filter((route) => listenerOf(route) === listener);
    mountRoutes(app, served, routerDeps);
    app.use(unmatchedRequests([...served.map(({ method, path }) => ({ method, path })), ...PAGE_ENDPOINTS[listener]]));
    app.use(renderErrors);
    return app;
  };
  const app = buildApp('public');
  const adminApp = buildApp('private');

  return {
    app,
    adminApp,
    routes,
    openApiDocument,
    publicBaseUrl,
    bootstrapWorkspace: (input) => bootstrap(admin, input),
    setListeningPort(port) {
      listeningPort = port;
    },
    setDraining() {
      draining = true;
    },
  };
}

export interface RunningGateway {
  /** The public listener's port (GATEWAY_PORT). */
  port: number;
  /** http://127.0.0.1:<port>, for in-process callers (tests, the embedded stack). */
  url: string;
  /** The private listener's port (GATEWAY_ADMIN_PORT): /admin/v1 and /metrics. */
  adminPort: number;
  /** http://127.0.0.1:<adminPort>. */
  adminUrl: string;
  gateway: Gateway;
  /** Stops accepting connections on both listeners, lets in-flight requests finish (bounded), then resolves. */
  /**
   * Stops accepting connections, lets in-flight requests finish (bounded by SHUTDOWN_GRACE_MS),
   * then resolves. With `drain` (a rolling restart, SIGTERM) idle keep-alive connections are not
   * cut: each is closed after one more answer (`Connection: close`) or when the client's and the
   * server's keep-alive timeout ends it, so no client ever sends a request into a connection
   * closing under it. Without, idle connections close at once (the whole stack stopping).
   */
  close(opts?: { drain?: boolean }): Promise<void>;
}

function listen(server: http.Server, port: number, host: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Stops `server` accepting connections and resolves once in-flight requests are done (at most `graceMs`). */
function closeGracefully(server: http.Server, graceMs: number, drain = false): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    timer.unref();
    const closed = () => {
      clearTimeout(timer);
      resolve();
    };
    // http.Server's close() also cuts idle keep-alive connections; net.Server's only stops
    // accepting, and calls back once every connection has ended.
    if (drain) net.Server.prototype.close.call(server, closed);
    else server.close(closed);
  });
}

export async function startGateway(deps: GatewayDeps & { port?: number; adminPort?: number; host?: string }): Promise<RunningGateway> {
  const gateway = createGateway(deps);
  // Collections (registered while the gateway was built) and their indexes exist before it listens.
  await deps.store.init();
  const server = createAppServer(gateway.app);
  const adminServer = createAppServer(gateway.adminApp);
  for (const s of [server, adminServer]) answerClientErrors(s, { baseUrl: gateway.publicBaseUrl, logger: deps.logger });
  const host = deps.host ?? deps.config.GATEWAY_HOST;
  const adminPort = await listen(adminServer, deps.adminPort ?? deps.config.GATEWAY_ADMIN_PORT, host);
  const port = await listen(server, deps.port ?? deps.config.GATEWAY_PORT, host).catch(async (error: unknown) => {
    await closeGracefully(adminServer, 0);
    throw error;
  });
  gateway.setListeningPort(port);
  deps.logger.info({ port, adminPort }, 'gateway listening');

  let closing: Promise<void> | null = null;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    adminPort,
    adminUrl: `http://127.0.0.1:${adminPort}`,
    gateway,
    close(opts = {}) {
      closing ??= (async () => {
        gateway.setDraining();
        await Promise.all([server, adminServer].map((s) => closeGracefully(s, deps.config.SHUTDOWN_GRACE_MS, opts.drain)));
      })();
      return closing;
    },
  };
}

/**
 * Creates (or finds, by name) a workspace and an API key without going through HTTP: the
 * embedded stack seeds its demo workspace with it. Idempotent; see use-cases/workspace-admin.ts.
 */
export function bootstrapWorkspace(
  deps: Pick<GatewayDeps, 'store' | 'upstreams' | 'config' | 'clock'>,
  input: BootstrapWorkspaceInput,
): Promise<BootstrapWorkspaceResult> {
  return bootstrap(workspaceAdminOf(deps), input);
}
