// What every service's main.ts does, once: parse and check its config, open its engines (with
// the implementation main.ts passes), start it with the addresses of the services it calls, and
// stop it on SIGTERM within a bound.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { z } from 'zod';
import type { EventBus } from '../bus/port';
import { address, checkEngineConfig, engineConfig, exitOnHelp, loadConfigOrExit, persistenceConfig, port, type BusConfig, type StoreConfig } from '../config';
import { consumerRetryConfig, consumerRetryFrom, type RetryPolicy } from '../consumer/runner';
import { createLogger, LOG_LEVELS, type Logger } from '../logging';
import { outboxConfig, outboxOptionsFrom, type OutboxOptions } from '../outbox';
import { instanceConfig } from '../grpc/server';
import type { DocumentStore } from '../store/port';
import { runMain, stopOnSignals, type RunningService } from './run';

/** gRPC addresses of the services (host:port); the same env vars in every process. */
export const addressConfig = {
  LISTING_ADDR: address().default('127.0.0.1:50061').describe('gRPC address of the listing service'),
  RESERVATION_ADDR: address().default('127.0.0.1:50062').describe('gRPC address of the reservation service'),
  GUEST_ADDR: address().default('127.0.0.1:50063').describe('gRPC address of the guest service'),
  PMS_ADAPTER_ADDR: address().default('127.0.0.1:50064').describe('gRPC address of the pms-adapter'),
  WEBHOOK_ADDR: address().default('127.0.0.1:50065').describe('gRPC address of the webhook service'),
};

export interface ServiceAddresses {
  listing: string;
  reservation: string;
  guest: string;
  pmsAdapter: string;
  webhook: string;
}

export function addressesFrom(c: { [K in keyof typeof addressConfig]: string }): ServiceAddresses {
  return { listing: c.LISTING_ADDR, reservation: c.RESERVATION_ADDR, guest: c.GUEST_ADDR, pmsAdapter: c.PMS_ADAPTER_ADDR, webhook: c.WEBHOOK_ADDR };
}

/** What every service's start function receives. */
export interface ServiceDeps {
  /** The service's database. Its collections are registered while the service is built; startService awaits store.init(). */
  store: DocumentStore;
  bus: EventBus;
  logger: Logger;
  grpcPort: number;
  opsPort: number;
  host?: string;
  addresses: ServiceAddresses;
  /** Outbox relay settings (retention, lease); defaults when absent. */
  outbox?: Partial<OutboxOptions>;
  /** Retry budget of the consumer runner (CONSUMER_RETRY_ATTEMPTS, CONSUMER_RETRY_MAX_MS). */
  consumerRetry?: Partial<RetryPolicy>;
  /**
   * Also answer gRPC clients of this same process without the network: the
   * embedded stack, where the gateway and every service share one process; needs a local
   * transport installed (grpc/local-calls.ts). Default false.
   */
  inProcessCalls?: boolean;
  /**
   * This instance among the replicas of the service (the host's name: a pod's name): names the
   * consumer groups that must see every message (perInstanceGroup). Default: a random id.
   */
  instanceId?: string;
  /** How long a client connection to this instance's gRPC server lives (GRPC_MAX_CONNECTION_AGE_MS). */
  grpcMaxConnectionAgeMs?: number;
}

/**
 * The consumer group of a consumer that feeds a per-instance cache or decision (listing
 * activity): one group per instance, so every instance sees every message. A consumer that does
 * work (apply a change, send a webhook) keeps the service's one group instead and shares its
 * partitions with the other instances, so each piece of work is done once.
 */
export function perInstanceGroup(groupId: string, deps: Pick<ServiceDeps, 'instanceId'>): string {
  return `${groupId}.${deps.instanceId ?? RANDOM_INSTANCE}`;
}

/** The instance id of a process that was given none. */
const RANDOM_INSTANCE = `i${randomBytes(6).toString('hex')}`;

/**
 * The config every service reads: `<PREFIX>_GRPC_PORT`, `<PREFIX>_OPS_PORT`, `<PREFIX>_MONGO_DB`,
 * the engine selection and the addresses of the other services.
 */
export function serviceConfigSchema(prefix: string, defaults: { grpc: number; ops: number; db: string }) {
  return z.object({
    [`${prefix}_GRPC_PORT`]: port(defaults.grpc).describe('gRPC port'),
    [`${prefix}_OPS_PORT`]: port(defaults.ops).describe('ops port: /healthz, /readyz, /metrics'),
    [`${prefix}_MONGO_DB`]: z.string().min(1).default(defaults.db).describe('database of this service'),
    ...engineConfig,
    ...persistenceConfig,
    LOG_LEVEL: z.enum(LOG_LEVELS).default('info').describe('pino log level'),
    ...addressConfig,
    ...outboxConfig,
    ...consumerRetryConfig,
    ...instanceConfig,
  });
}

/** What a service's config.ts declares: its name, env prefix, default ports and database, its own settings. */
export interface ServiceDefinition<E extends z.ZodObject = z.ZodObject> {
  name: string;
  /** Env var prefix of the service's own settings, e.g. LISTING. */
  prefix: string;
  defaults: { grpc: number; ops: number; db: string };
  /** Settings of this service beyond those every service reads. */
  extra?: E;
}

/** Every variable a service reads: the common ones and its own (`--help`, docs/configuration.md). */
export function serviceSchema(def: ServiceDefinition): z.ZodObject {
  const common = serviceConfigSchema(def.prefix, def.defaults);
  return def.extra ? common.extend(def.extra.shape) : common;
}

export interface ServiceConfig {
  grpcPort: number;
  opsPort: number;
  dbName: string;
  engines: Pick<
    z.infer<z.ZodObject<typeof engineConfig>>,
    'STORE' | 'BUS' | 'MONGO_URL' | 'KAFKA_BROKERS' | 'KAFKA_REPLICATION_FACTOR' | 'KAFKA_MIN_INSYNC_REPLICAS' | 'STORE_TIMEOUT_MS'
  > &
    z.infer<z.ZodObject<typeof persistenceConfig>>;
  addresses: ServiceAddresses;
  outbox: Partial<OutboxOptions>;
  consumerRetry: Partial<RetryPolicy>;
  instanceId: string | undefined;
  grpcMaxConnectionAgeMs: number;
}

export function parseServiceConfig(
  prefix: string,
  defaults: { grpc: number; ops: number; db: string },
  env: Record<string, string | undefined> = process.env,
): ServiceConfig {
  const parsed: Record<string, unknown> = loadConfigOrExit(serviceConfigSchema(prefix, defaults), env);
  const common = z.object({ ...engineConfig, ...persistenceConfig, ...addressConfig }).parse(parsed);
  checkEngineConfig(common);
  return {
    grpcPort: parsed[`${prefix}_GRPC_PORT`] as number,
    opsPort: parsed[`${prefix}_OPS_PORT`] as number,
    dbName: parsed[`${prefix}_MONGO_DB`] as string,
    engines: pick(common, [
      'STORE',
      'BUS',
      'MONGO_URL',
      'KAFKA_BROKERS',
      'KAFKA_REPLICATION_FACTOR',
      'KAFKA_MIN_INSYNC_REPLICAS',
      'STORE_TIMEOUT_MS',
      'DATA_DIR',
      'BUS_RETENTION_HOURS',
    ]),
    addresses: addressesFrom(common),
    outbox: outboxOptionsFrom(z.object(outboxConfig).parse(parsed)),
    consumerRetry: consumerRetryFrom(z.object(consumerRetryConfig).parse(parsed)),
    instanceId: hostInstance(),
    grpcMaxConnectionAgeMs: parsed.GRPC_MAX_CONNECTION_AGE_MS as number,
  };
}

/**
 * Opens the store and the bus a service's configuration selects. The platform holds the ports
 * only: a service's main.ts passes the engines' implementation (`openEngines` of @vrp/engines).
 */
export type OpenEngines = (config: { store: StoreConfig; bus: BusConfig }) => Promise<{ store: DocumentStore; bus: EventBus }>;

export function serviceMain<E extends z.ZodObject>(opts: {
  definition: ServiceDefinition<E>;
  engines: OpenEngines;
  start: (deps: ServiceDeps, settings: z.infer<E>) => Promise<RunningService>;
}): void {
  const def = opts.definition;
  exitOnHelp(`node dist/main.js   (the ${def.name} service)`, serviceSchema(def));
  runMain(async () => {
    const config = parseServiceConfig(def.prefix, def.defaults);
    const settings = (def.extra ? loadConfigOrExit(def.extra) : {}) as z.infer<E>;
    const logger = createLogger(def.name);
    const { store, bus } = await opts.engines({
      store: {
        STORE: config.engines.STORE,
        MONGO_URL: config.engines.MONGO_URL,
        dbName: config.dbName,
        timeoutMs: config.engines.STORE_TIMEOUT_MS,
        DATA_DIR: config.engines.DATA_DIR,
      },
      bus: { ...config.engines, clientId: def.name, logger },
    });
    const stuck = setTimeout(() => {
      logger.fatal(`${def.name}: did not start within ${START_TIMEOUT_MS / 1000} s (engines, consumer groups or ports); exiting`);
      process.exit(1);
    }, START_TIMEOUT_MS);
    stuck.unref();
    const running = await opts.start(
      {
        store,
        bus,
        logger,
        grpcPort: config.grpcPort,
        opsPort: config.opsPort,
        addresses: config.addresses,
        outbox: config.outbox,
        consumerRetry: config.consumerRetry,
        ...(config.instanceId ? { instanceId: config.instanceId } : {}),
        grpcMaxConnectionAgeMs: config.grpcMaxConnectionAgeMs,
      },
      settings,
    );
    clearTimeout(stuck);
    const stop = async () => {
      watch.cancel();
      await running.stop();
      await bus.close();
      await store.close();
    };
    stopOnSignals(stop, logger);
    const watch = exitWhenAConsumerStops({ name: def.name, running, logger, stop, exit: (code) => process.exit(code) });
  });
}

/**
 * A consumer that stopped for any reason but a shutdown (crashed for good, left its group)
 * leaves the instance unable to do its work: say why and exit non-zero, so the orchestrator
 * restarts it, instead of serving on without it. Checked every `intervalMs`.
 */
export function exitWhenAConsumerStops(opts: {
  name: string;
  running: Pick<RunningService, 'stoppedConsumers'>;
  logger: Logger;
  stop: () => Promise<void>;
  exit: (code: number) => void;
  intervalMs?: number;
}): { cancel(): void } {
  const watchdog = setInterval(() => {
    const stopped = opts.running.stoppedConsumers();
    if (stopped.length === 0) return;
    clearInterval(watchdog);
    opts.logger.fatal({ consumers: stopped }, `${opts.name}: a consumer stopped (${stopped.map((c) => `${c.groupId}: ${c.reason}`).join('; ')}); exiting`);
    setTimeout(() => opts.exit(1), STOP_AFTER_FAILURE_MS).unref();
    void opts.stop().finally(() => opts.exit(1));
  }, opts.intervalMs ?? CONSUMER_WATCH_INTERVAL_MS);
  watchdog.unref();
  return { cancel: () => clearInterval(watchdog) };
}

/** How often a deployed service checks that its consumers still run. */
const CONSUMER_WATCH_INTERVAL_MS = 1000;
/** How long an instance whose consumer failed may take to stop before it exits anyway. */
const STOP_AFTER_FAILURE_MS = 10_000;
/** A start (engines, consumers joined, servers bound) that takes longer is stuck: say so and exit. */
const START_TIMEOUT_MS = 60_000;

/**
 * The host's name as this instance's id: a Kubernetes pod's name, a container's id; undefined
 * (a random id) when it is not usable as a group name.
 */
function hostInstance(): string | undefined {
  const name = hostname();
  return /^[\w.-]{1,100}$/.test(name) ? name : undefined;
}

/** The default addresses (every service on localhost at its default port). */
export const DEFAULT_ADDRESSES: ServiceAddresses = addressesFrom(z.object(addressConfig).parse({}));

function pick<T extends object, K extends keyof T>(source: T, keys: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const key of keys) out[key] = source[key];
  return out;
}
