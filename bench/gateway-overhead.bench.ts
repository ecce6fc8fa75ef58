// Issue 17 benchmark: the cost of the gateway's request path. `GET /v1/reservations/{id}` through
// the gateway of the embedded stack (a child process: every service in one Node process, logs on
// at info level into /dev/null) against a bare Express handler in its own process that answers
// the same bytes with the same headers, both driven by the same client (`wrk -t2 -c16`), side by
// side in one run, alternating. ratio = gateway req/s / bare req/s. Then p99 at half the
// gateway's throughput, with a constant-rate (open-loop, wrk2-style) client.
// Targets: ratio >= 0.40, p99 at half load <= 15 ms. Bounded: about 80 s.
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { runConstantRate, runWrk, type WrkResult } from './support/load';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 16;
const TARGET_RATIO = 0.4;
const TARGET_P99_MS = 15;

/** Headers that belong to the connection or the moment, not to the answer. */
const PER_CONNECTION_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

function child<T>(script: string, stdout: 'ignore' | 'inherit', message?: unknown): Promise<{ proc: ChildProcess; reply: T }> {
  const proc = fork(join(__dirname, 'support', script), [], {
    execArgv: ['--import', 'tsx', ...(process.env.BENCH_STACK_NODE_OPTIONS?.split(' ').filter(Boolean) ?? [])],
    stdio: ['ignore', stdout, 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    proc.once('message', (reply: T) => resolve({ proc, reply }));
    proc.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
    if (message !== undefined) proc.send(message as object);
  });
}

function stop(proc: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (proc.exitCode !== null) return resolve();
    proc.once('exit', () => resolve());
    proc.disconnect();
    setTimeout(() => proc.kill('SIGKILL'), 30_000).unref();
  });
}

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
const brief = (r: WrkResult & { cpuMsPerRequest?: number }) => ({
  req_per_s: Math.round(r.requestsPerSecond),
  ...(r.cpuMsPerRequest !== undefined ? { cpu_ms_per_request: Math.round(r.cpuMsPerRequest * 1000) / 1000 } : {}),
  p50_ms: round2(r.latencyMs.p50),
  p99_ms: round2(r.latencyMs.p99),
  non_2xx: r.non2xx,
  socket_errors: r.socketErrors,
});

async function main(): Promise<void> {
  const loadBefore = loadavg().map(round2);
  const stack = await child<{ baseUrl: string; apiKey: string; reservationId: string }>('stack-server.ts', 'ignore');
  const { baseUrl, apiKey, reservationId } = stack.reply;
  const path = `/v1/reservations/${reservationId}`;
  const headers = { authorization: `Bearer ${apiKey}` };

  // What the gateway answers, served as it is by the bare handler.
  const sample = await fetch(`${baseUrl}${path}`, { headers });
  const body = await sample.text();
  if (sample.status !== 200) throw new Error(`gateway answered ${sample.status}: ${body}`);
  const replyHeaders: Record<string, string> = {};
  sample.headers.forEach((value, name) => {
    if (!PER_CONNECTION_HEADERS.has(name)) replyHeaders[name] = value;
  });
  const bare = await child<{ port: number }>('bare-server.ts', 'inherit', { path: '/v1/reservations/:id', status: 200, headers: replyHeaders, body });
  const bareUrl = `http://127.0.0.1:${bare.reply.port}${path}`;
  const check = await fetch(bareUrl, { headers });
  if ((await check.text()) !== body) throw new Error('the bare handler does not answer the same bytes');

  try {
    const gatewayUrl = `${baseUrl}${path}`;
    const wrk = (url: string, seconds = SECONDS) => runWrk(url, { threads: 2, connections: CONNECTIONS, seconds, headers });
    // CPU the stack's process spent per request: steadier than req/s on a shared machine.
    const measured = async (url: string, pid: number): Promise<WrkResult & { cpuMsPerRequest: number }> => {
      const before = cpuMsOf(pid);
      const result = await wrk(url);
      return { ...result, cpuMsPerRequest: (cpuMsOf(pid) - before) / result.requests };
    };
    // Warm-up: JIT, connection pools, the store's indexes.
    await wrk(gatewayUrl, 3);
    if (process.env.BENCH_PROFILE) {
      // Profiling (docs/architecture.md, "Per-request cost"): load the gateway only, then stop;
      // start the stack with BENCH_STACK_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=<dir>".
      console.log(JSON.stringify({ profiled: brief(await measured(gatewayUrl, stack.proc.pid!)) }));
      return;
    }
    await wrk(bareUrl, 2);
    const rounds: { gateway: WrkResult & { cpuMsPerRequest: number }; bare: WrkResult & { cpuMsPerRequest: number } }[] = [];
    for (let i = 0; i < ROUNDS; i++) rounds.push({ gateway: await measured(gatewayUrl, stack.proc.pid!), bare: await measured(bareUrl, bare.proc.pid!) });
    const mean = (pick: (r: (typeof rounds)[number]) => number) => rounds.reduce((s, r) => s + pick(r), 0) / rounds.length;
    const gatewayRps = mean((r) => r.gateway.requestsPerSecond);
    const bareRps = mean((r) => r.bare.requestsPerSecond);
    const ratio = gatewayRps / bareRps;
    const errors = rounds.reduce((s, r) => s + r.gateway.non2xx + r.gateway.socketErrors + r.bare.non2xx + r.bare.socketErrors, 0);

    const halfLoad = await runConstantRate(gatewayUrl, { rate: Math.max(1, Math.floor(gatewayRps / 2)), seconds: SECONDS, connections: CONNECTIONS, headers });
    const met = { ratio: ratio >= TARGET_RATIO, p99_at_half_load: halfLoad.latencyMs.p99 <= TARGET_P99_MS };
    const report = {
      benchmark: 'gateway overhead: GET /v1/reservations/{id} through the gateway (embedded stack) vs a bare Express handler serving the same bytes',
      client: `wrk -t2 -c${CONNECTIONS} -d${SECONDS}s, ${ROUNDS} alternating rounds; constant-rate client at half the gateway's req/s`,
      load_average_before: loadBefore,
      load_average_after: loadavg().map(round2),
      response_bytes: Buffer.byteLength(body),
      rounds: rounds.map((r) => ({ gateway: brief(r.gateway), bare: brief(r.bare), ratio: round2(r.gateway.requestsPerSecond / r.bare.requestsPerSecond) })),
      gateway_req_per_s: Math.round(gatewayRps),
      bare_req_per_s: Math.round(bareRps),
      gateway_cpu_ms_per_request: Math.round(mean((r) => r.gateway.cpuMsPerRequest) * 1000) / 1000,
      ratio: round2(ratio),
      half_load: {
        rate_per_s: halfLoad.rate,
        sent: halfLoad.sent,
        ok: halfLoad.ok,
        failed: halfLoad.failed,
        p50_ms: round2(halfLoad.latencyMs.p50),
        p99_ms: round2(halfLoad.latencyMs.p99),
        max_ms: round2(halfLoad.latencyMs.max),
      },
      targets: { ratio: TARGET_RATIO, p99_at_half_load_ms: TARGET_P99_MS },
      met,
    };
    console.log(JSON.stringify(report, null, 2));
    console.log(
      `HEADLINE gateway-overhead: gateway ${Math.round(gatewayRps)} req/s / bare Express ${Math.round(bareRps)} req/s = ratio ${round2(ratio)} (target >= ${TARGET_RATIO}${met.ratio ? ', met' : ', NOT met'}); p99 at half load ${round2(halfLoad.latencyMs.p99)} ms (target <= ${TARGET_P99_MS}${met.p99_at_half_load ? ', met' : ', NOT met'}); load ${loadBefore[0]}`,
    );
    if (errors > 0 || halfLoad.failed > 0) throw new Error(`${errors + halfLoad.failed} requests failed: the figures above are not valid`);
  } finally {
    await Promise.all([stop(bare.proc), stop(stack.proc)]);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
