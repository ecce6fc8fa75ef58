// First stage of every request: assigns the request id (a caller's well-formed X-Request-Id is
// kept), echoes it in the response, sets baseline security headers, records the request's
// duration under its route pattern, and runs the rest of the pipeline inside the request
// context so logs and upstream gRPC metadata carry the id.
import type { Request, RequestHandler } from 'express';
import { acceptOrCreateRequestId, httpRequests, runWithContext, type Logger } from '@vrp/platform';
import { initRequestState } from '../request-state';

const OPS_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);

/** The route pattern (never the raw path, which would explode metric cardinality). */
function routeLabel(req: Request): string {
  const route: unknown = req.route;
  const path = typeof route === 'object' && route !== null ? (route as { path?: unknown }).path : undefined;
  return typeof path === 'string' ? path : 'unmatched';
}

export function requestContext(logger: Logger): RequestHandler {
  // The line per request has fixed fields (ids, method, route pattern, status, duration) and
  // never a secret, so it skips the logger's redaction, which walks every logged object's keys
  // for its wildcard paths (a third of the line's cost; issue 17). Every other line keeps it.
  const accessLog = logger.child({}, { redact: { paths: [] } });
  return (req, res, next) => {
    const requestId = acceptOrCreateRequestId(req.get('x-request-id'));
    const state = initRequestState(req, { requestId });
    const started = process.hrtime.bigint();

    res.setHeader('X-Request-Id', requestId);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'no-referrer');
    // API answers are per caller and per moment; pages that may be cached say so themselves.
    res.setHeader('Cache-Control', 'no-store');

    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routeLabel(req);
      httpRequests.observe({ method: req.method, route, status: String(res.statusCode) }, seconds);
      // 'finish' fires outside the request's async context: name the ids explicitly. Probes and
      // scrapes arrive every few seconds; they are logged only at debug level.
      const level = OPS_ROUTES.has(route) ? 'debug' : 'info';
      accessLog[level](
        {
          request_id: requestId,
          ...(state.context.workspaceId ? { workspace_id: state.context.workspaceId } : {}),
          method: req.method,
          route,
          status: res.statusCode,
          duration_ms: Math.round(seconds * 1000),
        },
        'request served',
      );
    });

    runWithContext(state.context, next);
  };
}
