// The runtime tree of every container image, assembled exactly as the Dockerfiles assemble it
// (deploy/docker/assemble.sh: the esbuild bundle plus the package's production dependencies,
// flat) and started as the image starts it (`node dist/main.js`, NODE_ENV=production, no tsx,
// no workspace). No Docker engine runs here, so this is what proves an image's contents boot:
// its HEALTHCHECK command (deploy/docker/healthcheck.js) passes, and SIGTERM stops it with 0.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@vrp/platform';
import { eventually } from './support/stack';

const run = promisify(execFile);
const ROOT = join(__dirname, '..');
const EXIT_BOUND_MS = 10_000;

interface Target {
  name: string;
  packageName: string;
  bundle: string;
  /** Env of the container (ports chosen free here) and the port its HEALTHCHECK asks. */
  env: (ports: { main: number; ops: number }) => Record<string, string>;
  healthArgs: (ports: { main: number; ops: number }) => string[];
}

const domainService = (name: string, prefix: string): Target => ({
  name,
  packageName: `@vrp/${name}`,
  bundle: `services/${name}/dist/main.js`,
  env: ({ main, ops }) => ({ [`${prefix}_GRPC_PORT`]: String(main), [`${prefix}_OPS_PORT`]: String(ops), HEALTH_PORT: String(ops) }),
  healthArgs: () => [],
});

const TARGETS: Target[] = [
  {
    name: 'gateway',
    packageName: '@vrp/gateway',
    bundle: 'services/gateway/dist/main.js',
    env: ({ main }) => ({ GATEWAY_PORT: String(main), GATEWAY_HOST: '127.0.0.1', HEALTH_PORT: String(main), ADMIN_TOKEN: 'image-runtime-admin-token', API_KEY_PEPPER: 'image-runtime-pepper-0123456789abcdef' }),
    healthArgs: () => [],
  },
  domainService('listing', 'LISTING'),
  domainService('reservation', 'RESERVATION'),
  domainService('guest', 'GUEST'),
  domainService('pms-adapter', 'PMS_ADAPTER'),
  domainService('webhook', 'WEBHOOK'),
  {
    name: 'pms-simulator',
    packageName: '@vrp/pms-simulator',
    bundle: 'tools/pms-simulator/dist/main.js',
    env: ({ main }) => ({ PMS_SIMULATOR_PORT: String(main), PMS_SIMULATOR_HOST: '127.0.0.1' }),
    // The simulator image's HEALTHCHECK arguments (Dockerfile.pms-simulator), with this port.
    healthArgs: ({ main }) => [String(main), '/_control/requests?provider=none'],
  },
];

// Packages that must never reach a runtime image.
const DEV_ONLY = ['typescript', 'jest', 'tsx', '@swc/core', 'esbuild', 'testcontainers', '@testcontainers/mongodb', '@testcontainers/kafka', 'eslint', 'ts-proto', '@bufbuild/buf', 'mongodb-memory-server'];

/** Names of the packages in a node_modules folder, scoped ones as `@scope/name`. */
function packagesIn(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) => (name.startsWith('@') ? readdirSync(join(dir, name)).map((sub) => `${name}/${sub}`) : [name]));
}

describe('container image runtime trees', () => {
  jest.setTimeout(240_000);
  const work = mkdtempSync(join(tmpdir(), 'vrp-images-'));
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    await run(process.execPath, ['scripts/bundle.mjs'], { cwd: ROOT });
    await run(process.execPath, ['deploy/docker/bundle-entry.mjs', 'tools/pms-simulator/src/main.ts', 'tools/pms-simulator/dist/main.js'], { cwd: ROOT });
    // Two at a time: pnpm deploy is mostly CPU on this 2-core machine.
    const queue = [...TARGETS];
    const worker = async (): Promise<void> => {
      for (let t = queue.shift(); t; t = queue.shift()) {
        // --offline: from the store `pnpm install` filled, as the image's build stage does.
        await run('bash', ['deploy/docker/assemble.sh', t.packageName, t.bundle, join(work, t.name), '--offline'], { cwd: ROOT, maxBuffer: 16 * 2 ** 20 });
        copyFileSync(join(ROOT, 'deploy/docker/healthcheck.js'), join(work, t.name, 'healthcheck.js'));
      }
    };
    await Promise.all([worker(), worker()]);
  });

  afterAll(() => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  });

  it.each(TARGETS.map((t) => [t.name, t] as const))('%s: production dependencies only, boots from dist/main.js, passes its HEALTHCHECK, exits 0 on SIGTERM', async (_name, target) => {
    const dir = join(work, target.name);
    expect(existsSync(join(dir, 'dist', 'main.js'))).toBe(true);
    const installed = packagesIn(join(dir, 'node_modules'));
    expect(installed.filter((p) => DEV_ONLY.includes(p))).toEqual([]);
    expect(installed.filter((p) => p.startsWith('@vrp/'))).toEqual([]); // inlined in the bundle

    const ports = { main: await freePort(), ops: await freePort() };
    const env = { PATH: process.env.PATH ?? '', NODE_ENV: 'production', SERVICE: target.name, LOG_LEVEL: 'warn', ...target.env(ports) };
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
    await eventually(healthy, 30_000, `${target.name} to pass its HEALTHCHECK`);

    const signalledAt = Date.now();
    child.kill('SIGTERM');
    const { code, at } = await exited;
    expect({ service: target.name, code }).toEqual({ service: target.name, code: 0 });
    expect(at - signalledAt).toBeLessThan(EXIT_BOUND_MS);
  });
});
