// `Idempotency-Key` on every POST and PATCH: the first request with a key runs and its
// response (status and body) is recorded, whatever the client does meanwhile (a client that
// drops the connection does not free the key: the request still runs to its end and its
// outcome is recorded); a retry with the same key and the same request gets that response
// replayed (`Idempotent-Replayed: true`) without running again; a retry while the first still
// runs is 409 idempotency_in_progress with `Retry-After` (when the running request's lease on
// the key ends; it renews the lease every second while it runs, so a key whose request died
// with its process is free to a retry within seconds); the same key with a different
// request is 409 idempotency_conflict. Keys are scoped per workspace (see RequestState.scope)
// and expire after 24 hours. 5xx outcomes are not recorded, nor a service's own 409
// idempotency_in_progress (its first attempt of the same write still runs there), so a retry
// after an outage runs for real; the services store the key with the record they write, in
// the same transaction, so such a retry (or one after a gateway crash) never writes twice.
//
// Runs after authentication, body parsing and validation: a request that never reached its
// handler leaves no record.
import type { Request, RequestHandler, Response } from 'express';
import { AppError, validationFailed } from '@vrp/platform/errors';
import type { Logger } from '@vrp/platform/logging';
import { IDEMPOTENCY_RENEW_MAX_MS, IDEMPOTENCY_RENEW_MS, isValidIdempotencyKey, requestFingerprint } from '../../domain/idempotency';
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

/**
 * Holds back the response until its outcome is recorded, so a retry never sees "in progress"
 * after a reply. A dropped connection changes nothing: the handler runs on and its outcome is
 * recorded when it answers (a crash of the gateway leaves the record pending until its lease
 * runs out; the retry that takes it over then finds the service's own record of the key).
 * The lease on the key is renewed until then.
 */
function recordOutcome(res: Response, recordId: string, store: IdempotencyStore, logger: Logger): void {
  const stopRenewing = renewWhileRunning(recordId, store, logger);
  res.once('finish', stopRenewing);
  const send = res.json.bind(res);
  res.json = ((body?: unknown) => {
    stopRenewing();
    const status = res.statusCode;
    const etag = res.getHeader('ETag');
    // Not recorded: 5xx (a retry runs again), and a service's own "still running" (a retry that
    // met the first attempt of the same write there must not become the key's outcome).
    const persisted =
      status >= 500 || isInProgress(body) ? store.release(recordId) : store.complete(recordId, status, body, typeof etag === 'string' ? etag : null);
    persisted.catch((err: unknown) => logger.error({ err, recordId }, 'could not record the idempotent response')).finally(() => send(body));
    return res;
  }) as Response['json'];
}

/** An error envelope saying that the same request is still running (behind the gateway). */
function isInProgress(body: unknown): boolean {
  const error: unknown = typeof body === 'object' && body !== null && 'error' in body ? body.error : null;
  return typeof error === 'object' && error !== null && 'code' in error && error.code === 'idempotency_in_progress';
}

/** Renews the lease on a claimed key every IDEMPOTENCY_RENEW_MS until stopped (or taken over). */
function renewWhileRunning(recordId: string, store: IdempotencyStore, logger: Logger): () => void {
  const started = Date.now();
  const timer = setInterval(() => {
    if (Date.now() - started > IDEMPOTENCY_RENEW_MAX_MS) return clearInterval(timer);
    store
      .renew(recordId)
      .then((held) => held || clearInterval(timer))
      .catch((err: unknown) => logger.warn({ err, recordId }, 'could not renew the lease of an idempotency key'));
  }, IDEMPOTENCY_RENEW_MS);
  timer.unref();
  return () => clearInterval(timer);
}

export function idempotency(deps: { store: IdempotencyStore; logger: Logger }): RequestHandler {
  return async (req, res, next) => {
    const key = req.get(IDEMPOTENCY_HEADER);
    if ((req.method !== 'POST' && req.method !== 'PATCH') || key === undefined) {
      next();
      return;
    }
    if (!isValidIdempotencyKey(key)) throw validationFailed({ [IDEMPOTENCY_HEADER]: 'must be 1 to 255 visible ASCII characters' });

    const state = requestState(req);
    // A dry run neither claims nor reads a key: it is not counted against idempotency.
    if (state.context.dryRun) {
      next();
      return;
    }
    const fingerprint = requestFingerprint(req.method, req.originalUrl, req.body as unknown);
    const outcome = await deps.store.claim(state.scope, key, fingerprint);
    switch (outcome.kind) {
      case 'fingerprint_mismatch':
        throw new AppError('idempotency_conflict');
      case 'in_progress':
        throw new AppError('idempotency_in_progress', undefined, { retryAfterSeconds: outcome.retryAfterSeconds });
      case 'replay':
        res.setHeader(REPLAYED_HEADER, 'true');
        if (outcome.etag) res.setHeader('ETag', outcome.etag);
        res.status(outcome.status).json(withRequestId(outcome.body, state.context.requestId));
        return;
      case 'claimed':
        recordOutcome(res, outcome.recordId, deps.store, deps.logger);
        next();
        return;
    }
  };
}

/** The request's Idempotency-Key ('' when none): every keyed write carries it into its service. */
/** The key the services store with the write; none in a dry run (nothing is written to remember it by). */
export const idempotencyKeyOf = (req: Request): string => (requestState(req).context.dryRun ? '' : (req.get(IDEMPOTENCY_HEADER) ?? ''));
