// The embedded stack: every service in this Node process, each behind its own gRPC server,
// with in-memory engines, and the gateway in front. `pnpm start` and the e2e tests use it.
import { closeUpstreams, createUpstreams, gatewayConfigSchema, startGateway, type GatewayUpstreams, type RunningGateway } from '@vrp/gateway';
import { createEmbeddedBus, type MemoryEventBus } from '@vrp/engines/bus';
import { useInProcessCalls } from '@vrp/engines/grpc-in-process';
import { createEmbeddedStore } from '@vrp/engines/store';
import { createLogger } from '@vrp/platform/logging';
import type { DocumentStore } from '@vrp/platform/store';
import type { EventBus } from '@vrp/platform/bus';
import type { RunningService, ServiceAddresses } from '@vrp/platform/service';
import { startPmsSimulator, SimulatorControl, type PmsSimulator } from '@vrp/pms-simulator';
import type { WebhookClock } from '@vrp/webhook';
import { dataDirIsEmpty } from './data-dir';
import { seedDemo, seedDemoPmsAccount, type DemoSeed } from './demo';
import { startBalancer } from './balancer';
import { startServices, type ServiceName } from './services';

export interface StackOptions {
  /** Gateway port; 0 picks a free one. Default 8080. */
  port?: number;
  /** Port of the gateway's private listener (/admin/v1, /metrics); 0 picks a free one. Default 9160, or a free one with port 0 or ephemeralPorts. */
  adminPort?: number;
  /** Bind every service to a free port (tests) instead of the fixed defaults. */
  ephemeralPorts?: boolean;
  host?: string;
  logLevel?: string;
  adminToken?: string;
  apiKeyPepper?: string;
  /** Create the demo workspace, key and listings (only into an empty data directory). Default true. */
  seed?: boolean;
  /**
   * Keep every store and the bus in this directory (DATA_DIR): named databases (one per service,
   * the gateway's, `bus`) of one LMDB environment, `<dir>/journal`. Absent or empty: in memory
   * only. Ignored with real engines.
   */
  dataDir?: string;
  /** Retention of the persisted bus, in hours (BUS_RETENTION_HOURS). Default 168. */
  busRetentionHours?: number;
  publicBaseUrl?: string;
  /** Port of the PMS simulator; default 8090, or a free one with ephemeralPorts. */
  pmsSimulatorPort?: number;
  /** Scheduled PMS sync interval; default 0 (sync on connect and on demand only). */
  pmsSyncIntervalMs?: number;
  /** Connect the demo workspace to a simulated PMS-A account (`pnpm start`). Default false. */
  demoPms?: boolean;
  /** Scheduling clock of webhook deliveries; tests pass a ManualClock to run retries without waiting. */
  webhookClock?: WebhookClock;
  /** Lease of a claimed webhook delivery; must exceed the 10 s send timeout. Default 60 s. */
  webhookLeaseMs?: number;
  /** The gateway's deadline for each call to a service (UPSTREAM_DEADLINE_MS). Default 3000. */
  upstreamDeadlineMs?: number;
  /**
   * The gateway's and the services' gRPC calls to each other stay inside this process: same
   * messages, encoded and decoded, same deadlines, errors and size limits, no loopback HTTP/2
   * (GRPC_IN_PROCESS; `@vrp/engines` grpc/in-process.ts). Default true; false sends every call
   * over the network, as separate processes do.
   */
  grpcInProcess?: boolean;
  /**
   * Instances of every service and of the gateway (default 1), as production runs replicas: each
   * its own gRPC server, consumers and caches; one store per service shared by its instances; the
   * gateway's calls balanced over the instances by its gRPC client (round_robin), the gateway's
   * replicas behind a balancer on `port`. Above 1, calls go over loopback gRPC.
   */
  replicas?: number;
  /** Age of a gRPC connection before a service asks its client to go away (default 30 s). */
  grpcMaxConnectionAgeMs?: number;
}

/**
 * Real engines for the stack (the real-engine smoke test): one database per service and the
 * gateway, and one shared bus. The stack closes them on stop(). Default: in-memory engines.
 */
export interface StackEngines {
  store(name: ServiceName | 'gateway'): Promise<DocumentStore>;
  bus: EventBus;
}

export interface Stack<B extends EventBus = MemoryEventBus> {
  /** Where this process reaches the gateway (the bound host and port). */
  baseUrl: string;
  /** Where this process reaches the gateway's private listener: the admin API (<adminBaseUrl>/admin/v1) and /metrics. */
  adminBaseUrl: string;
  /** The base of the gateway's absolute links (docs_url), e.g. http://localhost:8080. */
  publicBaseUrl: string;
  adminToken: string;
  /** The first gateway replica. */
  gateway: RunningGateway;
  /** Every gateway replica now running (behind the balancer at `baseUrl` when several). */
  gateways: RunningGateway[];
  /** The first instance of each service. */
  services: Record<ServiceName, RunningService>;
  /** Every instance of each service now running. */
  instances: Record<ServiceName, RunningService[]>;
  /** Instances of each service and of the gateway. */
  replicas: number;
  /**
   * One step of a rolling restart: stops instance `index` of a service (or gateway replica) as on
   * SIGTERM (not ready, drained, its groups left and leases handed over) and starts it again.
   */
  restart(name: ServiceName | 'gateway', index: number): Promise<RunningService | RunningGateway>;
  /** Where the services' gRPC servers listen (host:port), as the gateway was given them. */
  addresses: ServiceAddresses;
  stores: Record<ServiceName | 'gateway', DocumentStore>;
  bus: B;
  /** The demo data created by this start; null when not seeded (seed: false, or data loaded from dataDir). */
  demo: DemoSeed | null;
  /** Where the data lives, or null when in memory only. */
  dataDir: string | null;
  /** The PMS simulator the pms-adapter talks to, and its control API (tests change PMS data with it). */
  pmsSimulator: { url: string; control: SimulatorControl };
  stop(): Promise<void>;
}

/** Development secrets of the embedded stack; production sets its own (see docs). */
export const DEV_ADMIN_TOKEN = 'dev-admin-token-0000000000000000';
const DEV_PEPPER = 'dev-api-key-pepper-000000000000000000000000';

const EPHEMERAL_BOOT_ATTEMPTS = 3;
const isAddressInUse = (error: unknown): boolean => error instanceof Error && /EADDRINUSE/.test(error.message);

export function startStack(opts?: StackOptions): Promise<Stack>;
export function startStack(opts: StackOptions, engines: StackEngines): Promise<Stack<EventBus>>;
export async function startStack(opts: StackOptions = {}, engines?: StackEngines): Promise<Stack<EventBus>> {
  // Every step that holds something (bus, simulator, each service and store, upstream clients,
  // gateway) registers its undo as soon as it is done. A failed boot undoes them in reverse
  // before rethrowing, so it leaves no open port, timer or connection; stop() runs the same list.
  const undo: Array<() => Promise<void>> = [];
  const unwind = async (): Promise<void> => {
    const errors: unknown[] = [];
    for (const step of undo.splice(0).reverse()) await step().catch((error: unknown) => errors.push(error));
    if (errors.length) throw new AggregateError(errors, 'stopping the stack failed');
  };
  // Ephemeral gRPC ports are picked before the services bind them (each service is given the
  // others' addresses up front), so another process may take one in between: such a boot is
  // undone and tried again on new ports (embedded engines only; real ones are the caller's).
  // Decided once, before anything opens the directory: the demo data goes only into an empty one,
  // also when a first attempt that opened it is tried again.
  const dataDir = engines ? null : opts.dataDir || null;
  const fresh = dataDir === null || dataDirIsEmpty(dataDir);
  for (let attempt = 1; ; attempt++) {
    try {
      return await boot(opts, engines, { dataDir, fresh }, (step) => undo.push(step), unwind);
    } catch (error) {
      await unwind().catch(() => undefined); // the boot error is the one to report
      if (!(opts.ephemeralPorts && !engines && attempt < EPHEMERAL_BOOT_ATTEMPTS && isAddressInUse(error))) throw error;
    }
  }
}

/** The gateway replicas of a stack, behind a balancer when there are several. */
interface StackGateways {
  adminToken: string;
  gatewayStore: DocumentStore;
  /** The replicas now running (a restart replaces one in place). */
  gateways: RunningGateway[];
  baseUrl: string;
  /** The first replica's private listener (admin API, /metrics); a restart keeps its port. */
  adminBaseUrl: string;
  demoUpstreams: () => GatewayUpstreams;
  /** Stops one replica (out of the balancer first, then drained) and starts it again. */
  restart(index: number): Promise<RunningGateway>;
}

/**
 * The gateway of a stack over services at `addresses`: its store (embedded unless real engines
 * are given), upstream clients and HTTP server, each registered with `onStarted`. The embedded
 * stack runs it next to the services; `startGatewayProcess` runs it alone (services elsewhere).
 * With `replicas` above 1, that many gateways share the store, each with its own upstream
 * channels and caches, behind a balancer on the stack's port (what a Kubernetes Service does).
 */
async function startStackGateway(
  opts: StackOptions,
  addresses: ServiceAddresses,
  host: string,
  logLevel: string,
  onStarted: (undo: () => Promise<void>) => void,
  engines: StackEngines | undefined,
  dataDir: string | null,
): Promise<StackGateways> {
  const replicas = opts.replicas ?? 1;
  const adminToken = opts.adminToken ?? DEV_ADMIN_TOKEN;
  const clientHost = host === '0.0.0.0' ? 'localhost' : host;
  const gatewayStore = engines ? await engines.store('gateway') : createEmbeddedStore('gateway', dataDir ?? undefined);
  // Real engines hold connections, persisted ones an LMDB environment each.
  onStarted(() => gatewayStore.close());
  const balancer = replicas > 1 ? await startBalancer({ host, port: opts.port ?? 8080, backends: [] }) : null;
  if (balancer) onStarted(() => balancer.close());
  const publicBaseUrl = opts.publicBaseUrl ?? (balancer ? `http://localhost:${balancer.port}` : undefined);
  const adminPort = opts.adminPort ?? (opts.port === 0 || opts.ephemeralPorts ? 0 : undefined);
  const gatewayEnv = {
    GATEWAY_PORT: String(opts.port ?? 8080),
    ...(adminPort === undefined ? {} : { GATEWAY_ADMIN_PORT: String(adminPort) }),
    GATEWAY_HOST: host,
    ADMIN_TOKEN: adminToken,
    API_KEY_PEPPER: opts.apiKeyPepper ?? DEV_PEPPER,
    LISTING_ADDR: addresses.listing,
    RESERVATION_ADDR: addresses.reservation,
    GUEST_ADDR: addresses.guest,
    PMS_ADAPTER_ADDR: addresses.pmsAdapter,
    WEBHOOK_ADDR: addresses.webhook,
    ...(publicBaseUrl ? { PUBLIC_BASE_URL: publicBaseUrl } : {}),
  };
  const config = gatewayConfigSchema.parse({ ...gatewayEnv, ...(opts.upstreamDeadlineMs ? { UPSTREAM_DEADLINE_MS: String(opts.upstreamDeadlineMs) } : {}) });

  const gateways: RunningGateway[] = [];
  const upstreamsOf: GatewayUpstreams[] = [];
  const startReplica = async (index: number, port: number | undefined, replicaAdminPort: number | undefined): Promise<RunningGateway> => {
    const upstreams = createUpstreams(config, config.UPSTREAM_DEADLINE_MS);
    try {
      const gateway = await startGateway({
        store: gatewayStore,
        upstreams,
        config,
        logger: createLogger(replicas > 1 ? `gateway-${index + 1}` : 'gateway', logLevel),
        ...(port === undefined ? {} : { port }),
        ...(replicaAdminPort === undefined ? {} : { adminPort: replicaAdminPort }),
      });
      gateways[index] = gateway;
      upstreamsOf[index] = upstreams;
      balancer?.add(gateway.port);
      return gateway;
    } catch (error) {
      closeUpstreams(upstreams);
      throw error;
    }
  };
  const stopReplica = async (index: number, drain = false): Promise<void> => {
    const gateway = gateways[index];
    if (!gateway) return;
    // Not ready first: the balancer opens no new connection to it; then it drains.
    balancer?.remove(gateway.port);
    await gateway.close({ drain });
    closeUpstreams(upstreamsOf[index]!);
  };
  for (let i = 0; i < replicas; i++) {
    // Behind the balancer every replica takes a free port; alone, the gateway has the stack's.
    // The first replica's private listener is the stack's admin address; the others take free ports.
    await startReplica(i, balancer ? 0 : undefined, i === 0 ? adminPort : 0);
    onStarted(() => stopReplica(i));
  }
  const baseUrl = opts.publicBaseUrl ?? `http://${clientHost}:${balancer ? balancer.port : gateways[0]!.port}`;
  const adminBaseUrl = `http://${clientHost}:${gateways[0]!.adminPort}`;
  // Seeding is no client request: it keeps the default deadline when a test shortens the gateway's.
  const demoUpstreams = (): GatewayUpstreams => {
    if (!opts.upstreamDeadlineMs) return upstreamsOf[0]!;
    const seedUpstreams = createUpstreams(config, gatewayConfigSchema.parse(gatewayEnv).UPSTREAM_DEADLINE_MS);
    onStarted(async () => closeUpstreams(seedUpstreams));
    return seedUpstreams;
  };
  return {
    adminToken,
    gatewayStore,
    gateways,
    baseUrl,
    adminBaseUrl,
    demoUpstreams,
    async restart(index) {
      const old = gateways[index];
      if (!old) throw new Error(`the gateway has no replica ${index}`);
      await stopReplica(index, true);
      return startReplica(index, balancer ? 0 : old.port, old.adminPort);
    },
  };
}

/**
 * The gateway alone, in this process, over services running elsewhere (another process started
 * with `startStack`): production's layout, one process per service. In-memory gateway store; the
 * demo workspace and key are seeded into it (its listings go to the listing service at
 * `addresses`). bench/gateway-overhead.bench.ts measures the gateway path this way too.
 */
export async function startGatewayProcess(
  opts: Pick<StackOptions, 'port' | 'adminPort' | 'host' | 'logLevel' | 'adminToken' | 'apiKeyPepper' | 'publicBaseUrl' | 'upstreamDeadlineMs'> & {
    addresses: ServiceAddresses;
  },
): Promise<Pick<Stack, 'baseUrl' | 'adminBaseUrl' | 'adminToken' | 'gateway' | 'demo' | 'stop'>> {
  const undo: Array<() => Promise<void>> = [];
  const stop = async (): Promise<void> => {
    for (const step of undo.splice(0).reverse()) await step().catch(() => undefined);
  };
  try {
    const { adminToken, gateways, baseUrl, adminBaseUrl, demoUpstreams } = await startStackGateway(
      opts,
      opts.addresses,
      opts.host ?? '127.0.0.1',
      opts.logLevel ?? 'info',
      (step) => undo.push(step),
      undefined,
      null,
    );
    const gateway = gateways[0]!;
    const demo = await seedDemo({ gateway: gateway.gateway, listing: demoUpstreams().listing });
    return { baseUrl, adminBaseUrl, adminToken, gateway, demo, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function boot(
  opts: StackOptions,
  engines: StackEngines | undefined,
  { dataDir, fresh }: { dataDir: string | null; fresh: boolean },
  onStarted: (undo: () => Promise<void>) => void,
  unwind: () => Promise<void>,
): Promise<Stack<EventBus>> {
  const host = opts.host ?? '127.0.0.1';
  const logLevel = opts.logLevel ?? 'info';
  const bus = engines?.bus ?? createEmbeddedBus(dataDir ?? undefined, opts.busRetentionHours);
  onStarted(() => bus.close());
  // The PMSs of this stack: a dev/test simulator, not part of the production services.
  const simulator: PmsSimulator = await startPmsSimulator({ host, port: opts.pmsSimulatorPort ?? (opts.ephemeralPorts ? 0 : 8090) });
  onStarted(() => simulator.close());
  // The stack's composition root picks the transport of its in-process gRPC calls.
  if (opts.grpcInProcess ?? true) useInProcessCalls();
  const started = await startServices({
    onStarted,
    bus,
    ephemeralPorts: opts.ephemeralPorts ?? false,
    host,
    logLevel,
    createStore: engines ? (name: ServiceName) => engines.store(name) : async (name: ServiceName) => createEmbeddedStore(name, dataDir ?? undefined),
    pms: { baseUrl: simulator.url, syncIntervalMs: opts.pmsSyncIntervalMs ?? 0 },
    ...(opts.webhookClock ? { webhookClock: opts.webhookClock } : {}),
    ...(opts.webhookLeaseMs ? { webhookLeaseMs: opts.webhookLeaseMs } : {}),
    inProcessCalls: opts.grpcInProcess ?? true,
    replicas: opts.replicas ?? 1,
    ...(opts.grpcMaxConnectionAgeMs ? { grpcMaxConnectionAgeMs: opts.grpcMaxConnectionAgeMs } : {}),
  });
  const { running, instances, stores, addresses } = started;

  const gateways = await startStackGateway(opts, addresses, host, logLevel, onStarted, engines, dataDir);
  const { adminToken, gatewayStore, baseUrl, adminBaseUrl, demoUpstreams } = gateways;
  const gateway = gateways.gateways[0]!;

  const pmsControl = new SimulatorControl(simulator.url);
  const seedWanted = opts.seed !== false;
  const seedUpstreams = demoUpstreams();
  const demo =
    seedWanted && fresh
      ? await seedDemo({
          gateway: gateway.gateway,
          listing: seedUpstreams.listing,
          ...(opts.demoPms ? { pms: { adapter: seedUpstreams.pmsAdapter, simulator: pmsControl } } : {}),
        })
      : null;
  // The simulator stands for PMSs outside this system, which keep their data; it keeps it in
  // memory only, so a restart on existing data gives the demo account back its PMS-side data.
  if (seedWanted && !fresh && opts.demoPms) await seedDemoPmsAccount(pmsControl);

  let stopping: Promise<void> | null = null;
  return {
    baseUrl,
    adminBaseUrl,
    publicBaseUrl: gateway.gateway.publicBaseUrl(),
    adminToken,
    gateway,
    gateways: gateways.gateways,
    services: running,
    instances,
    replicas: opts.replicas ?? 1,
    restart: (name, index) => (name === 'gateway' ? gateways.restart(index) : started.restart(name, index)),
    addresses,
    stores: { ...stores, gateway: gatewayStore },
    bus,
    demo,
    dataDir,
    pmsSimulator: { url: simulator.url, control: pmsControl },
    stop() {
      // Reverse start order: the gateway first, consumers before the services they consume
      // from, each service before its store (a persisted one closes its LMDB environment), the
      // bus last.
      stopping ??= unwind();
      return stopping;
    },
  };
}
