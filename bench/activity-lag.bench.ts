// The time from a listing toggle's HTTP response to the 403 listing_inactive answered by ANOTHER
// service (the reservation service, through its activity cache fed by listing.activity.v1), on
// the embedded stack with one instance of every service and with two (every instance must know).
// Target: p99 under 100 ms in both.
import { startStack } from '@vrp/stack';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);
const TARGET_P99_MS = 100;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * Rounds of toggle -> 403 on a stack with `replicas` instances of every service. With several,
 * a round ends when every reservation instance answers 403: consecutive probes through one
 * gateway replica alternate between the instances (round_robin), so `replicas` 403s in a row
 * means each instance knows.
 */
async function measure(replicas: number): Promise<{ replicas: number; rounds: number; p50_ms: number; p99_ms: number; max_ms: number }> {
  const stack = await startStack({ port: 0, ephemeralPorts: true, logLevel: 'silent', replicas });
  const key = stack.demo!.apiKey;
  const listingId = stack.demo!.listingIds[0]!;
  // One gateway replica, addressed directly: its channel alternates between the instances.
  const gatewayUrl = stack.gateways[0]!.url;
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${gatewayUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  const probe = async () => (await call('GET', `/v1/reservations?property_id=${listingId}&limit=1`)).status;
  /** Probes until `replicas` answers in a row are `status`, bounded. */
  const until = async (status: number, t0: number, boundMs: number) => {
    let inARow = 0;
    while (inARow < replicas) {
      const got = await probe();
      if (got !== 200 && got !== 403) throw new Error(`probe answered ${got}`);
      inARow = got === status ? inARow + 1 : 0;
      if (performance.now() - t0 > boundMs) throw new Error(`no ${status} from every instance within ${boundMs} ms`);
    }
  };

  const lags: number[] = [];
  const deadline = Date.now() + 60_000;
  try {
    for (let i = 0; i < ROUNDS && Date.now() < deadline; i++) {
      const off = await call('PATCH', `/v1/listings/${listingId}`, { active: false });
      if (off.status !== 200) throw new Error(`deactivation answered ${off.status}`);
      const t0 = performance.now();
      await until(403, t0, 2000);
      lags.push(performance.now() - t0);
      const on = await call('PATCH', `/v1/listings/${listingId}`, { active: true });
      if (on.status !== 200) throw new Error(`activation answered ${on.status}`);
      // Every instance sees it active again before the next round.
      await until(200, performance.now(), 4000);
    }
  } finally {
    await stack.stop();
  }
  const sorted = [...lags].sort((x, y) => x - y);
  return {
    replicas,
    rounds: lags.length,
    p50_ms: +percentile(sorted, 50).toFixed(2),
    p99_ms: +percentile(sorted, 99).toFixed(2),
    max_ms: +sorted[sorted.length - 1]!.toFixed(2),
  };
}

async function main(): Promise<void> {
  const runs = [await measure(1), await measure(2)];
  const met = runs.every((r) => r.p99_ms < TARGET_P99_MS);
  console.log(JSON.stringify({ benchmark: 'toggle response -> 403 from every reservation instance', target_p99_ms: TARGET_P99_MS, runs, met }, null, 2));
  console.log(
    `HEADLINE activity lag p99: ${runs.map((r) => `${r.p99_ms} ms at ${r.replicas} replica(s)`).join(', ')} (target < ${TARGET_P99_MS} ms) ${met ? 'met' : 'NOT met'}`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
