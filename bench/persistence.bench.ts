// What persistence (DATA_DIR, LMDB) costs the embedded stack, and how fast it recovers.
//   npx tsx bench/persistence.bench.ts [reservations]
// 1. Write throughput and p99: POST /v1/reservations through the whole stack over HTTP with
//    CONCURRENCY clients, in memory and persisted, alternating (off, on, off, on) in one run; each
//    pass stops after REQUESTS requests or PASS_BUDGET_MS. The best pass of each mode is reported.
// 2. Recovery: `reservations` (default 100,000) reservations written to a persisted reservation
//    store, then the time to open it again: read from LMDB, rebuild the in-memory collection and
//    its unique and equality indexes, and answer the first sorted page (which builds its ordered
//    index), in a fresh process as after a restart. Targets: persistence costs at most 30 % of write throughput; recovery <= 5 s.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createEmbeddedStore } from '@vrp/engines/store';
import { startStack } from '../packages/stack/src';
import { ReservationStore } from '../services/reservation/src/store/reservation-store';
import { reservationSchema } from '../services/reservation/src/store/schemas';
import { benchReservation } from './support/reservations';

const RECOVERY_TOTAL = Number(process.argv[2]?.startsWith('--') ? 100_000 : (process.argv[2] ?? 100_000));
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const REQUESTS = 1_500;
const PASS_BUDGET_MS = 12_000;
const DEMO_KEY = 'sk_test_demo0000000000000000000000000000';

let dateSeq = 0;
function nextStay(): { checkIn: string; checkOut: string } {
  const start = Date.UTC(2032, 0, 1) + dateSeq++ * 3 * 86_400_000;
  return { checkIn: new Date(start).toISOString().slice(0, 10), checkOut: new Date(start + 2 * 86_400_000).toISOString().slice(0, 10) };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function writePass(persisted: boolean): Promise<{ rps: number; p50: number; p99: number; n: number }> {
  const dataDir = persisted ? mkdtempSync(join(tmpdir(), 'vrp-bench-persist-')) : '';
  const stack = await startStack({ port: 0, ephemeralPorts: true, logLevel: 'silent', dataDir });
  try {
    const listings = stack.demo!.listingIds.slice(0, 2);
    const post = (i: number) =>
      fetch(`${stack.baseUrl}/v1/reservations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ propertyId: listings[i % listings.length], ...nextStay(), primaryGuest: { firstName: `Bench${i}` }, source: 'DIRECT' }),
      }).then(async (r) => {
        await r.arrayBuffer();
        if (r.status !== 201) throw new Error(`POST /v1/reservations answered ${r.status}`);
      });
    for (let i = 0; i < CONCURRENCY * 4; i++) await post(i); // warm-up, unmeasured
    const latencies: number[] = [];
    let issued = 0;
    const started = performance.now();
    const deadline = started + PASS_BUDGET_MS;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (issued < REQUESTS && performance.now() < deadline) {
          const i = issued++;
          const t = performance.now();
          await post(i);
          latencies.push(performance.now() - t);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    return { rps: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), n: latencies.length };
  } finally {
    await stack.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

async function recovery(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vrp-bench-recovery-'));
  try {
    const seeding = performance.now();
    const first = createEmbeddedStore('reservation', dataDir);
    const writer = new ReservationStore(first);
    for (let i = 0; i < RECOVERY_TOTAL; i += 1_000) {
      await writer.insertMany(
        Array.from({ length: Math.min(1_000, RECOVERY_TOTAL - i) }, (_, k) => benchReservation(i + k, 'ws_bench', `lst_bench${(i + k) % 20}`)),
      );
    }
    await first.close();
    console.log(`recovery: wrote ${RECOVERY_TOTAL} reservations to ${dataDir} in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);
    // A restart: a new process, whose heap holds only what it loads.
    const child = spawnSync(process.execPath, ['--import', 'tsx', __filename, '--recover', dataDir], { stdio: 'inherit', timeout: 120_000 });
    if (child.status !== 0) throw new Error(`recovery process failed (${child.status ?? child.signal})`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function recover(dataDir: string): Promise<void> {
  const started = performance.now();
  const store = createEmbeddedStore('reservation', dataDir);
  const reader = new ReservationStore(store);
  const loaded = performance.now();
  const page = await reader.page('ws_bench', {}, { today: '2024-01-01', excludedPropertyIds: [] }, { offset: 0, limit: 50 });
  const answered = performance.now();
  if (page.items.length === 0) throw new Error('recovered no reservations');
  console.log(
    `recovery of ${await store.collection({ name: 'reservations', schema: reservationSchema }).countDocuments({})} reservations: loaded + indexed in ${((loaded - started) / 1000).toFixed(2)} s, first sorted page after ${((answered - started) / 1000).toFixed(2)} s (target <= 5 s)`,
  );
  await store.close();
}

async function main(): Promise<void> {
  console.log(
    `load average at start: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; concurrency ${CONCURRENCY}`,
  );
  const results: Record<'off' | 'on', { rps: number; p50: number; p99: number; n: number }[]> = { off: [], on: [] };
  for (const persisted of [false, true, false, true]) {
    const r = await writePass(persisted);
    const mode = persisted ? 'on' : 'off';
    results[mode].push(r);
    console.log(`persistence ${mode.padEnd(3)} | ${r.n} writes | ${r.rps.toFixed(0)} writes/s | p50 ${r.p50.toFixed(1)} ms | p99 ${r.p99.toFixed(1)} ms`);
  }
  const best = (rs: { rps: number; p99: number }[]) => rs.reduce((a, b) => (b.rps > a.rps ? b : a));
  const off = best(results.off);
  const on = best(results.on);
  console.log(
    `write throughput, best pass: off ${off.rps.toFixed(0)}/s (p99 ${off.p99.toFixed(1)} ms), on ${on.rps.toFixed(0)}/s (p99 ${on.p99.toFixed(1)} ms): persistence costs ${(100 * (1 - on.rps / off.rps)).toFixed(0)} % (target <= 30 %)`,
  );
  await recovery();
}

const recoverAt = process.argv.indexOf('--recover');
(recoverAt >= 0 ? recover(process.argv[recoverAt + 1] as string) : main()).then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
