// Refusals are cheap: one tenant flooding must not slow another. The embedded stack in its own
// process (`pnpm start`); tenant A (the demo workspace, limits above what is sent) reads
// `GET /v1/reservations/{id}` at a constant RATE_PER_SECOND (open loop: latency counted from each
// request's intended send time) for RATE_SECONDS, alone (quiet), then while tenant B (a workspace
// of its own with the default plan's rate limits) floods `GET /v1/reservations` with
// FLOOD_CLIENTS `wrk` connections, nearly all of which are refused with 429 (a client that far over
// its limit gets its refusals after a hold: domain/rate-limits.ts, FLOOD_FACTOR). ROUNDS pairs;
// the stack's CPU share over each window.
// Targets: A's p99 under the flood <= 3 x its quiet p99, and every request of A answered 200.
// Bounded: about 1 minute.
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { startChild, stopChild } from './support/child';
import { metText, round2, withCpu } from './support/cpu';
import { runConstantRate, runWrk, type ConstantRateResult, type WrkResult } from './support/load';
import { LoopDelayWindow, loopDelayOf, type LoopDelayReport } from './support/loop-delay';

/** The client's own process, measured like the stack: a stalled client would show as latency. */
const clientWindow = new LoopDelayWindow();

const RATE_PER_SECOND = Number(process.env.BENCH_RATE ?? 200);
const RATE_SECONDS = Number(process.env.BENCH_RATE_SECONDS ?? 8);
const FLOOD_CLIENTS = 64;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const TARGET = { p99Ratio: 3, successRate: 1 };

interface Served {
  baseUrl: string;
  adminBaseUrl: string;
  adminToken: string;
  apiKey: string;
  reservationId: string;
}

async function main(): Promise<void> {
  const loadBefore = loadavg().map(round2);
  const stack = await startChild<Served>('stack-server.ts', 'ignore');
  try {
    const { baseUrl, adminBaseUrl, adminToken, apiKey, reservationId } = stack.reply;
    const admin = async (path: string, body: unknown) => {
      const res = await fetch(`${adminBaseUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (res.status !== 201) throw new Error(`POST ${path} answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { data: { id: string; key?: string } }).data;
    };
    // Tenant B: the default plan's rate limits.
    const flooder = await admin('/admin/v1/workspaces', { name: 'Flood', activeListingLimit: 5 });
    const { key: floodKey } = await admin(`/admin/v1/workspaces/${flooder.id}/api-keys`, { mode: 'live' });
    const tenantA = () =>
      runConstantRate(`${baseUrl}/v1/reservations/${reservationId}`, {
        rate: RATE_PER_SECOND,
        seconds: RATE_SECONDS,
        connections: 16,
        headers: { authorization: `Bearer ${apiKey}` },
      });
    const flood = (seconds: number) =>
      runWrk(`${baseUrl}/v1/reservations`, { threads: 1, connections: FLOOD_CLIENTS, seconds, headers: { authorization: `Bearer ${floodKey!}` } });
    await runConstantRate(`${baseUrl}/v1/reservations/${reservationId}`, {
      rate: RATE_PER_SECOND,
      seconds: 2,
      connections: 16,
      headers: { authorization: `Bearer ${apiKey}` },
    });
    await flood(2); // warm-up of the refusal path
    await sleep(1000); // tenant B's burst allowance refills

    const pid = { stack: stack.proc.pid! };
    const rounds: {
      quiet: ConstantRateResult;
      flooded: ConstantRateResult;
      flood: WrkResult;
      busy: { quiet: number; flooded: number };
      stack: { quiet?: LoopDelayReport; flooded?: LoopDelayReport };
      client: { quiet: LoopDelayReport; flooded: LoopDelayReport };
    }[] = [];
    /** Tenant A's window, with the stack's CPU and its event-loop delay and time waiting for a core over it. */
    const window = async () => {
      await loopDelayOf(stack.proc, 'reset');
      clientWindow.reset();
      const { result, cpuMs } = await withCpu(pid, tenantA);
      const client = clientWindow.read();
      return { result, cpuMs, loop: await loopDelayOf(stack.proc, 'read'), client };
    };
    for (let i = 0; i < ROUNDS; i++) {
      const { result: quiet, cpuMs: quietCpu, loop: quietLoop, client: quietClient } = await window();
      const floodRun = flood(RATE_SECONDS + 2);
      await sleep(1000); // the flood is under way
      const { result: flooded, cpuMs, loop: floodedLoop, client: floodedClient } = await window();
      const floodResult = await floodRun;
      // The share of a core the stack used over each window.
      const busy = (ms: number) => ms / (RATE_SECONDS * 1000);
      rounds.push({
        quiet,
        flooded,
        flood: floodResult,
        busy: { quiet: busy(quietCpu.stack!), flooded: busy(cpuMs.stack!) },
        stack: { quiet: quietLoop, flooded: floodedLoop },
        client: { quiet: quietClient, flooded: floodedClient },
      });
      await sleep(1000);
    }
    const sent = rounds.reduce((s, r) => s + r.quiet.sent + r.flooded.sent, 0);
    const ok = rounds.reduce((s, r) => s + r.quiet.ok + r.flooded.ok, 0);
    const successRate = ok / sent;
    const ratios = rounds.map((r) => r.flooded.latencyMs.p99 / r.quiet.latencyMs.p99);
    const worst = Math.max(...ratios);
    const met = { p99_ratio: worst <= TARGET.p99Ratio, success_rate: successRate >= TARGET.successRate };
    const brief = (r: ConstantRateResult) => ({
      sent: r.sent,
      ok: r.ok,
      ...(r.failed ? { failures: r.failures } : {}),
      p50_ms: round2(r.latencyMs.p50),
      p99_ms: round2(r.latencyMs.p99),
      max_ms: round2(r.latencyMs.max),
    });
    console.log(
      JSON.stringify(
        {
          benchmark: `flood: tenant A at ${RATE_PER_SECOND}/s quiet and while tenant B floods with ${FLOOD_CLIENTS} clients`,
          load_average_before: loadBefore,
          load_average_after: loadavg().map(round2),
          rounds: rounds.map((r, i) => ({
            quiet: brief(r.quiet),
            flooded: brief(r.flooded),
            p99_ratio: round2(ratios[i]!),
            flood: {
              req_per_s: Math.round(r.flood.requestsPerSecond),
              requests: r.flood.requests,
              refused_429_or_other_non_2xx: r.flood.non2xx,
              socket_errors: r.flood.socketErrors,
            },
            stack_busy_percent: { quiet: Math.round(r.busy.quiet * 100), flooded: Math.round(r.busy.flooded * 100) },
            stack_loop_delay_and_cpu: r.stack,
            client_loop_delay_and_cpu: r.client,
          })),
          tenant_a_success_rate: successRate,
          targets: TARGET,
          met,
        },
        null,
        2,
      ),
    );
    console.log(
      `HEADLINE flood (load ${loadBefore[0]}): tenant A p99 quiet / under a ${FLOOD_CLIENTS}-client flood of tenant B: ` +
        rounds
          .map(
            (r, i) =>
              `${round2(r.quiet.latencyMs.p99)} / ${round2(r.flooded.latencyMs.p99)} ms = x${round2(ratios[i]!)} (flood ${Math.round(r.flood.requestsPerSecond)} req/s, ${r.flood.non2xx} refused)`,
          )
          .join(', ') +
        ` (target <= x${TARGET.p99Ratio}, ${metText(met.p99_ratio)}); A's success ${round2(successRate * 100)} % (target 100 %, ${metText(met.success_rate)}); ` +
        `stack busy quiet / flooded ${rounds.map((r) => `${Math.round(r.busy.quiet * 100)} / ${Math.round(r.busy.flooded * 100)} %`).join(', ')}, ` +
        `its event-loop delay p99 quiet / flooded ${rounds.map((r) => `${r.stack.quiet?.loop_delay_ms.p99 ?? '?'} / ${r.stack.flooded?.loop_delay_ms.p99 ?? '?'} ms`).join(', ')}, ` +
        `its wait for a core ${rounds.map((r) => `${r.stack.quiet?.cpu_ms?.waiting_for_core ?? '?'} / ${r.stack.flooded?.cpu_ms?.waiting_for_core ?? '?'} ms`).join(', ')}; ` +
        `the client's event-loop delay max ${rounds.map((r) => `${r.client.quiet.loop_delay_ms.max} / ${r.client.flooded.loop_delay_ms.max} ms`).join(', ')}`,
    );
  } finally {
    await stopChild(stack.proc);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
