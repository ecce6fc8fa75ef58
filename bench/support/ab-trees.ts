// Paired A/B of a gateway change (docs/architecture.md, "Per-request cost"): one services process
// (stack-server.ts of this tree) and two gateway processes over it, `gateway-server.ts` of a base
// copy of the repository (BASE, default /tmp/gw-base: this tree with the change undone) and of
// this tree, loaded alternately with `wrk -t2 -c16` for AB_SECONDS (5) each, AB_ROUNDS (6) times.
// Prints each gateway's CPU per request per round and the medians: on a shared machine the load
// moves both alike, so the pair is steadier than two runs of the benchmark.
// AB_NEW_NODE_OPTIONS adds Node flags to the new side only (BASE=. compares flags on one tree).
// AB_LAYOUT=one-process compares two embedded stacks instead (stack-server.ts of each tree, the
// gateway and every service in one process): the CPU per request of each whole process.
//   npx tsx bench/support/ab-trees.ts
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runWrk } from './load';

/**
 * Forks a server script of a tree: bundled by that tree's scripts/run-bundled.mjs (as `pnpm bench`
 * runs it) when the tree has one, else from its sources through tsx.
 */
function child<T>(file: string, message?: unknown, nodeOptions: string[] = []): Promise<{ proc: ChildProcess; reply: T }> {
  const runBundled = join(dirname(file), '..', '..', 'scripts', 'run-bundled.mjs');
  const stdio: ['ignore', 'ignore', 'inherit', 'ipc'] = ['ignore', 'ignore', 'inherit', 'ipc'];
  const proc = existsSync(runBundled)
    ? fork(runBundled, [file], { execArgv: nodeOptions, stdio })
    : fork(file, [], { execArgv: ['--import', 'tsx', ...nodeOptions], stdio });
  return new Promise((resolve, reject) => {
    proc.once('message', (reply: T) => resolve({ proc, reply }));
    proc.once('exit', (code) => reject(new Error(`${file} exited ${code}`)));
    if (message !== undefined) proc.send(message as object);
  });
}
function cpuMsOf(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
}
async function main() {
  const base = process.env.BASE ?? '/tmp/gw-base';
  const rounds = Number(process.env.AB_ROUNDS ?? 6);
  const secs = Number(process.env.AB_SECONDS ?? 5);
  const newOptions = process.env.AB_NEW_NODE_OPTIONS?.split(' ').filter(Boolean);
  type Served = { baseUrl: string; apiKey: string; reservationId: string };
  const oneProcess = process.env.AB_LAYOUT === 'one-process';
  // One-process pairs need no services process of their own.
  const stack = oneProcess ? null : await child<{ addresses: unknown }>(join(__dirname, 'stack-server.ts'));
  const gws: Record<string, { proc: ChildProcess; reply: Served }> = oneProcess
    ? {
        base: await child(join(base, 'bench/support/stack-server.ts')),
        new: await child(join(__dirname, 'stack-server.ts'), undefined, newOptions),
      }
    : {
        base: await child(join(base, 'bench/support/gateway-server.ts'), { addresses: stack!.reply.addresses }),
        new: await child(join(__dirname, 'gateway-server.ts'), { addresses: stack!.reply.addresses }, newOptions),
      };
  const res: Record<string, { gw: number[]; svc: number[]; rps: number[] }> = { base: { gw: [], svc: [], rps: [] }, new: { gw: [], svc: [], rps: [] } };
  for (const name of Object.keys(gws)) {
    const g = gws[name]!;
    await runWrk(`${g.reply.baseUrl}/v1/reservations/${g.reply.reservationId}`, {
      threads: 2,
      connections: 16,
      seconds: 3,
      headers: { authorization: `Bearer ${g.reply.apiKey}` },
    });
  }
  for (let i = 0; i < rounds; i++) {
    for (const name of i % 2 ? ['new', 'base'] : ['base', 'new']) {
      const g = gws[name]!;
      const b1 = cpuMsOf(g.proc.pid!),
        s1 = stack ? cpuMsOf(stack.proc.pid!) : 0;
      const r = await runWrk(`${g.reply.baseUrl}/v1/reservations/${g.reply.reservationId}`, {
        threads: 2,
        connections: 16,
        seconds: secs,
        headers: { authorization: `Bearer ${g.reply.apiKey}` },
      });
      if (r.non2xx || r.socketErrors) throw new Error(`${name}: errors`);
      res[name]!.gw.push((cpuMsOf(g.proc.pid!) - b1) / r.requests);
      res[name]!.svc.push(stack ? (cpuMsOf(stack.proc.pid!) - s1) / r.requests : 0);
      res[name]!.rps.push(r.requestsPerSecond);
    }
  }
  const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
  const f = (a: number[]) => a.map((x) => x.toFixed(3)).join(' ');
  for (const name of ['base', 'new'])
    console.log(
      name,
      'gw median',
      med(res[name]!.gw).toFixed(3),
      '[',
      f(res[name]!.gw),
      '] svc median',
      med(res[name]!.svc).toFixed(3),
      'rps median',
      Math.round(med(res[name]!.rps)),
    );
  console.log('gain gw', (100 * (1 - med(res.new!.gw) / med(res.base!.gw))).toFixed(1) + '%', 'load', readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
  for (const g of [...Object.values(gws), ...(stack ? [stack] : [])]) g.proc.kill();
  process.exit(0);
}
void main();
