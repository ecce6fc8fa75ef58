// docker-compose.yml, the Helm chart (deploy/helm/vrp) and docs/operations.md against the code:
// every env var a process reads (derived from its zod schemas and env reads, see
// support/env-catalog.ts) is wired, nothing stale is, the values parse with the code's own
// schemas, probes and healthchecks point at the ports the processes bind and at paths they
// serve, and the topics match packages/contracts/src/topics.ts. docker-compose.yml is also
// validated against the Compose Specification's JSON schema and checked for its security rules
// (secrets as files, MongoDB auth, loopback-only ports, the simulator on an internal network).
// The rendered chart (helm template, helm lint --strict) is checked by helm-chart.test.ts.
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { dirname, join } from 'node:path';
import Ajv from 'ajv';
import { parse } from 'yaml';
import { checkEngineConfig } from '@vrp/platform/config';
import { startOpsServer } from '@vrp/platform/ops-server';
import { ROOT, serviceProcesses, toolProcesses, type ProcessEnv } from './support/env-catalog';
import { startStack } from '@vrp/stack';

type Env = Record<string, string>;
interface ComposeService {
  image?: string;
  secrets?: string[];
  networks?: string[];
  volumes?: string[];
  network_mode?: string;
  build?: { context: string; dockerfile: string; args?: Record<string, string> };
  environment?: Record<string, string | number>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  ports?: string[];
  command?: string[] | string;
  stop_grace_period?: string;
}
interface HelmService {
  enabled: boolean;
  name: string;
  kind: 'gateway' | 'grpc';
  envPrefix: string;
  ports: { http?: number; admin?: number; grpc?: number; ops?: number };
  probes: { liveness: string; readiness: string; startup: string };
  env: Record<string, string | number>;
  secretEnv: string[];
  autoscaling: { enabled: boolean; minReplicas: number; maxReplicas: number };
  pdb: { enabled: boolean };
  resources: { requests?: Record<string, string>; limits?: Record<string, string> };
}

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const compose = parse(read('docker-compose.yml'), { merge: true }) as {
  services: Record<string, ComposeService>;
  networks: Record<string, { internal?: boolean } | null>;
  secrets: Record<string, { file: string }>;
};
const chartDir = 'deploy/helm/vrp';
const values = parse(read(`${chartDir}/values.yaml`)) as {
  defaultEnv: Record<string, string>;
  kafka: { brokers: string };
  topics: { name: string; partitions: number; compacted: boolean }[];
  podDefaults: { terminationGracePeriodSeconds: number; preStopSleepSeconds: number };
  services: Record<string, HelmService>;
};
const operationsDoc = read('docs/operations.md');
/** The topics of the contracts, read from packages/contracts/src/topics.ts (a repository file, not imported). */
const TOPICS = [...read('packages/contracts/src/topics.ts').matchAll(/\{ name: '([^']+)', partitions: (\d+), compacted: (true|false) \}/g)].map((m) => ({
  name: m[1]!,
  partitions: Number(m[2]),
  compacted: m[3] === 'true',
}));
const processes = serviceProcesses();
const tools = toolProcesses();
const ADDR_VARS = ['LISTING_ADDR', 'RESERVATION_ADDR', 'GUEST_ADDR', 'PMS_ADAPTER_ADDR', 'WEBHOOK_ADDR'] as const;
const ADDR_OWNER: Record<(typeof ADDR_VARS)[number], string> = {
  LISTING_ADDR: 'listing',
  RESERVATION_ADDR: 'reservation',
  GUEST_ADDR: 'guest',
  PMS_ADAPTER_ADDR: 'pms-adapter',
  WEBHOOK_ADDR: 'webhook',
};

/** What the secret files of docker-compose.yml hold (deploy/compose/make-secrets.sh), by variable. */
const SECRET_SAMPLES: Env = {
  ADMIN_TOKEN: 'a'.repeat(24),
  API_KEY_PEPPER: 'p'.repeat(40),
  MONGO_URL: `mongodb://vrp:${'s'.repeat(32)}@mongo:27017/?replicaSet=rs0&authSource=admin`,
};
/** A `<NAME>_FILE` variable: the secret NAME read from a file. */
const FILE_VAR = /^([A-Z][A-Z0-9_]*)_FILE$/;
/** The target of a gRPC address variable: host:port, with or without dns:///. */
const hostPort = (address: string): string[] => address.replace(/^dns:\/\/\//, '').split(':');

/** Compose interpolation as `docker compose` applies it: ${X:-default} -> default, ${X:?msg} -> the operator's value. */
function interpolate(value: string): string {
  return value.replace(/\$\{([A-Z0-9_]+):-([^}]*)\}/g, '$2').replace(/\$\{([A-Z0-9_]+):\?[^}]*\}/g, (_m, name: string) => {
    throw new Error(`docker-compose.yml requires \${${name}}: secrets are files (compose secrets:), not variables`);
  });
}

/** A service's environment as its process sees it: each `<NAME>_FILE` read as NAME (its sample). */
function composeEnv(service: ComposeService): Env {
  const out: Env = {};
  for (const [k, v] of Object.entries(service.environment ?? {})) {
    const secret = FILE_VAR.exec(k)?.[1];
    if (secret) out[secret] = SECRET_SAMPLES[secret] ?? `no sample for ${secret}`;
    else out[k] = interpolate(String(v));
  }
  return out;
}

/** Parses `env` with every schema of the process; returns the merged result or the problems. */
function parseWithCode(proc: ProcessEnv, env: Env): { data: Record<string, unknown>; problems: string[] } {
  const data: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const schema of proc.schemas) {
    const result = schema.safeParse(env);
    if (result.success) Object.assign(data, result.data);
    else problems.push(...(result.error?.issues ?? []).map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  try {
    if (proc.kind === 'grpc') checkEngineConfig(data as never);
  } catch (err) {
    problems.push(String(err));
  }
  return { data, problems };
}

function healthcheckTarget(service: ComposeService): { port: number; path: string } {
  const test = service.healthcheck?.test ?? [];
  const i = test.indexOf('healthcheck.js');
  return { port: Number(test[i + 1]), path: test[i + 2] ?? '/healthz' };
}

const missing = (required: Iterable<string>, present: Set<string>) => [...required].filter((v) => !present.has(v));

function get(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', reject);
  });
}

describe('the env catalog derived from the code', () => {
  it('finds the gateway and the five domain services, each with its own settings', () => {
    expect(processes.map((p) => p.name).sort()).toEqual(['gateway', 'guest', 'listing', 'pms-adapter', 'reservation', 'webhook']);
    for (const p of processes.filter((x) => x.kind === 'grpc')) {
      expect([...p.vars.keys()]).toEqual(
        expect.arrayContaining([
          `${p.prefix}_GRPC_PORT`,
          `${p.prefix}_OPS_PORT`,
          `${p.prefix}_MONGO_DB`,
          'STORE',
          'BUS',
          'MONGO_URL',
          'KAFKA_BROKERS',
          'LOG_LEVEL',
          ...ADDR_VARS,
        ]),
      );
    }
  });
});

describe('docker-compose.yml', () => {
  it.each(processes.map((p) => [p.name, p] as const))('%s: sets exactly the variables the code reads, and they parse with its schemas', (name, proc) => {
    const service = compose.services[name];
    expect(service).toBeDefined();
    const env = composeEnv(service!);
    const present = new Set(Object.keys(env));
    expect(missing(proc.vars.keys(), present)).toEqual([]);
    expect(missing(present, new Set(proc.vars.keys()))).toEqual([]); // nothing stale
    const { data, problems } = parseWithCode(proc, env);
    expect(problems).toEqual([]);
    expect(data.STORE).toBe('mongo');
    if (proc.kind === 'grpc') expect(data.BUS).toBe('kafka');
    // transactions and change streams need a replica set
    expect(String(data.MONGO_URL)).toMatch(/replicaSet=/);
  });

  it.each(processes.map((p) => [p.name, p] as const))('%s: image, healthcheck on the port it binds, start order, graceful stop', (name, proc) => {
    const service = compose.services[name]!;
    expect(service.build?.dockerfile).toBe('deploy/docker/Dockerfile.service');
    expect(service.build?.args?.SERVICE).toBe(name);
    const { data } = parseWithCode(proc, composeEnv(service));
    const health = healthcheckTarget(service);
    const expectedPort = proc.kind === 'gateway' ? data.GATEWAY_PORT : data[`${proc.prefix}_OPS_PORT`];
    expect(health.port).toBe(expectedPort);
    expect(['/healthz', '/readyz']).toContain(health.path);
    expect(service.depends_on?.mongo?.condition).toBe('service_healthy');
    if (proc.kind === 'grpc') expect(service.depends_on?.['kafka-init']?.condition).toBe('service_completed_successfully');
    else for (const other of processes.filter((p) => p.kind === 'grpc')) expect(service.depends_on?.[other.name]?.condition).toBe('service_healthy');
    expect(service.stop_grace_period).toBeDefined();
  });

  it('points every *_ADDR at the compose service that owns it, on the gRPC port that service binds', () => {
    const grpcPortOf = (name: string) => {
      const proc = processes.find((p) => p.name === name)!;
      return parseWithCode(proc, composeEnv(compose.services[name]!)).data[`${proc.prefix}_GRPC_PORT`];
    };
    for (const proc of processes) {
      const env = composeEnv(compose.services[proc.name]!);
      for (const v of ADDR_VARS) {
        const [host, port] = hostPort(env[v]!);
        expect(host).toBe(ADDR_OWNER[v]);
        expect(Number(port)).toBe(grpcPortOf(ADDR_OWNER[v]));
      }
    }
  });

  it('runs MongoDB as a replica set and Kafka in KRaft mode with healthchecks', () => {
    const mongo = compose.services.mongo!;
    expect(mongo.command).toEqual(expect.arrayContaining(['--replSet']));
    expect(mongo.healthcheck?.test).toEqual(['CMD', 'mongosh', '--nodb', '--quiet', '--file', '/vrp/mongo-healthcheck.js']);
    expect(read('deploy/compose/mongo-healthcheck.js')).toContain('replSetInitiate');
    const kafka = compose.services.kafka!;
    expect(kafka.environment?.KAFKA_PROCESS_ROLES).toBe('broker,controller');
    // kafka-storage formats the log dir with it: a base64 UUID of exactly 22 characters.
    expect(String(kafka.environment?.CLUSTER_ID)).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(kafka.healthcheck).toBeDefined();
    for (const proc of processes.filter((p) => p.kind === 'grpc')) {
      expect(composeEnv(compose.services[proc.name]!).KAFKA_BROKERS).toBe('kafka:9092');
    }
  });

  it('creates exactly the topics of the contracts, with their partitions and compaction', () => {
    const script = String((compose.services['kafka-init']!.command as string[]).join('\n'));
    const created = [...script.matchAll(/--topic (\S+) --partitions (\d+) --replication-factor \d+( --config cleanup\.policy=compact)?/g)].map((m) => ({
      name: m[1],
      partitions: Number(m[2]),
      compacted: Boolean(m[3]),
    }));
    const expected = TOPICS;
    expect(created).toEqual(expected);
  });

  it.each(tools.map((t) => [t.name, t] as const))('runs the %s with every variable it reads, reachable by the services', (name, tool) => {
    const service = compose.services[name];
    expect(service).toBeDefined();
    expect(service!.build?.dockerfile).toBe(`deploy/docker/Dockerfile.${name}`);
    expect(read(`deploy/docker/Dockerfile.${name}`)).toContain(`tools/${name}/src/main.ts`);
    const env = composeEnv(service!);
    expect(missing(tool.vars.keys(), new Set(Object.keys(env)))).toEqual([]);
    const { problems } = parseWithCode(tool, env);
    expect(problems).toEqual([]);
  });

  it('sends the pms-adapter to the PMS simulator', () => {
    const adapter = composeEnv(compose.services['pms-adapter']!);
    const simulator = composeEnv(compose.services['pms-simulator']!);
    expect(adapter.PMS_BASE_URL).toBe(`http://pms-simulator:${simulator.PMS_SIMULATOR_PORT}`);
    expect(simulator.PMS_SIMULATOR_HOST).toBe('0.0.0.0');
    expect(compose.services['pms-adapter']!.depends_on?.['pms-simulator']?.condition).toBe('service_healthy');
  });
});

describe('docker-compose.yml: Compose Specification and security', () => {
  const raw = read('docker-compose.yml');
  /** Every string of the file as compose sees it after interpolation. */
  const interpolated = (value: unknown): unknown => {
    if (typeof value === 'string') return interpolate(value).replace(/\$\$/g, '$');
    if (Array.isArray(value)) return value.map(interpolated);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolated(v)]));
    return value;
  };
  /** The compose-spec JSON schema, as dclint ships it (a copy of compose-spec/compose-spec's). */
  const validateCompose = (() => {
    const dclint = dirname(require.resolve('dclint/package.json'));
    const schema = JSON.parse(readFileSync(join(dclint, 'schemas', 'compose.schema.json'), 'utf8')) as Record<string, unknown>;
    delete schema.$schema; // draft-07, ajv's default; its https spelling is not a key ajv knows
    return new Ajv({ allErrors: true, unknownFormats: 'ignore' }).compile(schema);
  })();

  it('is valid against the Compose Specification schema', () => {
    const doc = interpolated(parse(raw, { merge: true }));
    expect(validateCompose(doc) ? [] : validateCompose.errors).toEqual([]);
  });

  it('the schema check catches a malformed file', () => {
    const doc = interpolated(parse(raw, { merge: true })) as { services: Record<string, Record<string, unknown>> };
    doc.services.gateway!.depends_on = { mongo: { condition: 'healthy' } }; // not a compose condition
    doc.services.gateway!.ports = [{ target: 'eighty' }];
    expect(validateCompose(doc)).toBe(false);
  });

  it('gives every secret as a file (compose secrets:, <NAME>_FILE), never as a value or on a command line', () => {
    const secretVars = new Set(processes.flatMap((p) => [...p.vars.values()].filter((v) => v.secret).map((v) => v.name)));
    expect([...secretVars].sort()).toEqual(['ADMIN_TOKEN', 'API_KEY_PEPPER', 'MONGO_URL']);
    const script = read('deploy/compose/make-secrets.sh');
    for (const [name, secret] of Object.entries(compose.secrets)) {
      expect(secret.file).toBe(`./secrets/${name}`);
      expect(script).toContain(`keep_or_write ${name} `); // the script writes every one
    }
    for (const [name, service] of Object.entries(compose.services)) {
      for (const [key, value] of Object.entries(service.environment ?? {})) {
        expect({ name, key, secretAsValue: secretVars.has(key) || /PASSWORD$/.test(key) }).toEqual({ name, key, secretAsValue: false });
        const file = FILE_VAR.exec(key) ? /^\/run\/secrets\/(.+)$/.exec(String(value))?.[1] : undefined;
        if (FILE_VAR.test(key)) expect({ name, key, mounted: service.secrets?.includes(file ?? '') }).toEqual({ name, key, mounted: true });
      }
    }
    expect(raw).not.toMatch(/--password|-p \$|dev-admin-token|dev-api-key-pepper/);
    expect(raw).not.toMatch(/\$\{[A-Z0-9_]*(TOKEN|PEPPER|PASSWORD)/);
    // and ./secrets stays out of git and of every image's build context
    expect(read('.gitignore')).toMatch(/^\/secrets\/$/m);
    expect(read('.dockerignore')).toMatch(/^secrets$/m);
  });

  it('runs MongoDB with access control: a keyfile, a root user, and the services as a readWrite user', () => {
    const mongo = compose.services.mongo!;
    const command = mongo.command as string[];
    expect(command[command.indexOf('--keyFile') + 1]).toBe('/keyfile/key');
    expect(mongo.depends_on?.['mongo-keyfile']?.condition).toBe('service_completed_successfully');
    expect(compose.services['mongo-keyfile']!.network_mode).toBe('none');
    expect(mongo.environment?.MONGO_INITDB_ROOT_USERNAME).toBeDefined();
    expect(mongo.environment?.MONGO_INITDB_ROOT_PASSWORD_FILE).toBe('/run/secrets/mongo_root_password');
    expect(mongo.secrets).toEqual(['mongo_root_password', 'mongo_app_password']);
    expect(read('deploy/compose/mongo-healthcheck.js')).toContain("admin.auth('vrp-admin', password)");
    expect(read('deploy/compose/make-secrets.sh')).toContain('mongodb://vrp:$(cat secrets/mongo_app_password)@mongo:27017/?replicaSet=rs0&authSource=admin');
    for (const proc of processes) {
      const url = new URL(composeEnv(compose.services[proc.name]!).MONGO_URL!);
      expect({ service: proc.name, user: url.username, password: url.password, authSource: url.searchParams.get('authSource') }).toEqual({
        service: proc.name,
        user: 'vrp',
        password: 's'.repeat(32),
        authSource: 'admin',
      });
    }
    // The init script grants the services' user exactly the databases they use.
    const init = read('deploy/compose/mongo-init.js');
    expect(mongo.volumes).toContain('./deploy/compose/mongo-init.js:/docker-entrypoint-initdb.d/10-vrp-user.js:ro');
    const granted = JSON.parse(/const DATABASES = (\[[^\]]*\])/.exec(init)![1]!.replace(/'/g, '"')) as string[];
    const used = processes.map((p) => composeEnv(compose.services[p.name]!)[p.kind === 'gateway' ? 'GATEWAY_MONGO_DB' : `${p.prefix}_MONGO_DB`]);
    expect(granted.sort()).toEqual(used.sort());
  });

  it('publishes infrastructure on the loopback interface only, the gateway on loopback by default, the simulator not at all', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const port of service.ports ?? []) {
        const published = interpolate(port);
        expect({ name, published }).toEqual({ name, published: expect.stringMatching(/^127\.0\.0\.1:\d+:\d+$/) });
      }
    }
    expect(compose.services.gateway!.ports).toEqual(['127.0.0.1:${GATEWAY_ADMIN_HOST_PORT:-9160}:9160', '127.0.0.1:${GATEWAY_HOST_PORT:-8080}:8080']);
    const simulator = compose.services['pms-simulator']!;
    expect(simulator.ports).toBeUndefined();
    expect(simulator.networks).toEqual(['pms']);
    expect(compose.networks.pms?.internal).toBe(true);
    const onPms = Object.entries(compose.services)
      .filter(([, s]) => s.networks?.includes('pms'))
      .map(([n]) => n);
    expect(onPms.sort()).toEqual(['pms-adapter', 'pms-simulator']);
  });

  it('says it needs Compose v2, and docs/operations.md too', () => {
    expect(raw).toMatch(/Compose v2/);
    expect(operationsDoc).toMatch(/Compose v2/);
  });
});

describe('images', () => {
  it('build small, non-root, production-only runtime images with a healthcheck', () => {
    for (const file of ['deploy/docker/Dockerfile.service', 'deploy/docker/Dockerfile.pms-simulator']) {
      const text = read(file);
      expect(text.match(/^FROM /gm)?.length).toBeGreaterThanOrEqual(2); // multi-stage
      expect(text).toMatch(/-slim AS runtime/);
      expect(text).toMatch(/NODE_ENV=production/);
      expect(text).toMatch(/^USER node$/m);
      // The runtime tree is assembled by the script deploy/test/image-runtime.test.ts boots.
      expect(text).toMatch(/deploy\/docker\/assemble\.sh "@vrp\/[^"]+" \S+ \/out --offline/);
      expect(text).toMatch(/^HEALTHCHECK .*healthcheck\.js/m);
    }
    expect(read('deploy/docker/Dockerfile.service')).toContain('node scripts/bundle.mjs');
    expect(existsSync(join(ROOT, '.dockerignore'))).toBe(true);
    expect(read('.dockerignore')).toMatch(/node_modules/);
  });
});

describe('the Helm chart', () => {
  const templates = [
    '_helpers.tpl',
    'deployment.yaml',
    'service.yaml',
    'hpa.yaml',
    'pdb.yaml',
    'configmap.yaml',
    'secret.yaml',
    'ingress.yaml',
    'networkpolicy.yaml',
    'serviceaccount.yaml',
    'NOTES.txt',
  ];
  const template = (name: string) => read(`${chartDir}/templates/${name}`);
  const helmService = (name: string) => Object.values(values.services).find((s) => s.name === name);
  /** What the chart puts in a service's environment: shared ConfigMap, its own, computed, secrets. */
  function chartEnv(svc: HelmService): Env {
    const env: Env = { ...values.defaultEnv, KAFKA_BROKERS: values.kafka.brokers };
    for (const v of ADDR_VARS) {
      const owner = helmService(ADDR_OWNER[v])!;
      env[v] = `dns:///vrp-${owner.name}-headless:${owner.ports.grpc}`;
    }
    if (svc.kind === 'gateway') {
      env[`${svc.envPrefix}_PORT`] = String(svc.ports.http);
      env[`${svc.envPrefix}_ADMIN_PORT`] = String(svc.ports.admin);
    } else {
      env[`${svc.envPrefix}_GRPC_PORT`] = String(svc.ports.grpc);
      env[`${svc.envPrefix}_OPS_PORT`] = String(svc.ports.ops);
    }
    for (const [k, v] of Object.entries(svc.env)) env[k] = String(v);
    const secretSamples: Env = { ADMIN_TOKEN: 'a'.repeat(24), API_KEY_PEPPER: 'p'.repeat(40), MONGO_URL: 'mongodb://mongo-0.mongo:27017/?replicaSet=rs0' };
    for (const k of svc.secretEnv) env[k] = secretSamples[k]!;
    return env;
  }

  it('has Chart.yaml, documented values, a schema the values satisfy, and every template', () => {
    expect(parse(read(`${chartDir}/Chart.yaml`))).toMatchObject({ apiVersion: 'v2', name: 'vrp' });
    for (const t of templates) expect(existsSync(join(ROOT, chartDir, 'templates', t))).toBe(true);
    const ajv = new Ajv({ allErrors: true });
    const validate = ajv.compile(JSON.parse(read(`${chartDir}/values.schema.json`)) as object);
    expect(validate(values) ? [] : validate.errors).toEqual([]);
    // every top-level key of values.yaml carries a comment
    const raw = read(`${chartDir}/values.yaml`).split('\n');
    raw.forEach((line, i) => {
      if (/^[a-zA-Z]/.test(line))
        expect(raw.slice(Math.max(0, i - 3), i).some((l) => l.trim().startsWith('#')) || line.startsWith('imagePullSecrets')).toBe(true);
    });
  });

  it('renders every per-service object from one loop over .Values.services', () => {
    for (const t of ['deployment.yaml', 'service.yaml', 'hpa.yaml', 'pdb.yaml', 'configmap.yaml'])
      expect(template(t)).toContain('range $key, $svc := .Values.services');
    const deployment = template('deployment.yaml');
    for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) expect(deployment).toContain(probe);
    expect(deployment).toMatch(/path: \{\{ \$svc\.probes\.readiness \}\}, port: \{\{ include "vrp\.probePort" \$ctx \}\}/);
    expect(deployment).toContain('terminationGracePeriodSeconds');
    expect(deployment).toContain('preStop');
    expect(deployment).toContain('{{ $secretKey }}_FILE');
    expect(deployment).not.toContain('secretKeyRef');
    expect(template('hpa.yaml')).toContain('kind: HorizontalPodAutoscaler');
    expect(template('pdb.yaml')).toContain('kind: PodDisruptionBudget');
    expect(template('ingress.yaml')).toContain('kind: Ingress');
    // the variables the chart computes are really computed by the templates
    const helpers = template('_helpers.tpl');
    for (const v of ADDR_VARS) expect(helpers).toContain(`"${v}"`);
    for (const suffix of ['_GRPC_PORT', '_OPS_PORT', '_PORT']) expect(helpers).toContain(`{{ .svc.envPrefix }}${suffix}:`);
    expect(template('configmap.yaml')).toContain('KAFKA_BROKERS:');
    for (const key of ['ADMIN_TOKEN', 'API_KEY_PEPPER', 'MONGO_URL']) expect(template('secret.yaml')).toContain(`${key}:`);
  });

  it.each(processes.map((p) => [p.name, p] as const))(
    '%s: every variable it reads is wired, none is stale, and the values parse with its schemas',
    (name, proc) => {
      const svc = helmService(name);
      expect(svc).toBeDefined();
      expect(svc!.enabled).toBe(true);
      expect(svc!.kind).toBe(proc.kind);
      if (proc.kind === 'grpc') expect(svc!.envPrefix).toBe(proc.prefix);
      const env = chartEnv(svc!);
      expect(missing(proc.vars.keys(), new Set(Object.keys(env)))).toEqual([]);
      // its own env and secrets hold only what it reads (the shared ConfigMap may carry more)
      expect(missing([...Object.keys(svc!.env), ...svc!.secretEnv], new Set(proc.vars.keys()))).toEqual([]);
      const { data, problems } = parseWithCode(proc, env);
      expect(problems).toEqual([]);
      if (proc.kind === 'gateway') {
        expect(data.GATEWAY_PORT).toBe(svc!.ports.http);
        expect(data.GATEWAY_HOST).toBe('0.0.0.0');
      } else {
        expect(data[`${proc.prefix}_OPS_PORT`]).toBe(svc!.ports.ops);
        expect(data[`${proc.prefix}_GRPC_PORT`]).toBe(svc!.ports.grpc);
        expect(data.BUS).toBe('kafka');
      }
      expect(data.STORE).toBe('mongo');
      expect(svc!.probes).toEqual({ liveness: '/healthz', readiness: '/readyz', startup: '/healthz' });
      expect(svc!.resources.requests).toBeDefined();
      expect(svc!.autoscaling.maxReplicas).toBeGreaterThanOrEqual(svc!.autoscaling.minReplicas);
      expect(svc!.pdb.enabled).toBe(true);
    },
  );

  it('every shared variable is read by some process', () => {
    const read = new Set(processes.flatMap((p) => [...p.vars.keys()]));
    expect(missing(Object.keys(values.defaultEnv), read)).toEqual([]);
  });

  it('lists the topics of the contracts', () => {
    expect(values.topics).toEqual(TOPICS);
  });

  it('gives pods time for the bounded shutdown after the preStop sleep', () => {
    // stopOnSignals bounds a process's shutdown at 25 s (packages/platform/src/service/run.ts)
    expect(values.podDefaults.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(values.podDefaults.preStopSleepSeconds + 25);
  });

  it('probes paths the processes really serve', async () => {
    // The gateway answers its probes over HTTP (a running embedded stack); every other service
    // serves them from the platform's ops server.
    const gateway = await startStack({ port: 0, ephemeralPorts: true, logLevel: 'silent' });
    const ops = await startOpsServer({ port: 0, host: '127.0.0.1', checks: { ok: async () => true } });
    try {
      for (const svc of Object.values(values.services)) {
        for (const path of Object.values(svc.probes)) {
          const status = svc.kind === 'gateway' ? (await fetch(`${gateway.baseUrl}${path}`)).status : await get(ops.port, path);
          expect({ service: svc.kind, path, status }).toEqual({ service: svc.kind, path, status: 200 });
        }
      }
    } finally {
      await ops.close();
      await gateway.stop();
    }
  });
});

describe('docs/operations.md', () => {
  const all = [...processes, ...tools];
  const names = new Set(all.flatMap((p) => [...p.vars.keys()]));
  it.each([...names].sort())('documents %s with its default', (name) => {
    const row = operationsDoc.split('\n').find((line) => line.startsWith(`| \`${name}\``));
    expect(row).toBeDefined();
    const defaults = new Set(all.map((p) => p.vars.get(name)?.defaultValue).filter((d): d is string => d !== undefined));
    for (const d of defaults) expect(row).toContain(d);
  });

  it('documents every topic with its partitions and policy', () => {
    for (const t of TOPICS) {
      const row = operationsDoc.split('\n').find((line) => line.startsWith(`| \`${t.name}\``));
      expect(row).toBeDefined();
      expect(row).toContain(` ${t.partitions} `);
      expect(row).toContain(t.compacted ? 'compact' : 'delete');
    }
  });

  it('names helm lint and helm template as the chart checks', () => {
    expect(operationsDoc).toContain('helm lint deploy/helm/vrp');
    expect(operationsDoc).toContain('helm template');
  });
});
