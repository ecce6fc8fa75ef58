// GET /v1/reservations throughput and p99 latency with 100,000 reservations in one workspace,
// through the whole embedded stack over HTTP (gateway -> gRPC -> reservation service -> store).
//   cd /work/main && npx tsx bench/reservations.bench.ts [reservations]
// Seeds directly through the reservation service's store module (one bulk insert, no events),
// then runs each case with CONCURRENCY clients until REQUESTS requests or CASE_BUDGET_MS,
// whichever comes first, so the script stays bounded.
import { performance } from 'node:perf_hooks';
import { listing as listingPb } from '../packages/contracts/src';
import { createUpstream } from '@vrp/platform/grpc';
import { dataWorkspaceId } from '@vrp/platform/sandbox';
import { DEMO_RATE_LIMITS as BENCH_RATE_LIMITS, startStack } from '../packages/stack/src';
import type { ReservationRecord } from '../services/reservation/src/domain/reservation';
import { ReservationStore } from '../services/reservation/src/store/reservation-store';
import { benchReservation } from './support/reservations';

const TOTAL = Number(process.argv[2] ?? 100_000);
const LISTINGS = 20;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const REQUESTS = 400;
const CASE_BUDGET_MS = 15_000;

async function main(): Promise<void> {
  const stack = await startStack({ port: 0, ephemeralPorts: true, logLevel: 'silent' });
  try {
    const admin = (method: string, path: string, body?: unknown) =>
      fetch(`${stack.adminBaseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${stack.adminToken}`, 'content-type': 'application/json' },
        body: body ? JSON.stringify(body) : undefined,
      }).then((r) => r.json() as Promise<{ data: Record<string, string> }>);
    const ws = (await admin('POST', '/admin/v1/workspaces', { name: 'Bench', activeListingLimit: LISTINGS, rateLimits: BENCH_RATE_LIMITS })).data.id!;
    const key = (await admin('POST', `/admin/v1/workspaces/${ws}/api-keys`, { mode: 'test' })).data.key!;
    const client = createUpstream(listingPb.ListingServiceClient, { name: 'bench', address: `127.0.0.1:${stack.services.listing.grpcPort}` });
    const listingIds: string[] = [];
    for (let i = 0; i < LISTINGS; i++) {
      const { listing } = await client.call('createListing', {
        workspaceId: dataWorkspaceId(ws, 'test'),
        listing: listingPb.Listing.create({ name: `Bench ${i}` }),
        inactive: false,
      });
      listingIds.push(listing!.id);
    }
    client.close();

    const seedStarted = performance.now();
    const store = new ReservationStore(stack.stores.reservation);
    const batch: ReservationRecord[] = [];
    for (let i = 0; i < TOTAL; i++) {
      batch.push(benchReservation(i, dataWorkspaceId(ws, 'test'), listingIds[i % LISTINGS]!));
      if (batch.length === 1000) await store.insertMany(batch.splice(0));
    }
    if (batch.length) await store.insertMany(batch.splice(0));
    console.log(`seeded ${TOTAL} reservations in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

    // The admin calls' keep-alive connections were closed by the gateway while seeding ran; the
    // first request on each may meet a reset socket. Warm up (with retries) before measuring.
    for (let i = 0; i < CONCURRENCY * 2; i++) {
      await fetch(`${stack.baseUrl}/v1/reservations?limit=1`, { headers: { authorization: `Bearer ${key}` } })
        .then((r) => r.arrayBuffer())
        .catch(() => undefined);
    }

    const cases: [string, string][] = [
      ['default page (limit 50)', '/v1/reservations'],
      ['limit 200, deep offset', '/v1/reservations?limit=200&offset=50000'],
      ['property_id', `/v1/reservations?property_id=${listingIds[3]}`],
      ['status=CONFIRMED + check-in range', '/v1/reservations?status=CONFIRMED&check_in_after=2024-06-01&check_in_before=2024-06-30'],
      ['source + updated_since', `/v1/reservations?source=DIRECT&updated_since=${encodeURIComponent('2023-01-02T00:00:00Z')}`],
    ];
    console.log(`case | requests | req/s | p50 ms | p99 ms  (concurrency ${CONCURRENCY})`);
    // Steady state only: the seeding's aftermath (events in flight, a major GC of the new heap)
    // settles first, and each query shape runs a few times unmeasured (its first run builds the
    // embedded engine's ordered index for it, once per process; the JIT warms up).
    await stack.bus.whenIdle();
    for (const [, path] of cases) {
      for (let i = 0; i < 25; i++) await fetch(`${stack.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.arrayBuffer());
    }
    let failedRequests = 0;
    for (const [name, path] of cases) {
      const latencies: number[] = [];
      const failures = new Map<number, number>();
      const started = performance.now();
      let sent = 0;
      const worker = async () => {
        while (sent < REQUESTS && performance.now() - started < CASE_BUDGET_MS) {
          sent += 1;
          const t0 = performance.now();
          const res = await fetch(`${stack.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
          await res.arrayBuffer();
          // Failures (e.g. 504 past the gateway's upstream deadline) are counted, not timed.
          if (res.status !== 200) failures.set(res.status, (failures.get(res.status) ?? 0) + 1);
          else latencies.push(performance.now() - t0);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      const seconds = (performance.now() - started) / 1000;
      latencies.sort((a, b) => a - b);
      const pct = (p: number) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]!.toFixed(1) : '-');
      const failed = [...failures].map(([status, n]) => `${n} x HTTP ${status}`).join(', ');
      failedRequests += [...failures.values()].reduce((sum, n) => sum + n, 0);
      console.log(
        `${name} | ${latencies.length} | ${(latencies.length / seconds).toFixed(1)} | ${pct(0.5)} | ${pct(0.99)}${failed ? ` | failed: ${failed}` : ''}`,
      );
    }
    if (failedRequests > 0) throw new Error(`${failedRequests} requests were not answered 200: the figures above are not valid`);
  } finally {
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
