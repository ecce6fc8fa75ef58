// First stage of every request: assigns the request id (a caller's well-formed X-Request-Id is
// kept), echoes it in the response, sets baseline security headers, records the request's
// duration under its route pattern, and runs the rest of the pipeline inside the request
// context so logs and upstream gRPC metadata carry the id. A request HTTP itself refuses (an
// HTTP/1.1 request without Host, an `Expect` other than 100-continue) goes straight to the
// error envelope from here, with its request id.
import type { Request, RequestHandler } from 'express';
import { acceptOrCreateRequestId, AppError, httpRequests, runWithContext, type Logger } from '@vrp/platform';
import { initRequestState } from '../request-state';
import { UNMET_EXPECTATION } from '../server';

/** Why HTTP refuses this request before anything else looks at it; null when it does not. */
function httpRefusal(req: Request & { [UNMET_EXPECTATION]?: true }): AppError | null {
  if (req.httpVersionMajor === 1 && req.httpVersionMinor >= 1 && req.headers.host === undefined) {
    return new AppError(
      'malformed_request',
      'HTTP/1.1 requests must carry a Host header (RFC 9112, section 3.2).',
      {},
      'Send the Host header; HTTP client libraries do.',
    );
  }
  if (req[UNMET_EXPECTATION]) {
    return new AppError('expectation_failed', `Expect '${(req.get('expect') ?? '').slice(0, 100)}' cannot be met; only 100-continue is supported.`);
  }
  return null;
}

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
  // for its wildcard paths (a third of the line's cost). Every other line keeps it.
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

    const refused = httpRefusal(req);
    if (refused) res.setHeader('Connection', 'close');
    runWithContext(state.context, () => (refused ? next(refused) : next()));
  };
}
