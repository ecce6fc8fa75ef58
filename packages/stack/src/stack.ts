// The embedded stack: every service in this Node process, each behind its own gRPC server,
// with in-memory engines, and the gateway in front. `pnpm start` and the e2e tests use it.
import { closeUpstreams, createUpstreams, gatewayConfigSchema, startGateway, type RunningGateway } from '@vrp/gateway';
import { createLogger, createMemoryBus, createMemoryStore, type DocumentStore, type EventBus, type MemoryEventBus, type RunningService } from '@vrp/platform';
import { startPmsSimulator, SimulatorControl, type PmsSimulator } from '@vrp/pms-simulator';
import type { WebhookClock } from '@vrp/webhook';
import { seedDemo, type DemoSeed } from './demo';
import { startServices, type ServiceName } from './services';

export interface StackOptions {
  /** Gateway port; 0 picks a free one. Default 8080. */
  port?: number;
  /** Bind every service to a free port (tests) instead of the fixed defaults. */
  ephemeralPorts?: boolean;
  host?: string;
  logLevel?: string;
  adminToken?: string;
  apiKeyPepper?: string;
  /** Create the demo workspace, key and listings. Default true. */
  seed?: boolean;
  publicBaseUrl?: string;
  /** Port of the PMS simulator; default 8090, or a free one with ephemeralPorts. */
  pmsSimulatorPort?: number;
  /** Scheduled PMS sync interval; default 0 (sync on connect and on demand only). */
  pmsSyncIntervalMs?: number;
  /** Connect the demo workspace to a simulated PMS-A account (`pnpm start`). Default false. */
  demoPms?: boolean;
  /** Scheduling clock of webhook deliveries; tests pass a ManualClock to run retries without waiting. */
  webhookClock?: WebhookClock;
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
  /** The base of the gateway's absolute links (docs_url), e.g. http://localhost:8080. */
  publicBaseUrl: string;
  adminToken: string;
  gateway: RunningGateway;
  services: Record<ServiceName, RunningService>;
  stores: Record<ServiceName | 'gateway', DocumentStore>;
  bus: B;
  demo: DemoSeed | null;
  /** The PMS simulator the pms-adapter talks to, and its control API (tests change PMS data with it). */
  pmsSimulator: { url: string; control: SimulatorControl };
  stop(): Promise<void>;
}

/** Development secrets of the embedded stack; production sets its own (see docs). */
export const DEV_ADMIN_TOKEN = 'dev-admin-token-0000000000000000';
const DEV_PEPPER = 'dev-api-key-pepper-000000000000000000000000';

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
  try {
    return await boot(opts, engines, (step) => undo.push(step), unwind);
  } catch (error) {
    await unwind().catch(() => undefined); // the boot error is the one to report
    throw error;
  }
}

async function boot(
  opts: StackOptions,
  engines: StackEngines | undefined,
  onStarted: (undo: () => Promise<void>) => void,
  unwind: () => Promise<void>,
): Promise<Stack<EventBus>> {
  const host = opts.host ?? '127.0.0.1';
  const logLevel = opts.logLevel ?? 'info';
  const bus = engines?.bus ?? createMemoryBus();
  onStarted(() => bus.close());
  // The PMSs of this stack: a dev/test simulator, not part of the production services.
  const simulator: PmsSimulator = await startPmsSimulator({ host, port: opts.pmsSimulatorPort ?? (opts.ephemeralPorts ? 0 : 8090) });
  onStarted(() => simulator.close());
  const { running, stores, addresses } = await startServices({
    onStarted,
    bus,
    ephemeralPorts: opts.ephemeralPorts ?? false,
    host,
    logLevel,
    ...(engines ? { createStore: (name: ServiceName) => engines.store(name) } : {}),
    pms: { baseUrl: simulator.url, syncIntervalMs: opts.pmsSyncIntervalMs ?? 0 },
    ...(opts.webhookClock ? { webhookClock: opts.webhookClock } : {}),
  });

  const adminToken = opts.adminToken ?? DEV_ADMIN_TOKEN;
  const config = gatewayConfigSchema.parse({
    GATEWAY_PORT: String(opts.port ?? 8080),
    GATEWAY_HOST: host,
    ADMIN_TOKEN: adminToken,
    API_KEY_PEPPER: opts.apiKeyPepper ?? DEV_PEPPER,
    LISTING_ADDR: addresses.listing,
    RESERVATION_ADDR: addresses.reservation,
    GUEST_ADDR: addresses.guest,
    PMS_ADAPTER_ADDR: addresses.pmsAdapter,
    WEBHOOK_ADDR: addresses.webhook,
    ...(opts.publicBaseUrl ? { PUBLIC_BASE_URL: opts.publicBaseUrl } : {}),
  });
  const gatewayStore = engines ? await engines.store('gateway') : createMemoryStore();
  if (engines) onStarted(() => gatewayStore.close());
  const upstreams = createUpstreams(config, config.UPSTREAM_DEADLINE_MS);
  onStarted(async () => closeUpstreams(upstreams));
  const gateway = await startGateway({ store: gatewayStore, upstreams, config, logger: createLogger('gateway', logLevel) });
  onStarted(() => gateway.close());
  const baseUrl = opts.publicBaseUrl ?? `http://${host === '0.0.0.0' ? 'localhost' : host}:${gateway.port}`;

  const pmsControl = new SimulatorControl(simulator.url);
  const demo =
    opts.seed === false
      ? null
      : await seedDemo({ gateway: gateway.gateway, listing: upstreams.listing, ...(opts.demoPms ? { pms: { adapter: upstreams.pmsAdapter, simulator: pmsControl } } : {}) });

  let stopping: Promise<void> | null = null;
  return {
    baseUrl,
    publicBaseUrl: gateway.gateway.publicBaseUrl(),
    adminToken,
    gateway,
    services: running,
    stores: { ...stores, gateway: gatewayStore },
    bus,
    demo,
    pmsSimulator: { url: simulator.url, control: pmsControl },
    stop() {
      // Reverse start order: the gateway first, consumers before the services they consume
      // from, each service before its store, the bus last.
      stopping ??= unwind();
      return stopping;
    },
  };
}
