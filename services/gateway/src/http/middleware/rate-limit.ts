// Admission of a request: rate limits (rate-limiter-flexible) per API key and per workspace
// (one mode of it) with the values of the workspace's plan, per client address for failed
// authentication and for the admin API. Counters live in the gateway's own store, so every
// replica counts against the same numbers; each store call has a time limit, and when the
// store fails or is slow the replica falls back to an in-memory limiter with the same values
// (the library's insurance limiter) rather than failing the request.
//
// Every /v1 and /admin/v1 response carries RateLimit-Limit, RateLimit-Remaining and
// RateLimit-Reset (the IETF draft's fields) for the tightest limit that applied; a refusal is
// 429 rate_limited with Retry-After. A client that keeps sending far over its limit (a flood that
// ignores Retry-After) gets its refusals after a short hold, so that being refused fast cannot
// take the event loop every tenant shares (domain/rate-limits.ts, FLOOD_FACTOR). Requests no key limit covers (the public
// /v1/openapi.json, unknown paths and methods) count against a per-address limit (the admin
// API's under /admin/v1). Only answers given before any limit is looked at carry none: a
// request HTTP itself refuses (malformed, no Host, an unmet Expect; docs/api.md).
//
// On the embedded store (STORE=memory) the counters are the library's own in-memory limiter
// (RateLimiterMemory), shared by every gateway over that store object, as the store's documents
// would be: the store is in this process anyway, and a store write per limiter per request was
// the largest item of the gateway's per-request cost (docs/architecture.md).
import type { Request, RequestHandler, Response } from 'express';
import { BurstyRateLimiter, RateLimiterMemory, RateLimiterRes, RLWrapperTimeouts, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { AppError } from '@vrp/platform/errors';
import type { DocumentStore } from '@vrp/platform/store';
import type { Logger } from '@vrp/platform/logging';
import {
  ANONYMOUS_BURST,
  ANONYMOUS_REQUESTS_PER_SECOND,
  AUTH_FAILURE_WINDOW_SECONDS,
  BURST_WINDOW_SECONDS,
  effectiveRateLimits,
  FLOOD_FACTOR,
  refusalHoldMs,
  type RateLimits,
} from '../../domain/rate-limits';
import { RateLimiterDocumentStore, rateLimitCounters } from '../../store/rate-limit-store';
import type { WorkspaceStore } from '../../store/workspace-store';
import { requestState } from '../request-state';
import type { AuthKind } from '../route';

export interface AdmissionConfig {
  /** Admin API requests per second of one client address (burst: ten times that per window). */
  ADMIN_RATE_LIMIT_PER_SECOND: number;
  /** Failed authentications of one client address per minute before it is refused. */
  AUTH_FAILURES_PER_MINUTE: number;
  /** Time limit of one limiter call to the store. */
  RATE_LIMIT_STORE_TIMEOUT_MS: number;
}

export interface AdmissionDeps {
  store: DocumentStore;
  workspaces: WorkspaceStore;
  config: AdmissionConfig;
  logger: Logger;
}

/** What the middleware needs of a limiter (a BurstyRateLimiter or a single store limiter). */
interface Limiter {
  readonly points: number;
  consume(key: string): Promise<RateLimiterRes>;
  get(key: string): Promise<RateLimiterRes | null>;
}

/** Outcome of one limiter for the RateLimit-* headers. */
interface Quota {
  limit: number;
  remaining: number;
  resetMs: number;
}

const AUTH_FAILURE_CODES = new Set(['authentication_required', 'invalid_api_key', 'admin_token_invalid']);

function quotaOf(points: number, res: RateLimiterRes): Quota {
  return { limit: points, remaining: Math.max(0, res.remainingPoints), resetMs: Math.max(0, res.msBeforeNext) };
}

function setQuotaHeaders(res: Response, quota: Quota): void {
  if (res.headersSent) return;
  res.setHeader('RateLimit-Limit', String(quota.limit));
  res.setHeader('RateLimit-Remaining', String(quota.remaining));
  res.setHeader('RateLimit-Reset', String(Math.ceil(quota.resetMs / 1000)));
}

/**
 * The 429 of a limit. Made without a stack trace: a refusal is an expected answer, rendered and
 * never logged with its stack, and capturing one was a tenth of what a refusal costs the event
 * loop that every tenant shares (docs/performance.md, "Cuts").
 */
function refusal(what: string, quota: Quota): AppError {
  const depth = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new AppError('rate_limited', `Too many requests: the ${what} was exceeded.`, { retryAfterSeconds: Math.max(1, Math.ceil(quota.resetMs / 1000)) });
  } finally {
    Error.stackTraceLimit = depth;
  }
}

/**
 * Holds the refusal of a flooding client (domain/rate-limits.ts, FLOOD_FACTOR) for its hold
 * (refusalHoldMs), at most until the request's deadline, or until the client goes away.
 */
function holdRefusal(res: Response): Promise<void> {
  const deadline = requestState(res.req).context.deadline;
  const hold = refusalHoldMs(Math.random());
  // The deadline's own answer comes DEADLINE_MARGIN_MS after the deadline: the refusal goes first.
  const ms = Math.min(hold, deadline === undefined ? hold : deadline - Date.now());
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      res.off('close', done);
      resolve();
    }
    res.once('close', done);
  });
}

/** The client address as Express derives it (TRUST_PROXY_HOPS decides whether X-Forwarded-For counts). */
function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

/**
 * In-memory limiters per embedded store object: two gateways over one store (replicas in a test,
 * the embedded stack) count against one limiter, as they would against the store's documents.
 */
const embeddedLimiters = new WeakMap<DocumentStore, Map<string, RateLimiterMemory>>();

function embeddedLimiter(store: DocumentStore, keyPrefix: string, points: number, duration: number): RateLimiterMemory {
  let limiters = embeddedLimiters.get(store);
  if (!limiters) embeddedLimiters.set(store, (limiters = new Map()));
  const id = `${keyPrefix}/${points}/${duration}`;
  let limiter = limiters.get(id);
  if (!limiter) limiters.set(id, (limiter = new RateLimiterMemory({ keyPrefix, points, duration })));
  return limiter;
}

export class Admission {
  private readonly limiters = new Map<string, Limiter>();
  private readonly counters;

  constructor(private readonly deps: AdmissionDeps) {
    this.counters = rateLimitCounters(deps.store);
  }

  /**
   * A store-backed limiter with a time limit and an in-memory fallback; one per prefix and values.
   * On the embedded store: the shared in-memory limiter of that store.
   */
  private storeLimiter(keyPrefix: string, points: number, duration: number): RateLimiterAbstract {
    if (this.deps.store.engine === 'memory') return embeddedLimiter(this.deps.store, keyPrefix, points, duration);
    const insuranceLimiter = new RateLimiterMemory({ keyPrefix, points, duration });
    const limiter = new RateLimiterDocumentStore({ counters: this.counters, keyPrefix, points, duration, insuranceLimiter });
    return new RLWrapperTimeouts({ limiter, timeoutMs: this.deps.config.RATE_LIMIT_STORE_TIMEOUT_MS, insuranceLimiter }) as unknown as RateLimiterAbstract;
  }

  /**
   * A token-bucket-like limiter (the library's BurstyRateLimiter): `perSecond` sustained, plus
   * `burst` more per BURST_WINDOW_SECONDS. Counters are keyed by prefix only, so a plan change
   * keeps what was already counted.
   */
  private bursty(prefix: string, perSecond: number, burst: number, burstWindowSeconds = BURST_WINDOW_SECONDS): Limiter {
    const id = `${prefix}/${perSecond}/${burst}/${burstWindowSeconds}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      const bursty = new BurstyRateLimiter(this.storeLimiter(`rl:${prefix}`, perSecond, 1), this.storeLimiter(`rl:${prefix}:burst`, burst, burstWindowSeconds));
      // The library's types leave out BurstyRateLimiter#get, which it implements.
      const get = (bursty as unknown as { get(key: string): Promise<RateLimiterRes | null> }).get.bind(bursty);
      // The timeout wrapper reports 0 points: the limit is named here.
      limiter = { points: perSecond, consume: (key) => bursty.consume(key), get };
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  private failedAuthLimiter(): Limiter {
    const points = this.deps.config.AUTH_FAILURES_PER_MINUTE;
    const id = `auth-failures/${points}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      const store = this.storeLimiter('rl:auth-failures', points, AUTH_FAILURE_WINDOW_SECONDS);
      limiter = { points, consume: (key) => store.consume(key), get: (key) => store.get(key) };
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  /**
   * Consumes one point; resolves with the quota left, or throws 429 rate_limited. A limiter
   * that fails for any other reason (its store and its fallback both broken) lets the request
   * through: a broken limiter must not take the API down with it.
   */
  private async consume(limiter: Limiter, key: string, what: string, res: Response): Promise<Quota | null> {
    try {
      return quotaOf(limiter.points, await limiter.consume(key));
    } catch (err) {
      if (err instanceof RateLimiterRes) {
        const quota = quotaOf(limiter.points, err);
        setQuotaHeaders(res, { ...quota, remaining: 0 });
        if (err.consumedPoints > FLOOD_FACTOR * limiter.points) await holdRefusal(res);
        throw refusal(what, quota);
      }
      this.deps.logger.error({ err, what }, 'rate limiter failed; request admitted');
      return null;
    }
  }

  /**
   * Wraps authentication: a client address over its failed-authentication limit is refused
   * before its credentials are checked, and each failure counts against it.
   */
  guardAuthentication(kind: AuthKind, authenticate: RequestHandler): RequestHandler {
    if (kind === 'none') return authenticate;
    return async (req, res, next) => {
      const address = clientAddress(req);
      const limiter = this.failedAuthLimiter();
      const seen = await limiter.get(address).catch(() => null);
      if (seen && seen.consumedPoints >= limiter.points) {
        const quota = quotaOf(limiter.points, seen);
        setQuotaHeaders(res, { ...quota, remaining: 0 });
        throw refusal('limit of failed authentications from this address', quota);
      }
      let passed = false;
      try {
        await authenticate(req, res, (err?: unknown) => {
          if (err) throw err;
          passed = true;
        });
      } catch (err) {
        if (err instanceof AppError && AUTH_FAILURE_CODES.has(err.code)) {
          const after = await limiter.consume(address).catch((r: unknown) => (r instanceof RateLimiterRes ? r : null));
          if (after) setQuotaHeaders(res, quotaOf(limiter.points, after));
        }
        throw err;
      }
      if (passed) next();
    };
  }

  /**
   * Rate limits of a request: per key and per workspace (API keys), per address (admin; and
   * `none`: public routes, and what no route matched).
   */
  limit(kind: AuthKind): RequestHandler {
    return async (req, res, next) => {
      if (kind === 'none') {
        const quota = await this.consume(
          this.bursty('anonymous', ANONYMOUS_REQUESTS_PER_SECOND, ANONYMOUS_BURST),
          clientAddress(req),
          'rate limit of unauthenticated requests from this address',
          res,
        );
        if (quota) setQuotaHeaders(res, quota);
      } else if (kind === 'admin') {
        const perSecond = this.deps.config.ADMIN_RATE_LIMIT_PER_SECOND;
        const quota = await this.consume(this.bursty('admin', perSecond, perSecond * 10), clientAddress(req), 'admin API rate limit of this address', res);
        if (quota) setQuotaHeaders(res, quota);
      } else if (kind === 'api_key') {
        const principal = requestState(req).principal!;
        const limits = await this.limitsOf(principal.publicWorkspaceId);
        const key = await this.consume(this.bursty('key', limits.keyRequestsPerSecond, limits.keyBurst), principal.keyId, 'rate limit of this API key', res);
        const workspace = await this.consume(
          this.bursty('workspace', limits.workspaceRequestsPerSecond, limits.workspaceBurst),
          principal.workspaceId,
          'rate limit of this workspace',
          res,
        );
        const tightest = [key, workspace].filter((q): q is Quota => q !== null).sort((a, b) => a.remaining - b.remaining)[0];
        if (tightest) setQuotaHeaders(res, tightest);
        requestState(req).limits = limits;
      }
      next();
    };
  }

  /** The plan's limits (a cached read, see WorkspaceStore); a workspace read that fails or is missing falls back to the defaults. */
  private async limitsOf(workspaceId: string): Promise<RateLimits> {
    const ws = await this.deps.workspaces.getCached(workspaceId).catch(() => null);
    return effectiveRateLimits(ws?.rateLimits);
  }
}
