// The container images the repository builds, and their build context, shared by
// deploy/test/image-runtime.test.ts (the runtime trees booted without a container engine) and
// deploy/test/container-images.test.ts (the real images, built with buildah and run with podman).
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import dockerignore from '@balena/dockerignore';

export const ROOT = join(__dirname, '..', '..', '..');

export interface Ports {
  main: number;
  ops: number;
}

export interface ImageTarget {
  name: string;
  dockerfile: string;
  /** `--build-arg`s of the image. */
  buildArgs: Record<string, string>;
  packageName: string;
  bundle: string;
  /** Env of the container (ports chosen free by the test) and the port its HEALTHCHECK asks. */
  env: (ports: Ports) => Record<string, string>;
  /** Arguments of `node healthcheck.js` as the image's HEALTHCHECK passes them, with these ports. */
  healthArgs: (ports: Ports) => string[];
}

const domainService = (name: string, prefix: string): ImageTarget => ({
  name,
  dockerfile: 'deploy/docker/Dockerfile.service',
  buildArgs: { SERVICE: name },
  packageName: `@vrp/${name}`,
  bundle: `services/${name}/dist/image/main.js`,
  env: ({ main, ops }) => ({ [`${prefix}_GRPC_PORT`]: String(main), [`${prefix}_OPS_PORT`]: String(ops), HEALTH_PORT: String(ops) }),
  healthArgs: () => [],
});

/**
 * The images run with NODE_ENV=production and no MongoDB or Kafka here: on the embedded engines,
 * which production refuses unless asked for explicitly with a data directory (the single-node
 * deployment's settings).
 */
export const embeddedEngines = (dataDir: string): Record<string, string> => ({ ALLOW_EMBEDDED_ENGINES: 'true', DATA_DIR: dataDir });

export const IMAGE_TARGETS: ImageTarget[] = [
  {
    name: 'gateway',
    dockerfile: 'deploy/docker/Dockerfile.service',
    buildArgs: { SERVICE: 'gateway' },
    packageName: '@vrp/gateway',
    bundle: 'services/gateway/dist/image/main.js',
    env: ({ main, ops }) => ({
      GATEWAY_PORT: String(main),
      GATEWAY_ADMIN_PORT: String(ops),
      GATEWAY_HOST: '127.0.0.1',
      HEALTH_PORT: String(main),
      ADMIN_TOKEN: 'image-runtime-admin-token',
      API_KEY_PEPPER: 'image-runtime-pepper-0123456789abcdef',
    }),
    healthArgs: () => [],
  },
  domainService('listing', 'LISTING'),
  domainService('reservation', 'RESERVATION'),
  domainService('guest', 'GUEST'),
  domainService('pms-adapter', 'PMS_ADAPTER'),
  domainService('webhook', 'WEBHOOK'),
  {
    name: 'pms-simulator',
    dockerfile: 'deploy/docker/Dockerfile.pms-simulator',
    buildArgs: {},
    packageName: '@vrp/pms-simulator',
    bundle: 'tools/pms-simulator/dist/main.js',
    env: ({ main }) => ({ PMS_SIMULATOR_PORT: String(main), PMS_SIMULATOR_HOST: '127.0.0.1' }),
    // The simulator image's HEALTHCHECK arguments (Dockerfile.pms-simulator), with this port.
    healthArgs: ({ main }) => [String(main), '/_control/requests?provider=none'],
  },
];

/** Packages that must never reach a runtime image. */
export const DEV_ONLY = [
  'typescript',
  'jest',
  'tsx',
  '@swc/core',
  'esbuild',
  'testcontainers',
  '@testcontainers/mongodb',
  '@testcontainers/kafka',
  'eslint',
  'ts-proto',
  '@bufbuild/buf',
  'mongodb-memory-server',
];

/** Names of the packages in a node_modules folder, scoped ones as `@scope/name`. */
export function packagesIn(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) => (name.startsWith('@') ? readdirSync(join(dir, name)).map((sub) => `${name}/${sub}`) : [name]));
}

/**
 * The files of the build context the Dockerfiles get (`docker build .` / `buildah bud .` from the
 * repository root): every file of the working tree that `.dockerignore` does not exclude, with
 * Docker's own matching rules (@balena/dockerignore), as paths relative to the root.
 */
export function buildContextFiles(root: string = ROOT): string[] {
  const rules = dockerignore().add(readFileSync(join(root, '.dockerignore'), 'utf8').split('\n'));
  const exceptions = readFileSync(join(root, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('!'))
    .map((l) => l.slice(1).replace(/^\/+/, ''));
  const files: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of readdirSync(join(root, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        // An excluded folder is entered only when an exception may re-include something in it.
        if (!rules.ignores(path) || exceptions.some((e) => e.startsWith(`${path}/`))) walk(path);
      } else if (!rules.ignores(path)) files.push(path);
    }
  };
  walk('');
  return files.sort();
}

/** Copies the build context into `dir` (which must be empty or missing). */
export function copyBuildContext(dir: string, root: string = ROOT): string[] {
  const files = buildContextFiles(root);
  for (const file of files) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    copyFileSync(join(root, file), join(dir, file));
  }
  return files;
}
