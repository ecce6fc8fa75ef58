// `Idempotency-Key` on POST: the first request with a key runs and its response (status and
// body) is recorded; a retry with the same key and the same request gets that response
// replayed without running again; the same key with a different request is 409
// idempotency_conflict. Keys are scoped per workspace (see RequestState.scope) and expire
// after 24 hours. 5xx outcomes are not recorded, so a retry after an outage runs for real.
//
// Runs after authentication, body parsing and validation: a request that never reached its
// handler leaves no record.
import type { RequestHandler, Response } from 'express';
import { AppError, validationFailed, type Logger } from '@vrp/platform';
import { isValidIdempotencyKey, requestFingerprint } from '../../domain/idempotency';
import type { IdempotencyStore } from '../../store/idempotency-store';
import { requestState } from '../request-state';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** A replayed error envelope names the current request, as its X-Request-Id header does. */
function withRequestId(body: unknown, requestId: string): unknown {
  if (typeof body !== 'object' || body === null || !('error' in body)) return body;
  const error: unknown = body.error;
  if (typeof error !== 'object' || error === null || !('request_id' in error)) return body;
  return { ...body, error: { ...error, request_id: requestId } };
}

/** Holds back the response until its outcome is recorded, so a retry never sees "in progress" after a reply. */
function recordOutcome(res: Response, recordId: string, store: IdempotencyStore, logger: Logger): void {
  const send = res.json.bind(res);
  let settled = false;
  res.json = ((body?: unknown) => {
    settled = true;
    const status = res.statusCode;
    const persisted = status >= 500 ? store.release(recordId) : store.complete(recordId, status, body);
    persisted
      .catch((err: unknown) => logger.error({ err, recordId }, 'could not record the idempotent response'))
      .finally(() => send(body));
    return res;
  }) as Response['json'];
  // A response that never went through res.json (connection dropped) frees the key.
  res.on('close', () => {
    if (!settled) store.release(recordId).catch((err: unknown) => logger.error({ err, recordId }, 'could not release an idempotency key'));
  });
}

export function idempotency(deps: { store: IdempotencyStore; logger: Logger }): RequestHandler {
  return async (req, res, next) => {
    const key = req.get(IDEMPOTENCY_HEADER);
    if (req.method !== 'POST' || key === undefined) {
      next();
      return;
    }
    if (!isValidIdempotencyKey(key)) throw validationFailed({ [IDEMPOTENCY_HEADER]: 'must be 1 to 255 visible ASCII characters' });

    const state = requestState(req);
    const fingerprint = requestFingerprint(req.method, req.originalUrl, req.body as unknown);
    const outcome = await deps.store.claim(state.scope, key, fingerprint);
    switch (outcome.kind) {
      case 'fingerprint_mismatch':
        throw new AppError('idempotency_conflict');
      case 'in_progress':
        throw new AppError(
          'idempotency_conflict',
          'A request with this Idempotency-Key is still being processed.',
          {},
          'Wait until the first request has finished, then retry with the same key to receive its response.',
        );
      case 'replay':
        res.setHeader(REPLAYED_HEADER, 'true');
        res.status(outcome.status).json(withRequestId(outcome.body, state.context.requestId));
        return;
      case 'claimed':
        recordOutcome(res, outcome.recordId, deps.store, deps.logger);
        next();
        return;
    }
  };
}
