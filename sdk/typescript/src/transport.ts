// The fetch every request of the client goes through: an Idempotency-Key on every POST and PATCH
// (unless the caller gave one), and retries with exponential backoff and full jitter on network
// errors and time-outs, 429 (waiting at least its Retry-After), 503 and 409
// idempotency_in_progress, each retry with the same key and body. No other 4xx is retried: the
// same request would get the same answer.
import { randomUUID } from 'node:crypto';
import { retryAfterSeconds, VrpNetworkError } from './errors';

export interface RetryPolicy {
  /** Retries after the first attempt. Default 3. */
  maxRetries: number;
  /** First backoff, doubled per retry (full jitter). Default 250 ms. */
  baseDelayMs: number;
  /** Longest backoff the client picks itself; a longer Retry-After is still honoured. Default 10 s. */
  maxDelayMs: number;
  /** Time limit of one attempt. Default 30 s. */
  timeoutMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 3, baseDelayMs: 250, maxDelayMs: 10_000, timeoutMs: 30_000 };

export interface TransportOptions {
  retry: RetryPolicy;
  fetch: typeof fetch;
  /** Waits between attempts (tests record the delays instead). */
  sleep: (ms: number) => Promise<void>;
  random: () => number;
}

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
const KEYED_METHODS = new Set(['POST', 'PATCH']);

/** Whether an answer is worth another attempt of the same request. */
async function isRetryable(response: Response): Promise<boolean> {
  if (response.status === 429 || response.status === 503) return true;
  if (response.status !== 409) return false;
  try {
    const body = (await response.clone().json()) as { error?: { code?: unknown } };
    return body.error?.code === 'idempotency_in_progress';
  } catch {
    return false;
  }
}

export function backoffMs(retry: number, policy: RetryPolicy, random: () => number, retryAfter: number | null): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  const jittered = Math.floor(random() * exponential);
  return retryAfter === null ? jittered : Math.max(retryAfter * 1000, jittered);
}

export function retryingFetch(opts: TransportOptions): (input: Request) => Promise<Response> {
  return async (input) => {
    const headers = new Headers(input.headers);
    if (KEYED_METHODS.has(input.method) && !headers.has(IDEMPOTENCY_HEADER)) headers.set(IDEMPOTENCY_HEADER, randomUUID());
    // Read once: every attempt sends the same bytes.
    const body = input.body === null ? undefined : await input.arrayBuffer();
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= opts.retry.maxRetries;
      const signal = input.signal ? AbortSignal.any([input.signal, AbortSignal.timeout(opts.retry.timeoutMs)]) : AbortSignal.timeout(opts.retry.timeoutMs);
      let response: Response;
      try {
        response = await opts.fetch(new Request(input.url, { method: input.method, headers, body, signal, redirect: input.redirect }));
      } catch (err) {
        // The caller's own abort is not retried.
        if (input.signal?.aborted) throw err;
        if (last) throw new VrpNetworkError(`${input.method} ${input.url}: no answer after ${attempt + 1} attempt(s)`, { cause: err });
        await opts.sleep(backoffMs(attempt, opts.retry, opts.random, null));
        continue;
      }
      if (last || !(await isRetryable(response))) return response;
      const delay = backoffMs(attempt, opts.retry, opts.random, retryAfterSeconds(response.headers.get('retry-after')));
      await response.body?.cancel();
      await opts.sleep(delay);
    }
  };
}
