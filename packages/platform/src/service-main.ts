// What every service's main.ts does, once: parse and check its config, open its engines, start
// it with the addresses of the services it calls, and stop it on SIGTERM within a bound.
import { z } from 'zod';
import { createBus } from './bus';
import type { EventBus } from './bus/port';
import { address, checkEngineConfig, engineConfig, exitOnHelp, loadConfigOrExit, persistenceConfig, port } from './config';
import { consumerRetryConfig, consumerRetryFrom, type RetryPolicy } from './consumer/runner';
import { createLogger, LOG_LEVELS, type Logger } from './logging';
import { outboxConfig, outboxOptionsFrom, type OutboxOptions } from './outbox';
import { runMain, stopOnSignals, type RunningService } from './service';
import { createStore } from './store';
import type { DocumentStore } from './store/port';

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
   * Also answer gRPC clients of this same process without the network (grpc/in-process.ts): the
   * embedded stack, where the gateway and every service share one process. Default false.
   */
  inProcessCalls?: boolean;
}

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
  };
}

export function serviceMain<E extends z.ZodObject>(opts: {
  definition: ServiceDefinition<E>;
  start: (deps: ServiceDeps, settings: z.infer<E>) => Promise<RunningService>;
}): void {
  const def = opts.definition;
  exitOnHelp(`node dist/main.js   (the ${def.name} service)`, serviceSchema(def));
  runMain(async () => {
    const config = parseServiceConfig(def.prefix, def.defaults);
    const settings = (def.extra ? loadConfigOrExit(def.extra) : {}) as z.infer<E>;
    const logger = createLogger(def.name);
    const store = await createStore({
      STORE: config.engines.STORE,
      MONGO_URL: config.engines.MONGO_URL,
      dbName: config.dbName,
      timeoutMs: config.engines.STORE_TIMEOUT_MS,
      DATA_DIR: config.engines.DATA_DIR,
    });
    const bus = createBus({ ...config.engines, clientId: def.name, logger });
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
      },
      settings,
    );
    stopOnSignals(async () => {
      await running.stop();
      await bus.close();
      await store.close();
    }, logger);
  });
}

/** The default addresses (every service on localhost at its default port). */
export const DEFAULT_ADDRESSES: ServiceAddresses = addressesFrom(z.object(addressConfig).parse({}));

function pick<T extends object, K extends keyof T>(source: T, keys: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const key of keys) out[key] = source[key];
  return out;
}
