// What this machine charges for work that comes after its CPU went idle. The same fixed work (one
// read of every 64-byte line of a 512 KiB buffer: about what a request's path touches) timed back
// to back, then each run alone after the event loop slept `idleMs`; only the work itself is timed.
// On a machine whose idle CPU keeps its caches the two agree; on this one (a Firecracker microVM
// without a cpuidle driver: an idle vCPU halts, its host thread sleeps and resumes on whichever
// core with cold caches) the lone run costs 1.5-4.7 times more (docs/architecture.md, issue 17).
// Under `wrk` a server never idles; at a constant rate below its maximum it idles between
// requests and pays this on each one: what its p99 at half load runs into.
import { setTimeout as sleep } from 'node:timers/promises';

export interface IdlePenalty {
  work_kib: number;
  idle_ms: number;
  back_to_back_us: number;
  after_idle_us: number;
  /** after_idle_us / back_to_back_us */
  factor: number;
}

const LINE_DOUBLES = 8; // 64 bytes

function sweep(buffer: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < buffer.length; i += LINE_DOUBLES) sum += buffer[i]!;
  return sum;
}

/** Mean time of the work back to back and after each idle pause, in microseconds. */
export async function measureIdlePenalty(opts: { workKib?: number; idleMs?: number; runs?: number } = {}): Promise<IdlePenalty> {
  const workKib = opts.workKib ?? 512;
  const idleMs = opts.idleMs ?? 1;
  const runs = opts.runs ?? 1000;
  const buffer = new Float64Array((workKib * 1024) / 8).map((_, i) => i);
  let sink = 0;
  for (let i = 0; i < 100; i++) sink += sweep(buffer); // compiled and in cache
  let start = performance.now();
  for (let i = 0; i < runs; i++) sink += sweep(buffer);
  const backToBack = (performance.now() - start) / runs;
  let alone = 0;
  for (let i = 0; i < runs; i++) {
    await sleep(idleMs);
    start = performance.now();
    sink += sweep(buffer);
    alone += performance.now() - start;
  }
  alone /= runs;
  if (Number.isNaN(sink)) throw new Error('unreachable: keeps the sweeps from being optimized away');
  const us = (ms: number) => Math.round(ms * 10_000) / 10;
  return {
    work_kib: workKib,
    idle_ms: idleMs,
    back_to_back_us: us(backToBack),
    after_idle_us: us(alone),
    factor: Math.round((alone / backToBack) * 100) / 100,
  };
}
