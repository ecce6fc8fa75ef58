// The retry schedule of a delivery: the first attempt at once, then retries after growing
// delays (roughly exponential) with ±20 % jitter so that many deliveries failing together do
// not retry together. After the last retry (about three days after the first attempt) the
// delivery is marked failed.

/** Delay before retry n (1-based), in seconds: 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h, 12 h, 24 h, 24 h. */
export const RETRY_DELAYS_SECONDS = [30, 120, 600, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 24 * 3600, 24 * 3600] as const;

/** First attempt plus every retry. */
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

export const JITTER = 0.2;

/**
 * When to try again after `attempts` failed attempts, or null when the schedule is exhausted.
 * `random` in [0, 1) picks the jitter (injected so tests are exact).
 */
export function nextRetryAt(attempts: number, failedAt: Date, random: () => number = Math.random): Date | null {
  const base = RETRY_DELAYS_SECONDS[attempts - 1];
  if (base === undefined) return null;
  const factor = 1 - JITTER + 2 * JITTER * random();
  return new Date(failedAt.getTime() + Math.round(base * factor * 1000));
}
