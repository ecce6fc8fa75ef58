// The cost of the gateway's request path: `GET /v1/reservations/{id}` through the gateway against
// references that answer the same bytes with the same headers, all driven by the same client
// (`wrk -t2 -c16`), side by side in one run, alternating rounds. Two layouts of the same code
// (BENCH_LAYOUT=one-process|split picks one):
// - one-process: the embedded stack as `pnpm start` runs it (a child process: the gateway and
//   every service on one event loop, their gRPC calls to each other in process, logs on at info
//   level into /dev/null). Reference: a bare Express handler in its own process (bare-server.ts).
//   ratio = gateway req/s / bare req/s.
// - split: production's layout (compose, Helm): the gateway alone in its own process
//   (`startGatewayProcess`) over the services of another embedded-stack process (each layout's
//   processes serve only its own traffic). Reference: the bare hop, a bare Express handler that
//   answers from one bare grpc-js unary call to another process (hop-server.ts over
//   hop-upstream.ts: raw bytes, no proto, no checks): the floor of a design in which an HTTP
//   process answers from a gRPC call to another. ratio = gateway req/s / hop req/s; and the
//   gateway process's CPU per request. Beside it the contract's hop (hop-server.ts with
//   `contract`), over the bare upstream and over the split layout's reservation service: an HTTP
//   process doing only what the interface contract asks of every request (request id, API key, a
//   rate limit, the id checked, a deadline, an access-log line), whose ratio to the hop is the most
//   a gateway keeping the contract over that upstream can reach. Also over the least reservation
//   service (hop-upstream.ts with `reservation`: the same reservation answered from a Map, the
//   reply encoded by the generated code, nothing else): the most any gateway keeping the contract
//   can reach over any reservation service.
// Then the p99 at a fixed rate (RATE_PER_SECOND, constant-rate open-loop client, latency counted
// from each request's intended send time), per layout: RATE_ROUNDS rounds, each a window of the
// gateway and one of the bare handler at the same rate right next to it (the order alternating);
// each round's ratio = gateway p99 / bare p99 (the machine's own tail cancels out), and the
// layout's ratio is the median of its rounds' (one window stalled by the host does not decide it).
// In split, the bare hop at the same rate in each round as well: its own ratio to the bare
// handler is the floor of the split ratio.
// Each process's CPU per request is read from /proc (steadier than req/s on a shared machine).
// Targets: one-process ratio >= 0.45; split ratio to the hop >= 0.85; gateway CPU per request in
// split layout <= 0.45 ms; p99 at 1,000 req/s <= 2 x the bare handler's (both layouts).
// Bounded: about 3 minutes (one layout: 2).
import type { ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import * as grpc from '@grpc/grpc-js';
import { reservation as pb } from '@vrp/contracts';
import { startChild, stopChild } from './support/child';
import { round2, round3, statusText, withCpu } from './support/cpu';
import { runConstantRate, runWrk, type ConstantRateResult, type WrkResult } from './support/load';
import { LoopDelayWindow, loopDelayOf, type LoopDelayReport } from './support/loop-delay';

// Rounds of 5 s: the host's speed drifts within a minute, and alternating short rounds pairs each
// gateway round with a reference round close in time, so the drift cancels out of the ratio.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** The fixed rate of the p99 comparison, how long each window lasts, and how many rounds of windows. */
const RATE_PER_SECOND = Number(process.env.BENCH_RATE ?? 1000);
const RATE_SECONDS = Number(process.env.BENCH_RATE_SECONDS ?? 5);
const RATE_ROUNDS = Number(process.env.BENCH_RATE_ROUNDS ?? 3);
const CONNECTIONS = 16;
const TARGET = { oneProcessRatio: 0.45, splitToHopRatio: 0.85, splitGatewayCpuMs: 0.45, p99Ratio: 2 };

/** Headers that belong to the connection or the moment, not to the answer. */
const PER_CONNECTION_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

type LayoutName = 'one-process' | 'split';
const LAYOUTS: readonly LayoutName[] = process.env.BENCH_LAYOUT ? [process.env.BENCH_LAYOUT as LayoutName] : ['one-process', 'split'];
for (const layout of LAYOUTS) if (layout !== 'one-process' && layout !== 'split') throw new Error(`BENCH_LAYOUT must be one-process or split, not ${layout}`);

interface Served {
  baseUrl: string;
  apiKey: string;
  reservationId: string;
}

/** Something the client loads: a layout of the gateway or a reference, and the processes a request costs CPU in. */
interface Subject {
  name: string;
  url: string;
  children: Record<string, ChildProcess>;
}

type Measured = WrkResult & { cpuMsPerRequest: Record<string, number> };
type AtRate = ConstantRateResult & { loopDelay: Record<string, LoopDelayReport | undefined>; cpuMsPerRequest: Record<string, number> };

const pidsOf = (children: Record<string, ChildProcess>) => Object.fromEntries(Object.entries(children).map(([name, c]) => [name, c.pid!]));
const mean = (values: number[]) => values.reduce((s, v) => s + v, 0) / values.length;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const brief = (r: Measured) => ({
  req_per_s: Math.round(r.requestsPerSecond),
  cpu_ms_per_request: Object.fromEntries(Object.entries(r.cpuMsPerRequest).map(([name, ms]) => [name, round3(ms)])),
  p50_ms: round2(r.latencyMs.p50),
  p99_ms: round2(r.latencyMs.p99),
  non_2xx: r.non2xx,
  socket_errors: r.socketErrors,
});

/** A reservation as the split layout's reservation service answers it (pb.Reservation.toJSON), through the generated client. */
async function reservationOf(address: string, workspaceId: string, id: string): Promise<unknown> {
  const client = new pb.ReservationServiceClient(address, grpc.credentials.createInsecure());
  try {
    const reply = await new Promise<pb.GetReservationResponse>((resolve, reject) =>
      client.getReservation({ workspaceId, id }, new grpc.Metadata(), { deadline: Date.now() + 10_000 }, (err, r) => (err ? reject(err) : resolve(r))),
    );
    if (!reply.reservation) throw new Error(`the reservation service answered no reservation ${id}`);
    return pb.Reservation.toJSON(reply.reservation);
  } finally {
    client.close();
  }
}

/** The client's own process, measured like the servers': a stalled client would show as latency. */
const clientWindow = new LoopDelayWindow();

/** The constant-rate client at RATE_PER_SECOND, with each process's CPU per request and event-loop delay over the window. */
async function atFixedRate(subject: Subject, headers: Record<string, string>): Promise<AtRate> {
  await Promise.all(Object.values(subject.children).map((c) => loopDelayOf(c, 'reset')));
  clientWindow.reset();
  const { result, cpuMs } = await withCpu(pidsOf(subject.children), () =>
    runConstantRate(subject.url, { rate: RATE_PER_SECOND, seconds: RATE_SECONDS, connections: CONNECTIONS, headers }),
  );
  const client = clientWindow.read();
  const servers = await Promise.all(Object.entries(subject.children).map(async ([name, c]) => [name, await loopDelayOf(c, 'read')] as const));
  const cpuMsPerRequest = Object.fromEntries(Object.entries(cpuMs).map(([name, ms]) => [name, ms / result.sent]));
  return { ...result, cpuMsPerRequest, loopDelay: { ...Object.fromEntries(servers), client } };
}

const atRateBrief = (r: AtRate) => ({
  rate_per_s: r.rate,
  sent: r.sent,
  ok: r.ok,
  failed: r.failed,
  ...(r.failed > 0 ? { failures: r.failures } : {}),
  p50_ms: round2(r.latencyMs.p50),
  p99_ms: round2(r.latencyMs.p99),
  max_ms: round2(r.latencyMs.max),
  cpu_ms_per_request: Object.fromEntries(Object.entries(r.cpuMsPerRequest).map(([name, ms]) => [name, round3(ms)])),
  loop_delay_and_gc: r.loopDelay,
});

async function main(): Promise<void> {
  const loadBefore = loadavg().map(round2);
  const children: ChildProcess[] = [];
  const started = async <T>(script: string, stdout: 'ignore' | 'inherit', message?: unknown) => {
    const c = await startChild<T>(script, stdout, message);
    children.push(c.proc);
    return c;
  };
  try {
    const stack = await started<Served & { addresses: { reservation: string } }>('stack-server.ts', 'ignore');
    const layouts: Subject[] = [];
    // Both layouts seed the same demo workspace, with the same key.
    const headers = { authorization: `Bearer ${stack.reply.apiKey}` };
    const layoutOf = (name: LayoutName, served: Served, processes: Record<string, ChildProcess>): Subject => {
      if (served.apiKey !== stack.reply.apiKey) throw new Error(`the ${name} layout seeded another demo key`);
      return { name, url: `${served.baseUrl}/v1/reservations/${served.reservationId}`, children: processes };
    };
    if (LAYOUTS.includes('one-process')) layouts.push(layoutOf('one-process', stack.reply, { stack: stack.proc }));
    let split: { subject: Subject; services: { proc: ChildProcess; reply: { addresses: { reservation: string } } }; dataWorkspaceId: string } | undefined;
    if (LAYOUTS.includes('split')) {
      // The split gateway gets a services process of its own, so that each layout's processes
      // serve only its own traffic (and the JIT compiles each for one kind of call).
      const services = LAYOUTS.includes('one-process') ? await started<Served & { addresses: { reservation: string } }>('stack-server.ts', 'ignore') : stack;
      const gateway = await started<Served & { dataWorkspaceId: string }>('gateway-server.ts', 'ignore', { addresses: services.reply.addresses });
      const subject = layoutOf('split', gateway.reply, { gateway: gateway.proc, services: services.proc });
      layouts.push(subject);
      split = { subject, services, dataWorkspaceId: gateway.reply.dataWorkspaceId };
    }

    // What the gateway answers, served as it is by the references (both layouts answer alike:
    // the same code over the same kind of data; the ids differ, not the length).
    const sample = await fetch(layouts[0]!.url, { headers });
    const body = await sample.text();
    if (sample.status !== 200) throw new Error(`gateway answered ${sample.status}: ${body}`);
    const replyHeaders: Record<string, string> = {};
    sample.headers.forEach((value, name) => {
      if (!PER_CONNECTION_HEADERS.has(name)) replyHeaders[name] = value;
    });
    const path = new URL(layouts[0]!.url).pathname;
    const bare = await started<{ port: number }>('bare-server.ts', 'inherit', { path: '/v1/reservations/:id', status: 200, headers: replyHeaders, body });
    const bareSubject: Subject = { name: 'bare', url: `http://127.0.0.1:${bare.reply.port}${path}`, children: { bare: bare.proc } };
    const references: Subject[] = [bareSubject];
    /** References over a reservation service: they answer the split layout's reservation. */
    const answersSplit = new Set<string>();
    if (split) {
      const upstream = await started<{ address: string; method: string }>('hop-upstream.ts', 'inherit', { body });
      const hop = await started<{ port: number }>('hop-server.ts', 'inherit', { ...upstream.reply, path: '/v1/reservations/:id', headers: replyHeaders });
      references.push({ name: 'hop', url: `http://127.0.0.1:${hop.reply.port}${path}`, children: { hop: hop.proc, 'hop-upstream': upstream.proc } });
      // The least reservation service: the split layout's reservation, answered from a Map.
      const reservationId = new URL(split.subject.url).pathname.split('/').pop()!;
      const stored = await reservationOf(split.services.reply.addresses.reservation, split.dataWorkspaceId, reservationId);
      const least = await started<{ address: string }>('hop-upstream.ts', 'inherit', { reservation: { workspaceId: split.dataWorkspaceId, json: stored } });
      // The contract's hop: an HTTP process doing only what the contract asks of every request
      // (its access log into a discarded stdout, as the gateway's), over the bare upstream, over
      // the split layout's reservation service and over the least reservation service.
      for (const [name, services, upstreamName, upstreamProc] of [
        ['contract-hop', undefined, 'hop-upstream', upstream.proc],
        [
          'contract-hop-services',
          { reservationAddress: split.services.reply.addresses.reservation, workspaceId: split.dataWorkspaceId },
          'services',
          split.services.proc,
        ],
        ['contract-hop-least', { reservationAddress: least.reply.address, workspaceId: split.dataWorkspaceId }, 'least-service', least.proc],
      ] as const) {
        const contractHop = await started<{ port: number }>('hop-server.ts', 'ignore', {
          ...upstream.reply,
          path: '/v1/reservations/:id',
          headers: replyHeaders,
          contract: { apiKey: stack.reply.apiKey, ...(services ? { services } : {}) },
        });
        if (services) answersSplit.add(name);
        references.push({
          name,
          url: `http://127.0.0.1:${contractHop.reply.port}${services ? new URL(split.subject.url).pathname : path}`,
          children: { [name]: contractHop.proc, [upstreamName]: upstreamProc },
        });
      }
    }
    // The contract's hop answers the split layout's reservation, as its gateway does.
    const splitBody = split ? await (await fetch(split.subject.url, { headers })).text() : body;
    for (const ref of references) {
      const check = await fetch(ref.url, { headers });
      const expected = answersSplit.has(ref.name) ? splitBody : body;
      if ((await check.text()) !== expected) throw new Error(`the ${ref.name} reference does not answer the same bytes as the gateway`);
    }

    const wrk = (url: string, seconds = SECONDS) => runWrk(url, { threads: 2, connections: CONNECTIONS, seconds, headers });
    const measured = async (subject: Subject): Promise<Measured> => {
      const { result, cpuMs } = await withCpu(pidsOf(subject.children), () => wrk(subject.url));
      return { ...result, cpuMsPerRequest: Object.fromEntries(Object.entries(cpuMs).map(([name, ms]) => [name, ms / result.requests])) };
    };
    // Warm-up: JIT, connection pools, the store's indexes.
    for (const subject of [...layouts, ...references]) await wrk(subject.url, 3);
    if (process.env.BENCH_PROFILE) {
      // Profiling (docs/performance.md): load each layout and reference once, then stop; start the processes
      // with BENCH_STACK_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=<dir>".
      for (const subject of [...layouts, ...references]) console.log(JSON.stringify({ profiled: subject.name, ...brief(await measured(subject)) }));
      return;
    }
    // Each layout next to its reference, alternating.
    const pairs: Subject[][] = layouts.map((l) => (l.name === 'split' ? [l, ...references.slice(1)] : [l, bareSubject]));
    const rounds = new Map<string, Measured[]>([...layouts, ...references].map((s) => [s.name, []]));
    for (let i = 0; i < ROUNDS; i++) for (const pair of pairs) for (const subject of pair) rounds.get(subject.name)!.push(await measured(subject));
    // With one layout only, the bare handler still runs (the one-process ratio's reference, and each layout's p99 floor).
    if (rounds.get('bare')!.length === 0) for (let i = 0; i < ROUNDS; i++) rounds.get('bare')!.push(await measured(bareSubject));

    let errors = [...rounds.values()].flat().reduce((s, r) => s + r.non2xx + r.socketErrors, 0);
    const rps = (name: string) => mean(rounds.get(name)!.map((r) => r.requestsPerSecond));
    const cpuOf = (name: string) => {
      const processes = Object.keys(rounds.get(name)![0]!.cpuMsPerRequest);
      return Object.fromEntries(processes.map((p) => [p, round3(mean(rounds.get(name)!.map((r) => r.cpuMsPerRequest[p]!)))]));
    };
    const spread = (name: string) => rounds.get(name)!.map((r) => Math.round(r.requestsPerSecond));

    // The p99 at a fixed rate: per layout, rounds of a gateway window next to a bare window (the
    // order alternating). In split, the bare hop at the same rate in each round too: the p99 that
    // any gateway answering from a gRPC call to another process starts from (the split target's floor).
    type AtRateRound = { gateway: AtRate; bare: AtRate; hop?: AtRate };
    const atRate: Record<string, AtRateRound[]> = {};
    for (const layout of layouts) {
      const subjects: [keyof AtRateRound, Subject][] = [
        ['gateway', layout],
        ['bare', bareSubject],
        ...(layout.name === 'split' ? [['hop', references[1]!] as [keyof AtRateRound, Subject]] : []),
      ];
      atRate[layout.name] = [];
      for (let i = 0; i < RATE_ROUNDS; i++) {
        const round: Partial<AtRateRound> = {};
        for (const [role, subject] of i % 2 ? [...subjects].reverse() : subjects) {
          round[role] = await atFixedRate(subject, headers);
          errors += round[role].failed;
        }
        atRate[layout.name]!.push(round as AtRateRound);
      }
    }

    const headline: string[] = [];
    const results: Record<string, unknown> = {};
    for (const layout of layouts) {
      const reference = layout.name === 'split' ? 'hop' : 'bare';
      const ratio = rps(layout.name) / rps(reference);
      const cpu = cpuOf(layout.name);
      const rateRounds = atRate[layout.name]!;
      const roundRatios = rateRounds.map((r) => r.gateway.latencyMs.p99 / r.bare.latencyMs.p99);
      const p99Ratio = median(roundRatios);
      const hopRatios = layout.name === 'split' ? rateRounds.map((r) => r.hop!.latencyMs.p99 / r.bare.latencyMs.p99) : undefined;
      const hopP99Ratio = hopRatios ? median(hopRatios) : undefined;
      const p99s = (role: keyof AtRateRound) => rateRounds.map((r) => round2(r[role]!.latencyMs.p99));
      const met: Record<string, boolean> =
        layout.name === 'split'
          ? { ratio_to_hop: ratio >= TARGET.splitToHopRatio, gateway_cpu_ms_per_request: cpu.gateway! <= TARGET.splitGatewayCpuMs }
          : { ratio_to_bare: ratio >= TARGET.oneProcessRatio };
      met.p99_at_fixed_rate_ratio = p99Ratio <= TARGET.p99Ratio;
      // A target the layout misses is out of reach when its floor, measured in the same run, misses
      // it too: no gateway keeping the contract could meet it on this machine.
      const outOfReach: Record<string, string> = {};
      if (layout.name === 'split') {
        const leastRatio = rps('contract-hop-least') / rps('hop');
        const hopFrontCpu = cpuOf('hop').hop!;
        if (!met.ratio_to_hop && leastRatio < TARGET.splitToHopRatio)
          outOfReach.ratio_to_hop = `the contract's hop over the least reservation service reaches ${round2(leastRatio)} of the hop`;
        if (!met.gateway_cpu_ms_per_request && hopFrontCpu > TARGET.splitGatewayCpuMs)
          outOfReach.gateway_cpu_ms_per_request = `the bare hop's front alone costs ${hopFrontCpu} ms`;
        if (!met.p99_at_fixed_rate_ratio && hopP99Ratio! > TARGET.p99Ratio)
          outOfReach.p99_at_fixed_rate_ratio = `the bare hop alone is x${round2(hopP99Ratio!)}`;
      }
      const status = (target: string) => statusText(met[target]!, outOfReach[target]);
      results[layout.name] = {
        gateway_req_per_s: Math.round(rps(layout.name)),
        reference,
        reference_req_per_s: Math.round(rps(reference)),
        ratio: round2(ratio),
        ...(layout.name === 'split'
          ? {
              ratio_to_bare: round2(rps(layout.name) / rps('bare')),
              ...Object.fromEntries(
                ['contract-hop', 'contract-hop-services', 'contract-hop-least'].map((name) => [
                  name.replaceAll('-', '_'),
                  { req_per_s: Math.round(rps(name)), ratio_to_hop: round2(rps(name) / rps('hop')), cpu_ms_per_request: cpuOf(name) },
                ]),
              ),
            }
          : {}),
        cpu_ms_per_request: { ...cpu, total: round3(Object.values(cpu).reduce((s, v) => s + v, 0)) },
        rounds: rounds.get(layout.name)!.map(brief),
        at_fixed_rate: {
          p99_ratio: round2(p99Ratio),
          round_p99_ratios: roundRatios.map(round2),
          ...(hopRatios ? { hop_p99_ratio: round2(hopP99Ratio!), hop_round_p99_ratios: hopRatios.map(round2) } : {}),
          rounds: rateRounds.map((r) => ({
            gateway: atRateBrief(r.gateway),
            bare: atRateBrief(r.bare),
            ...(r.hop ? { hop: atRateBrief(r.hop) } : {}),
          })),
        },
        met,
        ...(Object.keys(outOfReach).length > 0 ? { out_of_reach: outOfReach } : {}),
      };
      const hopText = hopRatios ? `; the bare hop itself [${p99s('hop').join(' ')}] ms = median ${round2(hopP99Ratio!)}` : '';
      const p99Text =
        `p99 at ${RATE_PER_SECOND}/s, ${RATE_ROUNDS} rounds: gateway [${p99s('gateway').join(' ')}] ms / bare [${p99s('bare').join(' ')}] ms ` +
        `= [${roundRatios.map(round2).join(' ')}], median ${round2(p99Ratio)} (target <= ${TARGET.p99Ratio}, ${status('p99_at_fixed_rate_ratio')}${hopText})`;
      if (layout.name === 'split') {
        headline.push(
          `split: gateway ${Math.round(rps('split'))} req/s [${spread('split').join(' ')}] / bare hop ${Math.round(rps('hop'))} [${spread('hop').join(' ')}] = ratio ${round2(ratio)} ` +
            `(target >= ${TARGET.splitToHopRatio}, ${status('ratio_to_hop')}; to the bare handler ${round2(rps('split') / rps('bare'))}), ` +
            `gateway CPU/request ${cpu.gateway} ms (target <= ${TARGET.splitGatewayCpuMs}, ${status('gateway_cpu_ms_per_request')}) + services ${cpu.services} ms ` +
            `(hop: ${cpuOf('hop').hop} + ${cpuOf('hop')['hop-upstream']} ms); ` +
            `the contract's hop (doing only the contract's per-request work) over the bare upstream ${Math.round(rps('contract-hop'))} req/s [${spread('contract-hop').join(' ')}] ` +
            `= ${round2(rps('contract-hop') / rps('hop'))} of the hop, CPU/request ${cpuOf('contract-hop')['contract-hop']} ms; ` +
            `over the reservation service ${Math.round(rps('contract-hop-services'))} req/s [${spread('contract-hop-services').join(' ')}] ` +
            `= ${round2(rps('contract-hop-services') / rps('hop'))} of the hop, CPU/request ${cpuOf('contract-hop-services')['contract-hop-services']} ms + services ${cpuOf('contract-hop-services').services} ms; ` +
            `over the least reservation service (a Map lookup and the reply's encoding) ${Math.round(rps('contract-hop-least'))} req/s [${spread('contract-hop-least').join(' ')}] ` +
            `= ${round2(rps('contract-hop-least') / rps('hop'))} of the hop, CPU/request ${cpuOf('contract-hop-least')['contract-hop-least']} ms + ${cpuOf('contract-hop-least')['least-service']} ms; ${p99Text}`,
        );
      } else {
        headline.push(
          `one process: gateway ${Math.round(rps('one-process'))} req/s [${spread('one-process').join(' ')}] / bare ${Math.round(rps('bare'))} [${spread('bare').join(' ')}] = ratio ${round2(ratio)} ` +
            `(target >= ${TARGET.oneProcessRatio}, ${status('ratio_to_bare')}), CPU/request ${cpu.stack} ms (bare ${cpuOf('bare').bare} ms); ${p99Text}`,
        );
      }
    }
    const report = {
      benchmark: 'gateway overhead: GET /v1/reservations/{id} through the gateway vs references serving the same bytes',
      client: `wrk -t2 -c${CONNECTIONS} -d${SECONDS}s, ${ROUNDS} alternating rounds of each layout and its reference; constant-rate client at ${RATE_PER_SECOND}/s, ${RATE_ROUNDS} rounds of a ${RATE_SECONDS} s window per subject`,
      layouts: {
        'one-process': 'the embedded stack (pnpm start): gateway and every service in one Node process; reference: a bare Express handler',
        split:
          "production's layout: the gateway in its own process over the services in another; reference: a bare Express handler answering from one bare grpc-js call to another process",
      },
      load_average_before: loadBefore,
      load_average_after: loadavg().map(round2),
      response_bytes: Buffer.byteLength(body),
      references: Object.fromEntries(
        references
          .filter((r) => rounds.get(r.name)!.length > 0)
          .map((r) => [r.name, { req_per_s: Math.round(rps(r.name)), rounds: rounds.get(r.name)!.map(brief) }]),
      ),
      results,
      targets: TARGET,
    };
    console.log(JSON.stringify(report, null, 2));
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
