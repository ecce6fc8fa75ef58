// Waiting for a condition (tests wait for conditions, never for fixed sleeps). Dependency-free on
// purpose: packages/platform's own tests import this file by its relative path (@vrp/testkit
// depends on @vrp/platform, so platform cannot depend on testkit without a cycle).

export interface WaitOptions {
  /** Named in the timeout error. */
  what?: string;
  /** Default 5000 ms. */
  timeoutMs?: number;
  /** Pause between checks; 0 yields to the event loop only (setImmediate). Default 5 ms. */
  intervalMs?: number;
  /**
   * A check that throws counts as "not yet" (e.g. an HTTP answer without `data` while polling
   * fast); the last error is named in the timeout error. Default: a throw fails at once.
   */
  throwsMeanNotYet?: boolean;
}

const pause = (ms: number) => new Promise<void>((resolve) => (ms > 0 ? setTimeout(resolve, ms) : setImmediate(resolve)));

/** Reads until `ok` holds for the value read, and returns that value. */
export async function until<T>(read: () => Promise<T> | T, ok: (value: T) => boolean, opts: WaitOptions = {}): Promise<T> {
  const { what = 'condition', timeoutMs = 5000, intervalMs = 5, throwsMeanNotYet = false } = opts;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let last: { value: T } | null = null;
    let error: unknown;
    try {
      last = { value: await read() };
      if (ok(last.value)) return last.value;
    } catch (err) {
      if (!throwsMeanNotYet) throw err;
      error = err;
    }
    if (Date.now() > deadline) {
      const seen = last ? `; last value: ${JSON.stringify(last.value)}` : error ? `: ${String(error)}` : '';
      throw new Error(`timed out waiting for ${what}${seen}`);
    }
    await pause(intervalMs);
  }
}

/** Waits until `check` answers true. */
export async function eventually(check: () => Promise<boolean> | boolean, opts: WaitOptions = {}): Promise<void> {
  await until(check, (ok) => ok, opts);
}
