// Issue 17 benchmark: the cost of the gateway's request path. `GET /v1/reservations/{id}` through
// the gateway against a bare Express handler in its own process that answers the same bytes with
// the same headers, both driven by the same client (`wrk -t2 -c16`), side by side in one run,
// alternating. ratio = gateway req/s / bare req/s. Then p99 at half the gateway's throughput,
// with a constant-rate (open-loop, wrk2-style) client. Two layouts of the same code, measured in
// the same run (BENCH_LAYOUT=one-process|split picks one):
// - one-process: the embedded stack as `pnpm start` runs it (a child process: the gateway and
//   every service on one event loop, their gRPC calls to each other in process (GRPC_IN_PROCESS),
//   logs on at info level into /dev/null);
// - split: production's layout (compose, Helm): the gateway alone in its own process
//   (`startGatewayProcess`) over the services of another embedded-stack process (not the
//   one-process layout's: each layout's processes serve only its own traffic); a request costs
//   CPU in both, and both are reported per request.
// Next to each p99 at half load, the floor: the bare handler at the same constant rate, same
// client; and for every process (and the client) over that window its event-loop delay, GC
// pauses and time waiting for a core (support/loop-delay.ts): where a tail comes from. And, for
// reference, the bare handler at half of its own req/s: what the p99 target asks of any server on
// this machine with this client. Each process's CPU per request and busy share at half load, and,
// measured first, the host's idle penalty (support/idle-penalty.ts): at half the wrk rate a process
// is busy 0.5 x (its CPU per request alone / in a wrk stream), a factor this host sets.
// Targets: ratio >= 0.40, p99 at half load <= 15 ms. Bounded: about 4 minutes (one layout: 2.5).
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { startChild, stopChild } from './support/child';
import { runConstantRate, runWrk, type ConstantRateResult, type WrkResult } from './support/load';
import { measureIdlePenalty } from './support/idle-penalty';
import { LoopDelayWindow, loopDelayOf, type LoopDelayReport } from './support/loop-delay';

// Four rounds of 5 s rather than two of 10: the host's speed drifts by 30-40 % within a minute
// (the same process's rounds differed that much), and finer alternation pairs each layout's round
// with a bare round closer in time, so the drift cancels out of the ratio instead of deciding it.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** Length of each constant-rate window (p99 at half load, its floor, the reference). */
const RATE_SECONDS = Number(process.env.BENCH_RATE_SECONDS ?? 10);
const CONNECTIONS = 16;
const TARGET_RATIO = 0.4;
const TARGET_P99_MS = 15;

/** Headers that belong to the connection or the moment, not to the answer. */
const PER_CONNECTION_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/** CPU time (user + system, ms) a process has used so far; Linux /proc, NaN elsewhere. */
function cpuMsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
  } catch {
    return NaN;
  }
}

const round2 = (n: number) => Math.round(n * 100) / 100;
const round3 = (n: number) => Math.round(n * 1000) / 1000;
const brief = (r: WrkResult & { cpuMsPerRequest: Record<string, number> }) => ({
  req_per_s: Math.round(r.requestsPerSecond),
  cpu_ms_per_request: Object.fromEntries(Object.entries(r.cpuMsPerRequest).map(([name, ms]) => [name, round3(ms)])),
  p50_ms: round2(r.latencyMs.p50),
  p99_ms: round2(r.latencyMs.p99),
  non_2xx: r.non2xx,
  socket_errors: r.socketErrors,
});

type LayoutName = 'one-process' | 'split';
const LAYOUTS: readonly LayoutName[] = process.env.BENCH_LAYOUT ? [process.env.BENCH_LAYOUT as LayoutName] : ['one-process', 'split'];
for (const layout of LAYOUTS) if (layout !== 'one-process' && layout !== 'split') throw new Error(`BENCH_LAYOUT must be one-process or split, not ${layout}`);

interface Served {
  baseUrl: string;
  apiKey: string;
  reservationId: string;
}

/** One way of running the gateway: where it answers, and the processes a request costs CPU in. */
interface Layout {
  name: LayoutName;
  url: string;
  headers: Record<string, string>;
  processes: Record<string, number>;
  children: Record<string, ChildProcess>;
}

type Measured = WrkResult & { cpuMsPerRequest: Record<string, number> };
type AtRate = ConstantRateResult & {
  loopDelay: Record<string, LoopDelayReport | undefined>;
  /** Per server process over the window: CPU per request and the share of the window it was busy. */
  cpu: Record<string, { msPerRequest: number; busy: number }>;
};

/** The client's own process, measured like the servers': a stalled client would show as latency. */
const clientWindow = new LoopDelayWindow();

/**
 * The constant-rate client at `rate` for RATE_SECONDS, with the event-loop delay and GC pauses of every
 * server process and of the client over the same window: where a tail comes from.
 */
async function atConstantRate(url: string, headers: Record<string, string>, rate: number, children: Record<string, ChildProcess>): Promise<AtRate> {
  await Promise.all(Object.values(children).map((c) => loopDelayOf(c, 'reset')));
  clientWindow.reset();
  const cpuBefore = Object.fromEntries(Object.entries(children).map(([name, c]) => [name, cpuMsOf(c.pid!)]));
  const start = performance.now();
  const result = await runConstantRate(url, { rate, seconds: RATE_SECONDS, connections: CONNECTIONS, headers });
  const elapsed = performance.now() - start;
  const cpu = Object.fromEntries(
    Object.entries(children).map(([name, c]) => {
      const used = cpuMsOf(c.pid!) - cpuBefore[name]!;
      return [name, { msPerRequest: used / result.sent, busy: used / elapsed }];
    }),
  );
  const client = clientWindow.read();
  const servers = await Promise.all(Object.entries(children).map(async ([name, c]) => [name, await loopDelayOf(c, 'read')] as const));
  return { ...result, cpu, loopDelay: { ...Object.fromEntries(servers), client } };
}

const constantRateBrief = (r: AtRate) => ({
  rate_per_s: r.rate,
  sent: r.sent,
  ok: r.ok,
  failed: r.failed,
  ...(r.failed > 0 ? { failures: r.failures } : {}),
  p50_ms: round2(r.latencyMs.p50),
  p99_ms: round2(r.latencyMs.p99),
  max_ms: round2(r.latencyMs.max),
  cpu_ms_per_request: Object.fromEntries(Object.entries(r.cpu).map(([name, c]) => [name, round3(c.msPerRequest)])),
  busy_percent: Object.fromEntries(Object.entries(r.cpu).map(([name, c]) => [name, Math.round(c.busy * 100)])),
  loop_delay_and_gc: r.loopDelay,
});

async function main(): Promise<void> {
  const loadBefore = loadavg().map(round2);
  // Measured first, while nothing else runs: what the host charges for work after an idle pause.
  const idlePenalty = await measureIdlePenalty();
  const children: ChildProcess[] = [];
  const started = async <T>(script: string, stdout: 'ignore' | 'inherit', message?: unknown) => {
    const c = await startChild<T>(script, stdout, message);
    children.push(c.proc);
    return c;
  };
  try {
    const stack = await started<Served & { addresses: unknown }>('stack-server.ts', 'ignore');
    const layouts: Layout[] = [];
    const layoutOf = (name: LayoutName, served: Served, children: Record<string, ChildProcess>): Layout => ({
      name,
      url: `${served.baseUrl}/v1/reservations/${served.reservationId}`,
      headers: { authorization: `Bearer ${served.apiKey}` },
      processes: Object.fromEntries(Object.entries(children).map(([n, c]) => [n, c.pid!])),
      children,
    });
    if (LAYOUTS.includes('one-process')) layouts.push(layoutOf('one-process', stack.reply, { stack: stack.proc }));
    if (LAYOUTS.includes('split')) {
      // The split gateway gets a services process of its own, so that each layout's processes
      // serve only its own traffic: served over the network too, the one-process stack's handlers
      // would also run for grpc-js's calls, and be compiled by the JIT for both kinds.
      const services = LAYOUTS.includes('one-process') ? await started<Served & { addresses: unknown }>('stack-server.ts', 'ignore') : stack;
      const gateway = await started<Served>('gateway-server.ts', 'ignore', { addresses: services.reply.addresses });
      layouts.push(layoutOf('split', gateway.reply, { gateway: gateway.proc, services: services.proc }));
    }

    // What the gateway answers, served as it is by the bare handler (both layouts answer alike:
    // the same code over the same kind of data; the ids differ, not the length).
    const sample = await fetch(layouts[0]!.url, { headers: layouts[0]!.headers });
    const body = await sample.text();
    if (sample.status !== 200) throw new Error(`gateway answered ${sample.status}: ${body}`);
    const replyHeaders: Record<string, string> = {};
    sample.headers.forEach((value, name) => {
      if (!PER_CONNECTION_HEADERS.has(name)) replyHeaders[name] = value;
    });
    const bare = await started<{ port: number }>('bare-server.ts', 'inherit', { path: '/v1/reservations/:id', status: 200, headers: replyHeaders, body });
    const bareUrl = `http://127.0.0.1:${bare.reply.port}${new URL(layouts[0]!.url).pathname}`;
    const check = await fetch(bareUrl, { headers: layouts[0]!.headers });
    if ((await check.text()) !== body) throw new Error('the bare handler does not answer the same bytes');

    const wrk = (url: string, headers: Record<string, string>, seconds = SECONDS) => runWrk(url, { threads: 2, connections: CONNECTIONS, seconds, headers });
    // CPU each process spent per request: steadier than req/s on a shared machine.
    const measured = async (url: string, headers: Record<string, string>, processes: Record<string, number>): Promise<Measured> => {
      const before = Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, cpuMsOf(pid)]));
      const result = await wrk(url, headers);
      const cpu = Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, (cpuMsOf(pid) - before[name]!) / result.requests]));
      return { ...result, cpuMsPerRequest: cpu };
    };
    // Warm-up: JIT, connection pools, the store's indexes.
    for (const layout of layouts) await wrk(layout.url, layout.headers, 3);
    if (process.env.BENCH_PROFILE) {
      // Profiling (docs/architecture.md, "Per-request cost"): load the gateway only, then stop;
      // start the processes with BENCH_STACK_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=<dir>".
      for (const layout of layouts)
        console.log(JSON.stringify({ profiled: layout.name, ...brief(await measured(layout.url, layout.headers, layout.processes)) }));
      return;
    }
    await wrk(bareUrl, layouts[0]!.headers, 2);
    const gatewayRounds = new Map<LayoutName, Measured[]>(layouts.map((l) => [l.name, []]));
    const bareRounds: Measured[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      for (const layout of layouts) {
        gatewayRounds.get(layout.name)!.push(await measured(layout.url, layout.headers, layout.processes));
        bareRounds.push(await measured(bareUrl, layout.headers, { bare: bare.proc.pid! }));
      }
    }
    const mean = (values: number[]) => values.reduce((s, v) => s + v, 0) / values.length;
    const bareRps = mean(bareRounds.map((r) => r.requestsPerSecond));
    const reports = [];
    let errors = bareRounds.reduce((s, r) => s + r.non2xx + r.socketErrors, 0);
    // What the p99 target asks of any server here: the bare handler at half of its own req/s.
    const bareHalfLoad = await atConstantRate(bareUrl, layouts[0]!.headers, Math.max(1, Math.floor(bareRps / 2)), { bare: bare.proc });
    errors += bareHalfLoad.failed;
    const headline: string[] = [];
    for (const layout of layouts) {
      const rounds = gatewayRounds.get(layout.name)!;
      errors += rounds.reduce((s, r) => s + r.non2xx + r.socketErrors, 0);
      const gatewayRps = mean(rounds.map((r) => r.requestsPerSecond));
      const ratio = gatewayRps / bareRps;
      const rate = Math.max(1, Math.floor(gatewayRps / 2));
      const halfLoad = await atConstantRate(layout.url, layout.headers, rate, layout.children);
      // The floor: the bare handler at the same constant rate, same client. The gateway's p99 can
      // be no better than this on this machine at this moment.
      const floor = await atConstantRate(bareUrl, layout.headers, rate, { bare: bare.proc });
      errors += halfLoad.failed + floor.failed;
      const met = { ratio: ratio >= TARGET_RATIO, p99_at_half_load: halfLoad.latencyMs.p99 <= TARGET_P99_MS };
      const cpu = Object.fromEntries(Object.keys(layout.processes).map((name) => [name, round3(mean(rounds.map((r) => r.cpuMsPerRequest[name]!)))]));
      reports.push({
        layout: layout.name,
        processes: Object.keys(layout.processes),
        gateway_req_per_s: Math.round(gatewayRps),
        cpu_ms_per_request: { ...cpu, total: round3(Object.values(cpu).reduce((s, v) => s + v, 0)) },
        ratio: round2(ratio),
        rounds: rounds.map(brief),
        half_load: constantRateBrief(halfLoad),
        half_load_floor_bare: constantRateBrief(floor),
        met,
      });
      headline.push(
        `${layout.name}: gateway ${Math.round(gatewayRps)} req/s / bare ${Math.round(bareRps)} = ratio ${round2(ratio)} (target >= ${TARGET_RATIO}${met.ratio ? ', met' : ', NOT met'}), ` +
          `p99 at half load ${round2(halfLoad.latencyMs.p99)} ms (target <= ${TARGET_P99_MS}${met.p99_at_half_load ? ', met' : ', NOT met'}; ` +
          `floor: bare handler at the same rate ${round2(floor.latencyMs.p99)} ms), ` +
          `CPU/request ${Object.entries(cpu)
            .map(([name, ms]) => `${name} ${ms} ms`)
            .join(' + ')}; ` +
          // A request that arrives alone costs more than one of a wrk stream (the host's idle
          // penalty, below): at half the wrk rate, busy = 0.5 x that factor.
          `at half load ${Object.entries(halfLoad.cpu)
            .map(([name, c]) => `${name} ${Math.round(c.busy * 100)} % busy, ${round3(c.msPerRequest)} ms/request (x${round2(c.msPerRequest / cpu[name]!)})`)
            .join(', ')}`,
      );
    }
    const report = {
      benchmark: 'gateway overhead: GET /v1/reservations/{id} through the gateway vs a bare Express handler serving the same bytes',
      client: `wrk -t2 -c${CONNECTIONS} -d${SECONDS}s, ${ROUNDS} rounds, each layout then the bare handler; constant-rate client (${RATE_SECONDS} s) at half the gateway's req/s`,
      layouts: {
        'one-process': 'the embedded stack (pnpm start): gateway and every service in one Node process, calling each other in process',
        split: "production's layout: the gateway in its own process over the services in another (CPU per request of both)",
      },
      load_average_before: loadBefore,
      load_average_after: loadavg().map(round2),
      host_idle_penalty: idlePenalty,
      response_bytes: Buffer.byteLength(body),
      bare: { req_per_s: Math.round(bareRps), rounds: bareRounds.map(brief), half_of_its_own_load: constantRateBrief(bareHalfLoad) },
      results: reports,
      targets: { ratio: TARGET_RATIO, p99_at_half_load_ms: TARGET_P99_MS },
    };
    console.log(JSON.stringify(report, null, 2));
    headline.push(
      `reference: the bare handler at half of its own req/s (${bareHalfLoad.rate}/s): p99 ${round2(bareHalfLoad.latencyMs.p99)} ms, ` +
        `${Math.round(bareHalfLoad.cpu.bare!.busy * 100)} % busy; host: ${idlePenalty.work_kib} KiB of work after ${idlePenalty.idle_ms} ms idle ` +
        `costs x${idlePenalty.factor} (${idlePenalty.after_idle_us} us against ${idlePenalty.back_to_back_us} back to back)`,
    );
    console.log(`HEADLINE gateway-overhead (load ${loadBefore[0]}): ${headline.join('; ')}`);
    if (errors > 0) throw new Error(`${errors} requests failed: the figures above are not valid`);
  } finally {
    await Promise.all(children.map(stopChild));
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
