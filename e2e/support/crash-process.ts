// The embedded stack as a child process for crash tests (support/crash-child.ts, bundled once
// with esbuild): started on a data directory, killed with SIGKILL, started again on the same
// data. Black box: the child prints its addresses; tests speak HTTP only.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire, isBuiltin } from 'node:module';
import { join } from 'node:path';
import { build } from 'esbuild';

const ROOT = join(__dirname, '..', '..');
const START_TIMEOUT_MS = 60_000;
export const DEMO_KEY = 'sk_test_demo0000000000000000000000000000';

export interface Child {
  proc: ChildProcess;
  baseUrl: string;
  /** The gateway's private listener (admin API). */
  adminBaseUrl: string;
  adminToken: string;
  /** The stack's PMS simulator (its control API); a new, empty one at every start. */
  pmsSimulatorUrl: string;
  demo: { workspaceId: string; listingIds: string[] } | null;
  output: () => string;
  exited: Promise<void>;
}

/** The child: the stack's startStack bundled once (a bundle starts much faster than tsx). */
export async function bundleChild(dir: string): Promise<string> {
  const outfile = join(dir, 'crash-child.js');
  await build({
    entryPoints: [join(__dirname, 'crash-child.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    logLevel: 'warning',
    plugins: [
      {
        // Each third-party import stays external by the absolute path its importer resolves it to
        // (pnpm gives every package its own dependencies): the module the sources load, whatever
        // pnpm happens to hoist.
        name: 'third-party-external',
        setup(b) {
          b.onResolve({ filter: /^[^./]/ }, (args) => {
            if (args.path.startsWith('@vrp/')) return undefined;
            if (isBuiltin(args.path)) return { path: args.path, external: true };
            return { path: createRequire(join(args.resolveDir, 'index.js')).resolve(args.path), external: true };
          });
        },
      },
    ],
  });
  return outfile;
}

export function startChild(entry: string, dataDir: string): Promise<Child> {
  const proc = spawn(process.execPath, [entry], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  return new Promise<Child>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`child not ready in ${START_TIMEOUT_MS} ms:\n${output}`)), START_TIMEOUT_MS);
    proc.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    proc.stdout!.on('data', (c: Buffer) => {
      output += c.toString();
      const line = output.split('\n').find((l) => l.startsWith('{"ready":true'));
      if (!line) return;
      clearTimeout(timer);
      const info = JSON.parse(line) as Pick<Child, 'baseUrl' | 'adminBaseUrl' | 'adminToken' | 'pmsSimulatorUrl' | 'demo'>;
      resolve({ proc, ...info, output: () => output, exited });
    });
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`child exited (${code ?? signal}) before it was ready:\n${output}`));
    });
  });
}

/** Kills the child with SIGKILL (no shutdown of any kind) and waits until it is gone. */
export async function killChild(c: Child): Promise<void> {
  if (c.proc.exitCode !== null || c.proc.signalCode !== null) return;
  c.proc.kill('SIGKILL');
  await c.exited;
}

/** One HTTP call, JSON in and out; the demo key unless `key` is given. */
export async function api<T>(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  opts: { key?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: T; headers: Headers }> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${opts.key ?? DEMO_KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...opts.headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T, headers: res.headers };
}
