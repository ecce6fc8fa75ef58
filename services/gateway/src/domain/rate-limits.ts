// The rate and concurrency limits of a workspace's plan. A workspace stores only the values an
// operator set; every other value is the documented default. Pure: no I/O.

export interface RateLimits {
  /** Sustained requests per second of one API key. */
  keyRequestsPerSecond: number;
  /** Requests one key may make beyond its per-second rate, refilled every BURST_WINDOW_SECONDS. */
  keyBurst: number;
  /** Sustained requests per second of the whole workspace (all its keys of one mode). */
  workspaceRequestsPerSecond: number;
  /** Burst allowance of the whole workspace, refilled every BURST_WINDOW_SECONDS. */
  workspaceBurst: number;
  /** Requests of the workspace (one mode) in flight at once on one gateway replica. */
  workspaceConcurrency: number;
}

export type RateLimitOverrides = Partial<RateLimits>;

export const RATE_LIMIT_FIELDS = [
  'keyRequestsPerSecond',
  'keyBurst',
  'workspaceRequestsPerSecond',
  'workspaceBurst',
  'workspaceConcurrency',
] as const satisfies readonly (keyof RateLimits)[];

/** The plan of a workspace whose operator set nothing (documented in docs/running.md, "Rate limits and several gateway replicas"). */
export const DEFAULT_RATE_LIMITS: Readonly<RateLimits> = Object.freeze({
  keyRequestsPerSecond: 50,
  keyBurst: 200,
  workspaceRequestsPerSecond: 100,
  workspaceBurst: 400,
  workspaceConcurrency: 32,
});

/** Window of the burst allowance: the burst points refill at once when it ends. */
export const BURST_WINDOW_SECONDS = 10;

/**
 * A flood: a client refused while it has sent more than FLOOD_FACTOR times its per-second
 * allowance in the current second (its burst spent too), i.e. one that ignores Retry-After. Its
 * refusals are answered after a hold (refusalHoldMs, never past the request's deadline): a client
 * in a closed loop then sends at most one request per connection per hold, and cannot take the
 * event loop every tenant shares by being refused faster. A client that just went over its limit
 * is answered at once.
 */
export const FLOOD_FACTOR = 4;
export const REFUSAL_HOLD_MS = 500;
/**
 * Each hold is REFUSAL_HOLD_MS plus up to this much at random. Equal holds answer a flood's
 * connections together, which then come back together: the whole flood would reach the event loop
 * as one burst each hold, and another tenant's request arriving behind it waits for all of it.
 * Spread holds spread the flood evenly over time.
 */
export const REFUSAL_HOLD_JITTER_MS = 500;

/** The hold of one flood refusal, for `random` drawn uniformly from [0, 1). */
export function refusalHoldMs(random: number): number {
  return REFUSAL_HOLD_MS + Math.floor(random * REFUSAL_HOLD_JITTER_MS);
}

/** Upper bound of every value an operator can set. */
export const RATE_LIMIT_VALUE_MAX = 100_000;

/**
 * Requests no key or plan limit covers (the public /v1/openapi.json, unknown paths and methods
 * under /v1): per client address, sustained per second, plus a burst per BURST_WINDOW_SECONDS.
 */
export const ANONYMOUS_REQUESTS_PER_SECOND = 20;
export const ANONYMOUS_BURST = 200;

/** Failed authentications of one client address in AUTH_FAILURE_WINDOW_SECONDS before it is refused (429). */
export const AUTH_FAILURE_WINDOW_SECONDS = 60;

export function effectiveRateLimits(overrides: RateLimitOverrides | null | undefined): RateLimits {
  const limits: RateLimits = { ...DEFAULT_RATE_LIMITS };
  for (const field of RATE_LIMIT_FIELDS) {
    const value = overrides?.[field];
    if (typeof value === 'number' && Number.isInteger(value) && value >= 0) limits[field] = value;
  }
  return limits;
}

/** The overrides after a change: `null` for a field returns it to the default. */
export function mergeRateLimitOverrides(
  current: RateLimitOverrides | null | undefined,
  change: { [K in keyof RateLimits]?: number | null },
): RateLimitOverrides {
  const next: RateLimitOverrides = { ...current };
  for (const field of RATE_LIMIT_FIELDS) {
    if (!(field in change)) continue;
    const value = change[field];
    if (value === null || value === undefined) delete next[field];
    else next[field] = value;
  }
  return next;
}
