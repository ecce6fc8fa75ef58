// No answer later than the gateway's deadline (UPSTREAM_DEADLINE_MS). Every upstream call of a
// request gets at most the time left of the request's deadline (RequestContext.deadline, read by
// the gRPC client), so a request that makes several calls answers by its deadline, not by the sum
// of theirs. Whatever else a request waits on (the gateway's own store: keys, plans, idempotency
// records) is cut by a timer that answers 504 upstream_timeout shortly after the deadline.
//
// A write answered 504 (or 503) has an unknown outcome: it may still complete. The client retries
// it with the same Idempotency-Key: while the first still runs that answers 409
// idempotency_in_progress, and once its outcome is known the retry gets it (the recorded response,
// or the write done once by the service that stores the key with its record). docs/api.md.
import type { RequestHandler, Response } from 'express';
import { AppError } from '@vrp/platform/errors';
import { toErrorEnvelope } from '../envelope';
import { requestState } from '../request-state';

/** How long after the deadline the timer answers: the upstream call's own 504 comes first. */
export const DEADLINE_MARGIN_MS = 50;

export function responseDeadline(opts: { deadlineMs: number; baseUrl: () => string }): RequestHandler {
  return (req, res, next) => {
    const state = requestState(req);
    state.context.deadline = Date.now() + opts.deadlineMs;
    const timer = setTimeout(() => {
      if (res.headersSent) return;
      // Sent by the app's own res.json (the response prototype's), past any wrapper: the
      // idempotency recorder records the handler's real outcome when it comes, not this answer.
      // A later answer of the handler is dropped by the app's res.json (an answer was sent).
      const late = new AppError('upstream_timeout', 'The request did not complete within the deadline; a write may still complete.', { retryAfterSeconds: 1 });
      res.setHeader('Retry-After', '1');
      res.status(late.httpStatus);
      (Object.getPrototypeOf(res) as Response).json.call(res, toErrorEnvelope(late, state.context.requestId, opts.baseUrl()));
    }, opts.deadlineMs + DEADLINE_MARGIN_MS);
    timer.unref();
    const clear = () => clearTimeout(timer);
    res.once('finish', clear);
    res.once('close', clear);
    next();
  };
}
