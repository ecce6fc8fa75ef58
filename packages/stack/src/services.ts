// Starts the five domain services of the embedded stack, each with its own in-memory store
// (its own database) and its own gRPC + ops servers, all sharing one in-memory bus. Ports are
// decided before any service starts, so every service knows every other's address (services
// call each other both ways, e.g. listing -> pms-adapter for content, pms-adapter -> listing
// for imports), exactly as they do when deployed.
import { createLogger } from '@vrp/platform/logging';
import { createMemoryStore } from '@vrp/engines/store';
import { freePort } from '@vrp/platform/net';
import type { DocumentStore } from '@vrp/platform/store';
import type { EventBus } from '@vrp/platform/bus';
import type { RunningService, ServiceAddresses, ServiceDeps } from '@vrp/platform/service';
import { startGuestService } from '@vrp/guest';
import { startListingService } from '@vrp/listing';
import { startPmsAdapterService, type PmsSettings } from '@vrp/pms-adapter';
import { startReservationService } from '@vrp/reservation';
import { startWebhookService, type WebhookClock } from '@vrp/webhook';

export const SERVICE_NAMES = ['listing', 'reservation', 'guest', 'pms-adapter', 'webhook'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** Fixed ports of `pnpm start` (the same defaults as each service's own config). */
export const DEFAULT_PORTS: Record<ServiceName, { grpc: number; ops: number }> = {
  listing: { grpc: 50061, ops: 9161 },
  reservation: { grpc: 50062, ops: 9162 },
  guest: { grpc: 50063, ops: 9163 },
  'pms-adapter': { grpc: 50064, ops: 9164 },
  webhook: { grpc: 50065, ops: 9165 },
};

/** The pms-adapter also needs to know where the PMSs are (the simulator in this stack). */
function starters(pms: PmsSettings, webhookClock?: WebhookClock, webhookLeaseMs?: number): Record<ServiceName, (deps: ServiceDeps) => Promise<RunningService>> {
  return {
    listing: startListingService,
    reservation: startReservationService,
    guest: startGuestService,
    'pms-adapter': (deps) => startPmsAdapterService({ ...deps, pms }),
    // A development stack: test-mode subscriptions may deliver to local receivers.
    webhook: (deps) =>
      startWebhookService({
        ...deps,
        allowLoopbackInTest: true,
        ...(webhookClock ? { clock: webhookClock } : {}),
        ...(webhookLeaseMs ? { scheduler: { leaseMs: webhookLeaseMs } } : {}),
      }),
  };
}

export interface StartedServices {
  /** The first instance of each service. */
  running: Record<ServiceName, RunningService>;
  /** Every instance of each service, in start order. */
  instances: Record<ServiceName, RunningService[]>;
  stores: Record<ServiceName, DocumentStore>;
  addresses: ServiceAddresses;
  /**
   * Stops one instance as Kubernetes does (SIGTERM: not ready, drain, leave its groups, hand its
   * leases over) and starts it again on the same ports with the same instance id: one step of a
   * rolling restart.
   */
  restart(name: ServiceName, index: number): Promise<RunningService>;
}

/** Port of instance `index` of a service with fixed ports: the default, then 100 apart. */
const REPLICA_PORT_STEP = 100;

/**
 * How a client reaches the instances at `ports`: one `host:port`, or every instance as an
 * `ipv4:` list that the client balances over per call (round_robin), as it balances over the pods
 * of a headless Service in production.
 */
function targetOf(host: string, ports: number[]): string {
  const ip = host === '0.0.0.0' || host === 'localhost' ? '127.0.0.1' : host;
  return ports.length === 1 ? `${ip}:${ports[0]}` : `ipv4:${ports.map((p) => `${ip}:${p}`).join(',')}`;
}

export async function startServices(opts: {
  bus: EventBus;
  ephemeralPorts: boolean;
  host: string;
  logLevel: string;
  /** Each service's own database; default: a fresh in-memory store. */
  createStore?: (name: ServiceName) => Promise<DocumentStore>;
  /** Where the pms-adapter finds the PMSs (the simulator of this stack). */
  pms: PmsSettings;
  /** Scheduling clock of webhook deliveries (tests move it to run retries without waiting). */
  webhookClock?: WebhookClock;
  /** Told how to undo each step once it is done (the stack stops them in reverse on a failed boot or on stop). */
  onStarted: (undo: () => Promise<void>) => void;
  /** Lease of a claimed webhook delivery (default 60 s): how soon one claimed by a killed process is sent again. */
  webhookLeaseMs?: number;
  /** The services answer this process's gRPC clients without the network (StackOptions.grpcInProcess). */
  inProcessCalls: boolean;
  /** Instances of every service (default 1); they share the service's store and the bus. */
  replicas?: number;
  /** Age of a gRPC client connection before a server asks it to go away (GRPC_MAX_CONNECTION_AGE_MS). */
  grpcMaxConnectionAgeMs?: number;
}): Promise<StartedServices> {
  const STARTERS = starters(opts.pms, opts.webhookClock, opts.webhookLeaseMs);
  const replicas = opts.replicas ?? 1;
  const ports = {} as Record<ServiceName, Array<{ grpc: number; ops: number }>>;
  for (const name of SERVICE_NAMES) {
    ports[name] = [];
    for (let i = 0; i < replicas; i++) {
      ports[name].push(
        opts.ephemeralPorts
          ? { grpc: await freePort(opts.host), ops: 0 }
          : { grpc: DEFAULT_PORTS[name].grpc + i * REPLICA_PORT_STEP, ops: DEFAULT_PORTS[name].ops + i * REPLICA_PORT_STEP },
      );
    }
  }
  const at = (name: ServiceName) =>
    targetOf(
      opts.host,
      ports[name].map((p) => p.grpc),
    );
  const addresses: ServiceAddresses = {
    listing: at('listing'),
    reservation: at('reservation'),
    guest: at('guest'),
    pmsAdapter: at('pms-adapter'),
    webhook: at('webhook'),
  };

  const running = {} as Record<ServiceName, RunningService>;
  const instances = {} as Record<ServiceName, RunningService[]>;
  const stores = {} as Record<ServiceName, DocumentStore>;
  const startInstance = (name: ServiceName, index: number, opsPort: number) =>
    STARTERS[name]({
      store: stores[name],
      bus: opts.bus,
      logger: createLogger(replicas > 1 ? `${name}-${index + 1}` : name, opts.logLevel),
      grpcPort: ports[name][index]!.grpc,
      opsPort,
      host: opts.host,
      addresses,
      // A list of instances is balanced by the gRPC client over the network, never in process.
      inProcessCalls: opts.inProcessCalls && replicas === 1,
      instanceId: `${name}-${index + 1}`,
      ...(opts.grpcMaxConnectionAgeMs ? { grpcMaxConnectionAgeMs: opts.grpcMaxConnectionAgeMs } : {}),
    });
  for (const name of SERVICE_NAMES) {
    if (opts.createStore) {
      const store = await opts.createStore(name);
      stores[name] = store;
      // Real engines hold connections, persisted embedded ones an LMDB environment.
      opts.onStarted(() => store.close());
    } else {
      stores[name] = createMemoryStore();
    }
    instances[name] = [];
    for (let i = 0; i < replicas; i++) {
      const service = await startInstance(name, i, ports[name][i]!.ops);
      instances[name].push(service);
      // Whatever instance runs at this index at stop time (restarted in place by a rolling
      // restart; the first one may be replaced by a test through `running`).
      opts.onStarted(() => (i === 0 ? running[name] : instances[name][i]!).stop());
    }
    running[name] = instances[name][0]!;
  }
  return {
    running,
    instances,
    stores,
    addresses,
    async restart(name, index) {
      const old = instances[name][index];
      if (!old) throw new Error(`${name} has no instance ${index}`);
      await old.stop();
      // The same ops port when it was fixed; a bound ephemeral one is taken again.
      const service = await startInstance(name, index, old.opsPort);
      instances[name][index] = service;
      if (index === 0) running[name] = service;
      return service;
    },
  };
}
