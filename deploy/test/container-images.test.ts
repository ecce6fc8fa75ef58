// The real container images, built and run without a Docker daemon (`pnpm test:images`, see
// docs/operations.md): scripts/build-base-image.sh makes the Dockerfiles' base image locally when
// it is missing (no registry is reachable here), then every image is built from the real build
// context (the repository root, less .dockerignore; snapshotted once, so that all seven images
// are built from the same files while the working tree changes) with `buildah bud`, started with
// `podman run`,
// its HEALTHCHECK command run (`podman healthcheck run`), and stopped with SIGTERM
// (`podman stop`): it must exit 0 well within the stop timeout, not be killed.
//
// Building seven images takes minutes, so `pnpm test` does not: this file then runs only its
// first block and prints why the images were skipped. VRP_IMAGE_TEST=1 (set by `pnpm
// test:images`) runs everything, and fails when buildah, podman or runc is missing.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { freePort } from '@vrp/platform/net';
import { copyBuildContext, embeddedEngines, IMAGE_TARGETS, ROOT, type ImageTarget } from './support/images';
import { eventually } from '@vrp/testkit';

const exec = promisify(execFile);
const STORAGE = ['--storage-driver', process.env.STORAGE_DRIVER ?? 'vfs'];
// podman 4.3's default runtime (crun) refuses this machine's hybrid cgroup layout; runc and the
// cgroupfs manager work without systemd.
const PODMAN = ['podman', ...STORAGE, '--runtime', 'runc', '--cgroup-manager', 'cgroupfs'];
const STOP_TIMEOUT_S = 10;
const BUILD_TIMEOUT_MS = 40 * 60_000;

const requested = process.env.VRP_IMAGE_TEST === '1';
const missingTools = ['buildah', 'podman', 'runc'].filter(
  (tool) => !['/usr/bin', '/usr/sbin', '/usr/local/bin', '/bin', '/sbin'].some((dir) => existsSync(join(dir, tool))),
);
const skipReason = !requested
  ? `container images not built: that takes minutes, so it runs in \`pnpm test:images\` (VRP_IMAGE_TEST=1)${missingTools.length ? `, which needs ${missingTools.join(', ')} (apt-get install -y buildah podman runc debootstrap)` : ''}`
  : undefined;

async function sh(cmd: string[], timeout = 120_000, cwd = ROOT): Promise<string> {
  try {
    const { stdout } = await exec(cmd[0]!, cmd.slice(1), { cwd, timeout, maxBuffer: 64 * 2 ** 20 });
    return stdout;
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${cmd.join(' ')} failed: ${e.message}\n${(e.stdout ?? '').slice(-4000)}\n${(e.stderr ?? '').slice(-4000)}`);
  }
}

describe('container images: what gets built', () => {
  it('builds an image for every compose service that has a build section, from that Dockerfile and those arguments', () => {
    const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
      services: Record<string, { build?: { dockerfile: string; args?: Record<string, string> } }>;
    };
    const built = Object.entries(compose.services)
      .filter(([, s]) => s.build)
      .map(([name, s]) => ({ name, dockerfile: s.build!.dockerfile, buildArgs: s.build!.args ?? {} }));
    expect(IMAGE_TARGETS.map((t) => ({ name: t.name, dockerfile: t.dockerfile, buildArgs: t.buildArgs })).sort((a, b) => a.name.localeCompare(b.name))).toEqual(
      built.sort((a, b) => a.name.localeCompare(b.name)),
    );
    if (skipReason) console.warn(skipReason);
  });
});

(skipReason ? describe.skip : describe)('container images: built with buildah, run with podman', () => {
  jest.setTimeout(BUILD_TIMEOUT_MS);
  const containers: string[] = [];
  let limits: string[] = [];
  const context = mkdtempSync(join(tmpdir(), 'vrp-build-context-'));

  beforeAll(async () => {
    if (missingTools.length) throw new Error(`pnpm test:images needs ${missingTools.join(', ')}: apt-get install -y buildah podman runc debootstrap`);
    await sh(['bash', 'scripts/build-base-image.sh'], 15 * 60_000);
    // podman as root asks for larger limits than this machine grants (and this VM refuses a
    // large RLIMIT_NPROC even below its hard limit): ask for modest ones, within what it has.
    const [nofile, nproc] = (await sh(['bash', '-c', 'ulimit -Hn; ulimit -Hu'])).trim().split('\n');
    const cap = (v: string | undefined, max: number) => (v === 'unlimited' || !v ? max : Math.min(Number(v), max));
    limits = ['--ulimit', `nofile=${cap(nofile, 65536)}:${cap(nofile, 65536)}`, '--ulimit', `nproc=${cap(nproc, 4096)}:${cap(nproc, 4096)}`];
    // What `docker build .` at the root would send (buildah applies the same .dockerignore again).
    copyBuildContext(context);
  });

  afterAll(async () => {
    for (const name of containers) await sh([...PODMAN, 'rm', '--force', name]).catch(() => undefined);
    rmSync(context, { recursive: true, force: true });
    // vfs keeps full copies: drop this run's images and what their rebuilds left untagged, so
    // repeated runs (CI) do not fill the disk. The base image stays.
    for (const target of IMAGE_TARGETS) await sh(['buildah', ...STORAGE, 'rmi', '--force', `localhost/vrp/${target.name}:test`]).catch(() => undefined);
    await sh(['buildah', ...STORAGE, 'rmi', '--prune'], 10 * 60_000).catch(() => undefined);
  });

  it.each(IMAGE_TARGETS.map((t) => [t.name, t] as const))(
    '%s: builds from the build context, runs as node, passes its HEALTHCHECK, exits 0 on SIGTERM',
    async (_name, target: ImageTarget) => {
      const tag = `localhost/vrp/${target.name}:test`;
      // No --layers: with the vfs driver every cached layer is a full copy plus a naive diff of the
      // build stage's tree (the whole workspace's node_modules), which costs far more than running
      // the install and the bundle again (the pnpm store is a cache mount, kept between builds).
      const build = [
        'buildah',
        ...STORAGE,
        'bud',
        '--isolation',
        'chroot',
        '--layers=false',
        '--format',
        'docker',
        '--pull=never',
        '-f',
        target.dockerfile,
        '-t',
        tag,
      ];
      for (const [k, v] of Object.entries(target.buildArgs)) build.push('--build-arg', `${k}=${v}`);
      // Behind a TLS-intercepting proxy npm and pnpm need its CA in the build stage (Dockerfile ARG).
      const ca = process.env.NODE_EXTRA_CA_CERTS;
      if (ca && existsSync(ca)) build.push('-v', `${ca}:/run/build-ca.crt:ro`, '--build-arg', 'NODE_EXTRA_CA_CERTS=/run/build-ca.crt');
      const buildStart = Date.now();
      await sh([...build, '.'], BUILD_TIMEOUT_MS, context);
      console.log(`${target.name}: image built in ${Math.round((Date.now() - buildStart) / 1000)} s`);

      const config = JSON.parse(await sh(['buildah', ...STORAGE, 'inspect', '--type', 'image', tag])) as {
        Docker: { config: { User?: string; Healthcheck?: { Test?: string[] }; Env?: string[] } };
      };
      expect(config.Docker.config.User).toBe('node');
      expect(config.Docker.config.Env).toContain('NODE_ENV=production');
      expect(config.Docker.config.Healthcheck?.Test?.[0]).toBe('CMD');

      const ports = { main: await freePort(), ops: await freePort() };
      const name = `vrp-image-test-${target.name}-${process.pid}`;
      containers.push(name);
      const env = Object.entries({ LOG_LEVEL: 'warn', ...embeddedEngines('/tmp/vrp-data'), ...target.env(ports) }).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
      // Host network: the ports are free ones of this machine, as in deploy/test/image-runtime.test.ts.
      // The HEALTHCHECK's own timer needs systemd; the test runs the check itself instead.
      await sh([...PODMAN, 'run', '--detach', '--name', name, '--network', 'host', '--health-interval', 'disable', ...limits, ...env, tag]);
      expect((await sh([...PODMAN, 'exec', name, 'id', '-u'])).trim()).toBe('1000');

      // The image's own HEALTHCHECK command; the simulator's passes its port (the test moved it).
      const healthy = async (): Promise<boolean> => {
        const state = (await sh([...PODMAN, 'inspect', '--format', '{{.State.Status}}', name])).trim();
        if (state !== 'running') throw new Error(`${target.name} is ${state}:\n${await sh([...PODMAN, 'logs', name]).catch(String)}`);
        const check = target.healthArgs(ports).length
          ? [...PODMAN, 'exec', name, 'node', 'healthcheck.js', ...target.healthArgs(ports)]
          : [...PODMAN, 'healthcheck', 'run', name];
        return sh(check).then(
          () => true,
          () => false,
        );
      };
      await eventually(healthy, { timeoutMs: 60_000, what: `${target.name} to pass its HEALTHCHECK`, intervalMs: 100 });

      const stoppedAt = Date.now();
      await sh([...PODMAN, 'stop', '--time', String(STOP_TIMEOUT_S), name], 60_000);
      const elapsed = Date.now() - stoppedAt;
      const [exitCode] = (await sh([...PODMAN, 'inspect', '--format', '{{.State.ExitCode}}', name])).trim().split(' ');
      expect({ image: target.name, exitCode: Number(exitCode) }).toEqual({ image: target.name, exitCode: 0 });
      expect(elapsed).toBeLessThan(STOP_TIMEOUT_S * 1000); // SIGTERM did it, not the SIGKILL after the timeout
    },
  );
});
