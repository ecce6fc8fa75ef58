// Paired comparison of Node flags on the p99 at a constant rate (docs/architecture.md, "The p99
// tail at half load"): one services process (stack-server.ts) and one gateway process
// (gateway-server.ts) per variant of AB_VARIANTS (Node flags, variants separated by `;`, the
// empty variant is the baseline), loaded in turn by the constant-rate client at AB_RATE (600)
// req/s for AB_SECONDS (8), AB_ROUNDS (6) times, the order rotating each round. Prints per variant
// the median p99 and each round's p99, scavenge count and longest GC pause of the gateway: on a
// shared machine the load moves every variant alike, so the medians compare where two runs of the
// benchmark cannot.
//   AB_VARIANTS=";--max-semi-space-size=32" npx tsx bench/support/ab-flags-p99.ts
// AB_BASE=<tree> compares trees instead (as ab-trees.ts does, but on the p99): the gateway of a
// base copy of the repository against this tree's, both without flags.
//   AB_BASE=/tmp/gw-base npx tsx bench/support/ab-flags-p99.ts
import { fork, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { runConstantRate } from './load';
import { loopDelayOf } from './loop-delay';

interface Served {
  baseUrl: string;
  apiKey: string;
  reservationId: string;
}

function child<T>(file: string, message: unknown, nodeOptions: string[]): Promise<{ proc: ChildProcess; reply: T }> {
  const proc = fork(file, [], { execArgv: ['--import', 'tsx', ...nodeOptions], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    proc.once('message', (reply: T) => resolve({ proc, reply }));
    proc.once('exit', (code) => reject(new Error(`${file} exited ${code}`)));
    if (message !== undefined) proc.send(message as object);
  });
}

async function main(): Promise<void> {
  const gatewayServer = join(__dirname, 'gateway-server.ts');
  const variants = process.env.AB_BASE
    ? [
        { label: `base tree ${process.env.AB_BASE}`, file: join(process.env.AB_BASE, 'bench/support/gateway-server.ts'), flags: '' },
        { label: 'this tree', file: gatewayServer, flags: '' },
      ]
    : (process.env.AB_VARIANTS ?? ';--max-semi-space-size=32').split(';').map((v) => ({ label: v.trim() || 'baseline', file: gatewayServer, flags: v.trim() }));
  const rate = Number(process.env.AB_RATE ?? 600);
  const seconds = Number(process.env.AB_SECONDS ?? 8);
  const rounds = Number(process.env.AB_ROUNDS ?? 6);
  const stack = await child<{ addresses: unknown }>(join(__dirname, 'stack-server.ts'), undefined, []);
  const gateways: { label: string; proc: ChildProcess; url: string; headers: Record<string, string>; p99: number[]; rounds: string[] }[] = [];
  for (const { label, file, flags } of variants) {
    const g = await child<Served>(file, { addresses: stack.reply.addresses }, flags.split(' ').filter(Boolean));
    gateways.push({
      label,
      proc: g.proc,
      url: `${g.reply.baseUrl}/v1/reservations/${g.reply.reservationId}`,
      headers: { authorization: `Bearer ${g.reply.apiKey}` },
      p99: [],
      rounds: [],
    });
  }
  for (const g of gateways) await runConstantRate(g.url, { rate, seconds: 3, connections: 16, headers: g.headers });
  for (let i = 0; i < rounds; i++) {
    for (let j = 0; j < gateways.length; j++) {
      const g = gateways[(i + j) % gateways.length]!;
      await loopDelayOf(g.proc, 'reset');
      const r = await runConstantRate(g.url, { rate, seconds, connections: 16, headers: g.headers });
      const ld = (await loopDelayOf(g.proc, 'read'))!;
      if (r.failed) throw new Error(`${g.label}: ${r.failed} requests failed`);
      g.p99.push(r.latencyMs.p99);
      const gcMax = Math.max(0, ...Object.values(ld.gc).map((s) => s.max_ms));
      g.rounds.push(
        `p99 ${r.latencyMs.p99.toFixed(1)} (scavenges ${ld.gc.scavenge?.count ?? 0}, max gc ${gcMax.toFixed(1)}, loop max ${ld.loop_delay_ms.max}, waited for a core ${ld.cpu_ms?.waiting_for_core ?? '?'} ms)`,
      );
    }
  }
  const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
  for (const g of gateways) console.log(`[${g.label}] median p99 ${median(g.p99).toFixed(1)} ms; ${g.rounds.join('; ')}`);
  console.log(`rate ${rate}/s, ${rounds} rounds of ${seconds} s, load ${loadavg()[0]!.toFixed(2)}`);
  for (const g of [...gateways.map((x) => x.proc), stack.proc]) g.kill();
  process.exit(0);
}
void main();
