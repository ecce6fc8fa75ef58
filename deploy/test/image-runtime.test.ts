// The runtime tree of every container image, assembled exactly as the Dockerfiles assemble it
// and from what they get: the build context (the working tree less .dockerignore, copied with
// Docker's matching rules), installed from the lockfile offline, bundled (scripts/bundle.mjs,
// deploy/docker/bundle-entry.mjs), then deploy/docker/assemble.sh (the bundle plus the package's
// production dependencies, flat). Each tree is started as the image starts it (`node
// dist/main.js`, NODE_ENV=production, no tsx, no workspace): its HEALTHCHECK command
// (deploy/docker/healthcheck.js) passes, and SIGTERM stops it with 0. It needs no container
// engine and runs everywhere, but installing and bundling eight trees takes over a minute of a
// 2-core machine, so it runs in `pnpm test:runtime-trees` (VRP_RUNTIME_TREE_TEST=1), which CI runs
// after `pnpm test`; `pnpm test` prints that it was skipped. deploy/test/container-images.test.ts
// (`pnpm test:images`) builds and runs the real images.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@vrp/platform/net';
import { copyBuildContext, DEV_ONLY, embeddedEngines, IMAGE_TARGETS as TARGETS, packagesIn } from './support/images';
import { eventually } from '@vrp/testkit';

const run = promisify(execFile);
const EXIT_BOUND_MS = 10_000;

const requested = process.env.VRP_RUNTIME_TREE_TEST === '1';
if (!requested) console.warn('image runtime trees not assembled: that takes over a minute, so it runs in `pnpm test:runtime-trees`');

(requested ? describe : describe.skip)('container image runtime trees', () => {
  jest.setTimeout(240_000);
  const work = mkdtempSync(join(tmpdir(), 'vrp-images-'));
  const children: ChildProcess[] = [];

  const context = join(work, 'context');

  beforeAll(async () => {
    const files = copyBuildContext(context);
    // What .dockerignore keeps out must really be out, and what the build needs must be in.
    expect(files.filter((f) => /(^|\/)(node_modules|dist)\//.test(f) || f.startsWith('docs/') || f.startsWith('.git/'))).toEqual([]);
    expect(files).toEqual(expect.arrayContaining(['pnpm-lock.yaml', 'deploy/docker/assemble.sh', 'bench/package.json']));
    // The build stage: install from the lockfile with nothing but the store, then bundle.
    await run('pnpm', ['install', '--offline', '--frozen-lockfile', '--reporter=silent'], { cwd: context, maxBuffer: 16 * 2 ** 20 });
    await run(process.execPath, ['scripts/bundle.mjs'], { cwd: context });
    await run(process.execPath, ['deploy/docker/bundle-entry.mjs', 'tools/pms-simulator/src/main.ts', 'tools/pms-simulator/dist/main.js'], { cwd: context });
    // Two at a time: the install is mostly CPU on this 2-core machine.
    const queue = [...TARGETS];
    const worker = async (): Promise<void> => {
      for (let t = queue.shift(); t; t = queue.shift()) {
        // --offline: from the store `pnpm install` filled, as the image's build stage does.
        await run('bash', ['deploy/docker/assemble.sh', t.packageName, t.bundle, join(work, t.name), '--offline'], { cwd: context, maxBuffer: 16 * 2 ** 20 });
        copyFileSync(join(context, 'deploy/docker/healthcheck.js'), join(work, t.name, 'healthcheck.js'));
      }
    };
    await Promise.all([worker(), worker()]);
  });

  afterAll(() => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  });

  it.each(TARGETS.map((t) => [t.name, t] as const))(
    '%s: production dependencies only, boots from dist/main.js, passes its HEALTHCHECK, exits 0 on SIGTERM',
    async (_name, target) => {
      const dir = join(work, target.name);
      expect(existsSync(join(dir, 'dist', 'main.js'))).toBe(true);
      const installed = packagesIn(join(dir, 'node_modules'));
      expect(installed.filter((p) => DEV_ONLY.includes(p))).toEqual([]);
      expect(installed.filter((p) => p.startsWith('@vrp/'))).toEqual([]); // inlined in the bundle

      const ports = { main: await freePort(), ops: await freePort() };
      const env = {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'production',
        SERVICE: target.name,
        LOG_LEVEL: 'warn',
        ...embeddedEngines(join(dir, 'data')),
        ...target.env(ports),
      };
      const child = spawn(process.execPath, ['dist/main.js'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      let output = '';
      child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
      child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
      const exited = new Promise<{ code: number | null; at: number }>((resolve) => child.once('exit', (code) => resolve({ code, at: Date.now() })));

      const healthy = async (): Promise<boolean> => {
        if (child.exitCode !== null) throw new Error(`${target.name} exited at start:\n${output}`);
        try {
          await run(process.execPath, ['healthcheck.js', ...target.healthArgs(ports)], { cwd: dir, env });
          return true;
        } catch {
          return false;
        }
      };
      await eventually(healthy, { timeoutMs: 30_000, what: `${target.name} to pass its HEALTHCHECK`, intervalMs: 100 });

      const signalledAt = Date.now();
      child.kill('SIGTERM');
      const { code, at } = await exited;
      expect({ service: target.name, code }).toEqual({ service: target.name, code: 0 });
      expect(at - signalledAt).toBeLessThan(EXIT_BOUND_MS);
    },
  );
});
