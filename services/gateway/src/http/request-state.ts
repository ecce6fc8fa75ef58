// Per-request state the pipeline stages share, kept off `res.locals` (untyped) in a WeakMap.
// `context` is the very object stored in AsyncLocalStorage: authentication fills in the
// workspace on it, so every later log line and upstream call sees the workspace too.
import type { NextFunction, Request } from 'express';
import { runWithContext, type RequestContext } from '@vrp/platform/context';
import type { ApiKeyPrincipal } from '../domain/api-key-record';
import type { RateLimits } from '../domain/rate-limits';

export interface ValidatedInput {
  query: unknown;
  params: unknown;
  body: unknown;
}

export interface RequestState {
  context: RequestContext;
  principal: ApiKeyPrincipal | null;
  /** Tenant of idempotency keys: the workspace, "admin" or "public". */
  scope: string;
  input: ValidatedInput | null;
  /** The plan limits of an API-key request's workspace, once admitted (rate-limit middleware). */
  limits?: RateLimits;
}

const states = new WeakMap<Request, RequestState>();

export function initRequestState(req: Request, context: RequestContext): RequestState {
  const state: RequestState = { context, principal: null, scope: 'public', input: null };
  states.set(req, state);
  return state;
}

export function requestState(req: Request): RequestState {
  const state = states.get(req);
  if (!state) throw new Error('request state missing: the request-context middleware must run first');
  return state;
}

/**
 * Continues the pipeline inside the request's context. Needed after any stage whose callback
 * fires from stream events (body parsing): those run in the socket's async context, not ours.
 */
export function continueInContext(req: Request, next: NextFunction, err?: unknown): void {
  const state = states.get(req);
  if (!state) {
    next(err);
    return;
  }
  runWithContext(state.context, () => next(err));
}
