// Child processes of the benchmarks: a support script run bundled, as `pnpm start` and the images
// run the code (scripts/run-bundled.mjs), which answers its first IPC message when it is ready.
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The repository's root: bundled, `__dirname` is the entry's directory (bench/), not this file's. */
function repoRoot(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'scripts', 'run-bundled.mjs'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no scripts/run-bundled.mjs above ${__dirname}`);
  }
}

/**
 * Starts bench/support/<script> in a process of its own (Node flags from BENCH_STACK_NODE_OPTIONS,
 * e.g. --cpu-prof) and waits for its first message; `message`, if given, is sent to it first.
 */
export function startChild<T>(script: string, stdout: 'ignore' | 'inherit', message?: unknown): Promise<{ proc: ChildProcess; reply: T }> {
  const root = repoRoot();
  const proc = fork(join(root, 'scripts', 'run-bundled.mjs'), [join(root, 'bench', 'support', script)], {
    execArgv: process.env.BENCH_STACK_NODE_OPTIONS?.split(' ').filter(Boolean) ?? [],
    stdio: ['ignore', stdout, 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    proc.once('message', (reply: T) => resolve({ proc, reply }));
    proc.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
    if (message !== undefined) proc.send(message as object);
  });
}

/** Stops a child started by startChild: it stops when the IPC channel closes (killed after 30 s). */
export function stopChild(proc: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (proc.exitCode !== null) return resolve();
    proc.once('exit', () => resolve());
    proc.disconnect();
    setTimeout(() => proc.kill('SIGKILL'), 30_000).unref();
  });
}
