// Starts the five domain services of the embedded stack, each with its own in-memory store
// (its own database) and its own gRPC + ops servers, all sharing one in-memory bus. Ports are
// decided before any service starts, so every service knows every other's address (services
// call each other both ways, e.g. listing -> pms-adapter for content, pms-adapter -> listing
// for imports), exactly as they do when deployed.
import {
  createLogger,
  createMemoryStore,
  freePort,
  type DocumentStore,
  type EventBus,
  type RunningService,
  type ServiceAddresses,
  type ServiceDeps,
} from '@vrp/platform';
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
  running: Record<ServiceName, RunningService>;
  stores: Record<ServiceName, DocumentStore>;
  addresses: ServiceAddresses;
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
}): Promise<StartedServices> {
  const STARTERS = starters(opts.pms, opts.webhookClock, opts.webhookLeaseMs);
  const ports = {} as Record<ServiceName, { grpc: number; ops: number }>;
  for (const name of SERVICE_NAMES) {
    ports[name] = opts.ephemeralPorts ? { grpc: await freePort(opts.host), ops: 0 } : DEFAULT_PORTS[name];
  }
  const at = (name: ServiceName) => `${opts.host}:${ports[name].grpc}`;
  const addresses: ServiceAddresses = {
    listing: at('listing'),
    reservation: at('reservation'),
    guest: at('guest'),
    pmsAdapter: at('pms-adapter'),
    webhook: at('webhook'),
  };

  const running = {} as Record<ServiceName, RunningService>;
  const stores = {} as Record<ServiceName, DocumentStore>;
  for (const name of SERVICE_NAMES) {
    if (opts.createStore) {
      const store = await opts.createStore(name);
      stores[name] = store;
      // Real engines hold connections, persisted embedded ones an LMDB environment.
      opts.onStarted(() => store.close());
    } else {
      stores[name] = createMemoryStore();
    }
    const service = await STARTERS[name]({
      store: stores[name],
      bus: opts.bus,
      logger: createLogger(name, opts.logLevel),
      grpcPort: ports[name].grpc,
      opsPort: ports[name].ops,
      host: opts.host,
      addresses,
      inProcessCalls: opts.inProcessCalls,
    });
    running[name] = service;
    // Whatever instance runs under this name at stop time (a test may restart a service in place).
    opts.onStarted(() => running[name]!.stop());
  }
  return { running, stores, addresses };
}
