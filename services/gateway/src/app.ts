// Wiring of the gateway: the only public HTTP surface. Stores and upstream clients come in;
// an Express app with the route table, docs, ops endpoints and the error envelope goes out.
// It authenticates, validates, assigns the request id, calls the services and renders errors;
// it holds no domain rules of its own.
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler } from 'express';
import { AppliedRequests, type DocumentStore, type Logger } from '@vrp/platform';
import type { GatewayConfig } from './config';
import { answerClientErrors } from './http/client-errors';
import { classifyError, sendError } from './http/envelope';
import { installJsonResponse } from './http/json-response';
import { createAppServer } from './http/server';
import { buildOpenApiDocument, serversOf, type OpenApiDocument } from './http/openapi';
import { mountPages, PAGE_ENDPOINTS } from './http/pages';
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
import { webhookRoutes } from './http/routes/webhooks';
import { ApiKeyStore } from './store/api-key-store';
import { IdempotencyStore } from './store/idempotency-store';
import { WorkspaceStore } from './store/workspace-store';
import type { GatewayUpstreams } from './ports/upstreams';
import { WorkspaceAdmin, type BootstrapWorkspaceInput, type BootstrapWorkspaceResult } from './use-cases/workspace-admin';

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
  app: express.Express;
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

function workspaceAdminOf(deps: Pick<GatewayDeps, 'store' | 'upstreams' | 'config' | 'clock'>): WorkspaceAdmin {
  return new WorkspaceAdmin({
    workspaces: new WorkspaceStore(deps.store),
    apiKeys: new ApiKeyStore(deps.store),
    listing: deps.upstreams.listing,
    apiKeyPepper: deps.config.API_KEY_PEPPER,
    store: deps.store,
    applied: new AppliedRequests(deps.store, deps.clock),
    ...(deps.clock ? { clock: deps.clock } : {}),
  });
}

export function createGateway(deps: GatewayDeps): Gateway {
  const { config, logger } = deps;
  let listeningPort = config.GATEWAY_PORT;
  let draining = false;
  const publicBaseUrl = () => config.PUBLIC_BASE_URL ?? `http://localhost:${listeningPort}`;

  const admin = workspaceAdminOf(deps);
  const apiKeys = new ApiKeyStore(deps.store, { cacheTtlMs: config.API_KEY_CACHE_TTL_MS });
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
    ...adminListingRoutes(deps.upstreams.listing, admin),
    ...adminDeadLetterRoutes(deps.upstreams.deadLetters),
    ...webhookRoutes(deps.upstreams.webhook),
    ...metaRoutes(openApiDocument),
    ...(deps.extraRoutes ?? []),
  ];
  // Built now so that a schema zod cannot express fails at start, not on the first /docs request.
  document = buildOpenApiDocument(routes, { serverUrl: publicBaseUrl() });

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', config.TRUST_PROXY_HOPS);
  installJsonResponse(app);
  app.use(requestContext(logger));
  mountPages(app, { document: openApiDocument, baseUrl: publicBaseUrl, checks: { store: () => deps.store.ready() }, draining: () => draining });
  mountRoutes(app, routes, {
    apiKeys,
    apiKeyPepper: config.API_KEY_PEPPER,
    adminToken: config.ADMIN_TOKEN,
    idempotencyStore,
    logger,
    validateResponses: deps.validateResponses ?? false,
    admission: new Admission({ store: deps.store, workspaces: new WorkspaceStore(deps.store, { cacheTtlMs: config.API_KEY_CACHE_TTL_MS }), config, logger }),
    concurrency: new WorkspaceConcurrency(),
  });
  app.use(unmatchedRequests([...routes.map(({ method, path }) => ({ method, path })), ...PAGE_ENDPOINTS]));

  const renderErrors: ErrorRequestHandler = (err: unknown, req, res, _next) => {
    const { appError, expected } = classifyError(err);
    if (!expected) logger.error({ err, method: req.method, path: req.path }, 'unhandled error');
    if (res.headersSent) {
      // Too late for an envelope: cut the response so the client sees a failure, not a truncated success.
      res.destroy();
      return;
    }
    sendError(res, appError, requestState(req).context.requestId, publicBaseUrl());
  };
  app.use(renderErrors);

  return {
    app,
    routes,
    openApiDocument,
    publicBaseUrl,
    bootstrapWorkspace: (input) => admin.bootstrap(input),
    setListeningPort(port) {
      listeningPort = port;
    },
    setDraining() {
      draining = true;
    },
  };
}

export interface RunningGateway {
  port: number;
  /** http://127.0.0.1:<port>, for in-process callers (tests, the embedded stack). */
  url: string;
  gateway: Gateway;
  /** Stops accepting connections, lets in-flight requests finish (bounded), then resolves. */
  close(): Promise<void>;
}

export async function startGateway(deps: GatewayDeps & { port?: number; host?: string }): Promise<RunningGateway> {
  const gateway = createGateway(deps);
  // Collections (registered while the gateway was built) and their indexes exist before it listens.
  await deps.store.init();
  const server = createAppServer(gateway.app);
  answerClientErrors(server, { baseUrl: gateway.publicBaseUrl, logger: deps.logger });
  const host = deps.host ?? deps.config.GATEWAY_HOST;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(deps.port ?? deps.config.GATEWAY_PORT, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  gateway.setListeningPort(port);
  deps.logger.info({ port }, 'gateway listening');

  let closing: Promise<void> | null = null;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    gateway,
    close() {
      closing ??= new Promise<void>((resolve) => {
        gateway.setDraining();
        const timer = setTimeout(() => server.closeAllConnections(), deps.config.SHUTDOWN_GRACE_MS);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        // Keep-alive connections with no request in flight would otherwise hold close() open.
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}

/**
 * Creates (or finds, by name) a workspace and an API key without going through HTTP: the
 * embedded stack seeds its demo workspace with it. Idempotent; see WorkspaceAdmin.bootstrap.
 */
export function bootstrapWorkspace(
  deps: Pick<GatewayDeps, 'store' | 'upstreams' | 'config' | 'clock'>,
  input: BootstrapWorkspaceInput,
): Promise<BootstrapWorkspaceResult> {
  return workspaceAdminOf(deps).bootstrap(input);
}
