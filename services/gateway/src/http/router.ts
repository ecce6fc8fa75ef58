// Mounts the route table on an Express app: each route gets the same pipeline
// (auth -> JSON body -> validation -> idempotency -> handler), and what no route matched is
// answered 405 with `Allow` (known path, other method) or 404 route_not_found.
import type { Express, Request, RequestHandler } from 'express';
import { AppError, validationFailed } from '@vrp/platform/errors';
import { type Logger } from '@vrp/platform/logging';
import type { IdempotencyStore } from '../store/idempotency-store';
import { authenticate, type AuthDeps } from './middleware/auth';
import type { WorkspaceConcurrency } from './middleware/concurrency';
import type { Admission } from './middleware/rate-limit';
import { idempotency } from './middleware/idempotency';
import { jsonBody } from './middleware/json-body';
import { requestState } from './request-state';
import { DRY_RUN_PARAM, type HttpMethod, type Route } from './route';
import { validateRouteInput } from './validation';

const BODY_METHODS = new Set<HttpMethod>(['post', 'put', 'patch']);

export interface RouterDeps extends AuthDeps {
  idempotencyStore: IdempotencyStore;
  logger: Logger;
  /** Check every response against its declared schema (tests): the reference then cannot lie. */
  validateResponses: boolean;
  /** Rate limits (failed auth, per key, per workspace, admin per address); none when absent. */
  admission?: Admission;
  /** Per-workspace concurrency limit, after the rate limits. */
  concurrency?: WorkspaceConcurrency;
}

function validateInput(route: Route): RequestHandler {
  return (req, _res, next) => {
    const state = requestState(req);
    // Express 5's req.query is a getter over the parsed query string; it is read, never assigned.
    const query = route.dryRunnable ? takeDryRun(req.query as Record<string, unknown>, state.context) : (req.query as unknown);
    const raw = { query, params: req.params as unknown, body: req.body as unknown };
    state.input = validateRouteInput(route, raw);
    next();
  };
}

/**
 * `?dry_run=true` on a write: marks the request's context (carried to the services as gRPC
 * metadata, see packages/platform/src/store/dry-run.ts) and leaves the route's own query without it.
 */
function takeDryRun(query: Record<string, unknown>, context: { dryRun?: boolean }): Record<string, unknown> {
  if (!(DRY_RUN_PARAM in query)) return query;
  const { [DRY_RUN_PARAM]: flag, ...rest } = query;
  if (flag !== 'true' && flag !== 'false') throw validationFailed({ [DRY_RUN_PARAM]: 'must be true or false' });
  if (flag === 'true') context.dryRun = true;
  return rest;
}

function runHandler(route: Route, deps: RouterDeps): RequestHandler {
  return async (req, res) => {
    const state = requestState(req);
    if (!state.input) throw new Error(`${route.operationId}: handler reached without validated input`);
    const result = await route.handler({ ...state.input, principal: state.principal, req, res });
    if (deps.validateResponses) {
      const schema = route.responses[result.status];
      const check = schema?.safeParse(result.body);
      if (!check?.success) {
        deps.logger.error(
          { operationId: route.operationId, status: result.status, issues: check?.error.issues },
          'response does not match its declared schema',
        );
        throw new AppError('internal_error');
      }
    }
    // A dry run answers 200 with what the write would have answered 201 or 202 with.
    res.status(state.context.dryRun && result.status < 300 ? 200 : result.status).json(result.body);
  };
}

export function mountRoutes(app: Express, routes: readonly Route[], deps: RouterDeps): void {
  const replayable = idempotency({ store: deps.idempotencyStore, logger: deps.logger });
  for (const route of routes) {
    const auth = authenticate(route.auth, deps);
    const chain: RequestHandler[] = deps.admission ? [deps.admission.guardAuthentication(route.auth, auth), deps.admission.limit(route.auth)] : [auth];
    if (deps.concurrency) chain.push(deps.concurrency.middleware());
    if (BODY_METHODS.has(route.method)) chain.push(jsonBody());
    chain.push(validateInput(route));
    if (route.idempotent) chain.push(replayable);
    chain.push(runHandler(route, deps));
    app.route(route.path)[route.method](...chain);
  }
  // What no route matched (404 route_not_found, 405) counts against a limit too, and says so.
  if (deps.admission) {
    app.use('/admin/v1', deps.admission.limit('admin'));
    app.use('/v1', deps.admission.limit('none'));
  }
}

/** A method + Express path the app serves (route table, docs and ops endpoints). */
export interface KnownEndpoint {
  method: HttpMethod;
  path: string;
}

function segments(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

/** Express's default matching for our simple patterns: case-insensitive, trailing slash optional. */
function matchesPattern(pattern: string, path: string): boolean {
  const want = segments(pattern);
  const got = segments(path);
  return want.length === got.length && want.every((seg, i) => seg.startsWith(':') || seg.toLowerCase() === got[i]!.toLowerCase());
}

function allowedMethods(endpoints: readonly KnownEndpoint[], req: Request): string[] {
  const methods = new Set<string>();
  for (const endpoint of endpoints) {
    if (!matchesPattern(endpoint.path, req.path)) continue;
    methods.add(endpoint.method.toUpperCase());
    if (endpoint.method === 'get') methods.add('HEAD');
  }
  return [...methods].sort();
}

/** Last stage before the error handler: nothing matched the method and path. */
export function unmatchedRequests(endpoints: readonly KnownEndpoint[]): RequestHandler {
  return (req, res) => {
    const allowed = allowedMethods(endpoints, req);
    if (allowed.length === 0) throw new AppError('route_not_found', `No endpoint exists at ${req.method} ${req.path.slice(0, 200)}.`);
    res.setHeader('Allow', [...allowed, 'OPTIONS'].join(', '));
    if (req.method === 'OPTIONS') {
      res.status(204).end();
      return;
    }
    throw new AppError('method_not_allowed', `${req.path.slice(0, 200)} does not accept ${req.method}; it accepts ${allowed.join(', ')}.`);
  };
}
