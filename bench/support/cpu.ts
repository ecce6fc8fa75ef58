// CPU time of a benchmark's processes: steadier than req/s or latency on a shared machine, where
// other programs take turns on the cores (a process waiting for a core uses no CPU).
import { readFileSync } from 'node:fs';

/** CPU time (user + system, ms) a process has used so far; Linux /proc, NaN elsewhere. */
export function cpuMsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
  } catch {
    return NaN;
  }
}

/** Runs `work` and reports, with its result, the CPU (ms) each of `processes` spent meanwhile. */
export async function withCpu<T>(processes: Record<string, number>, work: () => Promise<T>): Promise<{ result: T; cpuMs: Record<string, number> }> {
  const before = Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, cpuMsOf(pid)]));
  const result = await work();
  const cpuMs = Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, cpuMsOf(pid) - before[name]!]));
  return { result, cpuMs };
}

/** A window in which a process uses at most QUIET_SHARE of a core counts as quiet. */
const QUIET_WINDOW_MS = 500;
const QUIET_SHARE = 0.04;

/**
 * Waits until every one of `processes` is quiet (a QUIET_WINDOW_MS window with at most QUIET_SHARE
 * of a core: timers only), at most `limitMs`, so that work a load leaves behind (consumers
 * catching up, relays) is counted with it. Resolves with how long the work went on after the call
 * (ms, the quiet window not included) and whether every process became quiet.
 */
export async function untilQuiet(processes: Record<string, number>, limitMs = 60_000): Promise<{ afterMs: number; quiet: boolean }> {
  const start = Date.now();
  let before = Object.values(processes).map(cpuMsOf);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, QUIET_WINDOW_MS));
    const now = Object.values(processes).map(cpuMsOf);
    const busy = now.some((ms, i) => ms - before[i]! > QUIET_WINDOW_MS * QUIET_SHARE);
    const elapsed = Date.now() - start;
    if (!busy) return { afterMs: Math.max(0, elapsed - QUIET_WINDOW_MS), quiet: true };
    if (elapsed >= limitMs) return { afterMs: elapsed, quiet: false };
    before = now;
  }
}

export const round2 = (n: number) => Math.round(n * 100) / 100;
export const round3 = (n: number) => Math.round(n * 1000) / 1000;

/** "met" or "NOT met", for a benchmark's report of its targets. */
export const metText = (met: boolean) => (met ? 'met' : 'NOT met');
/** A target's status; a missed one is out of reach when `floor` says why (its floor, measured in the same run, misses it too). */
export const statusText = (met: boolean, floor?: string) => (met || !floor ? metText(met) : `NOT met, out of reach: ${floor}`);
