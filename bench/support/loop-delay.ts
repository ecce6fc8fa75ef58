// Where a latency tail comes from, seen from inside a process: the event loop's delay histogram
// (perf_hooks.monitorEventLoopDelay, 1 ms resolution) and the GC pauses (PerformanceObserver 'gc'
// entries) over a window. Child processes of the HTTP benchmarks install `answerLoopDelay()`; the
// parent opens a window with `{ loopDelay: 'reset' }` and closes it with `{ loopDelay: 'read' }`,
// answered with a `LoopDelayReport`. The constant-rate client measures its own process the same way.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { constants, monitorEventLoopDelay, PerformanceObserver, type IntervalHistogram, type PerformanceEntry } from 'node:perf_hooks';

export interface LoopDelayReport {
  /** Event-loop delay in ms: how late a 1 ms timer fired. */
  loop_delay_ms: { p50: number; p99: number; max: number };
  /** GC pauses in the window, by kind: count, total and longest pause (ms). */
  gc: Record<string, { count: number; total_ms: number; max_ms: number }>;
  /**
   * The main thread's time on a core and time runnable but waiting for one (Linux
   * /proc/self/schedstat; absent elsewhere): a process short of CPU builds a backlog without any
   * one long loop iteration, so this shows what the loop-delay histogram cannot.
   */
  cpu_ms?: { on_core: number; waiting_for_core: number };
}

/** The main thread's [ns on a core, ns waiting for one], or undefined off Linux. */
function schedstat(): [number, number] | undefined {
  try {
    const [onCore, waiting] = readFileSync('/proc/self/schedstat', 'utf8').split(' ').map(Number);
    return Number.isFinite(onCore) && Number.isFinite(waiting) ? [onCore!, waiting!] : undefined;
  } catch {
    return undefined;
  }
}

const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental-marking',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak-callbacks',
};

const r2 = (n: number) => Math.round(n * 100) / 100;

/** A measuring window over this process: `reset()` starts it, `read()` reports it. */
export class LoopDelayWindow {
  private readonly histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: 1 });
  private gc: LoopDelayReport['gc'] = {};
  private sched = schedstat();
  private readonly observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = GC_KINDS[(entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ?? -1] ?? 'other';
      const stat = (this.gc[kind] ??= { count: 0, total_ms: 0, max_ms: 0 });
      stat.count += 1;
      stat.total_ms += entry.duration;
      stat.max_ms = Math.max(stat.max_ms, entry.duration);
    }
  });

  constructor() {
    this.histogram.enable();
    this.observer.observe({ entryTypes: ['gc'] });
  }

  reset(): void {
    this.histogram.reset();
    this.gc = {};
    this.sched = schedstat();
  }

  read(): LoopDelayReport {
    const ms = (ns: number) => r2(ns / 1e6);
    const gc = Object.fromEntries(Object.entries(this.gc).map(([k, s]) => [k, { count: s.count, total_ms: r2(s.total_ms), max_ms: r2(s.max_ms) }]));
    const now = schedstat();
    const cpu = now && this.sched ? { on_core: ms(now[0] - this.sched[0]), waiting_for_core: ms(now[1] - this.sched[1]) } : undefined;
    return {
      loop_delay_ms: { p50: ms(this.histogram.percentile(50)), p99: ms(this.histogram.percentile(99)), max: ms(this.histogram.max) },
      gc,
      ...(cpu ? { cpu_ms: cpu } : {}),
    };
  }
}

/** In a benchmark's child process: answers the parent's `{ loopDelay: 'reset' | 'read' }` messages. */
export function answerLoopDelay(): void {
  const window = new LoopDelayWindow();
  process.on('message', (message: { loopDelay?: string }) => {
    if (message?.loopDelay === 'reset') {
      window.reset();
      process.send!({ loopDelay: 'reset' });
    } else if (message?.loopDelay === 'read') process.send!({ loopDelay: window.read() });
  });
}

/** In the parent: asks a child that runs `answerLoopDelay()` to open or close its window. */
export function loopDelayOf(proc: ChildProcess, command: 'reset' | 'read'): Promise<LoopDelayReport | undefined> {
  return new Promise((resolve) => {
    const onMessage = (message: { loopDelay?: LoopDelayReport | 'reset' }) => {
      if (message?.loopDelay === undefined) return;
      proc.off('message', onMessage);
      resolve(typeof message.loopDelay === 'string' ? undefined : message.loopDelay);
    };
    proc.on('message', onMessage);
    proc.send({ loopDelay: command });
  });
}
