// What every service's main.ts does, once: parse and check its config, open its engines, start
// it with the addresses of the services it calls, and stop it on SIGTERM within a bound.
import { z } from 'zod';
import { createBus } from './bus';
import type { EventBus } from './bus/port';
import { address, checkEngineConfig, engineConfig, loadConfigOrExit, port } from './config';
import { createLogger, type Logger } from './logging';
import { runMain, stopOnSignals, type RunningService } from './service';
import { createStore } from './store';
import type { DocumentStore } from './store/port';

/** gRPC addresses of the services (host:port); the same env vars in every process. */
export const addressConfig = {
  LISTING_ADDR: address().default('127.0.0.1:50061'),
  RESERVATION_ADDR: address().default('127.0.0.1:50062'),
  GUEST_ADDR: address().default('127.0.0.1:50063'),
  PMS_ADAPTER_ADDR: address().default('127.0.0.1:50064'),
  WEBHOOK_ADDR: address().default('127.0.0.1:50065'),
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
  store: DocumentStore;
  bus: EventBus;
  logger: Logger;
  grpcPort: number;
  opsPort: number;
  host?: string;
  addresses: ServiceAddresses;
}

/**
 * The config every service reads: `<PREFIX>_GRPC_PORT`, `<PREFIX>_OPS_PORT`, `<PREFIX>_MONGO_DB`,
 * the engine selection and the addresses of the other services.
 */
export function serviceConfigSchema(prefix: string, defaults: { grpc: number; ops: number; db: string }) {
  return z.object({
    [`${prefix}_GRPC_PORT`]: port(defaults.grpc),
    [`${prefix}_OPS_PORT`]: port(defaults.ops),
    [`${prefix}_MONGO_DB`]: z.string().min(1).default(defaults.db),
    ...engineConfig,
    ...addressConfig,
  });
}

export interface ServiceConfig {
  grpcPort: number;
  opsPort: number;
  dbName: string;
  engines: { STORE: 'memory' | 'mongo'; BUS: 'memory' | 'kafka'; MONGO_URL?: string; KAFKA_BROKERS?: string };
  addresses: ServiceAddresses;
}

export function parseServiceConfig(prefix: string, defaults: { grpc: number; ops: number; db: string }, env: Record<string, string | undefined> = process.env): ServiceConfig {
  const parsed: Record<string, unknown> = loadConfigOrExit(serviceConfigSchema(prefix, defaults), env);
  const common = z.object({ ...engineConfig, ...addressConfig }).parse(parsed);
  checkEngineConfig(common);
  return {
    grpcPort: parsed[`${prefix}_GRPC_PORT`] as number,
    opsPort: parsed[`${prefix}_OPS_PORT`] as number,
    dbName: parsed[`${prefix}_MONGO_DB`] as string,
    engines: { STORE: common.STORE, BUS: common.BUS, MONGO_URL: common.MONGO_URL, KAFKA_BROKERS: common.KAFKA_BROKERS },
    addresses: addressesFrom(common),
  };
}

export function serviceMain(opts: {
  name: string;
  /** Env var prefix of the service's own settings, e.g. LISTING. */
  prefix: string;
  defaults: { grpc: number; ops: number; db: string };
  start: (deps: ServiceDeps) => Promise<RunningService>;
}): void {
  runMain(async () => {
    const config = parseServiceConfig(opts.prefix, opts.defaults);
    const logger = createLogger(opts.name);
    const store = await createStore({ STORE: config.engines.STORE, MONGO_URL: config.engines.MONGO_URL, dbName: config.dbName });
    const bus = createBus({ BUS: config.engines.BUS, KAFKA_BROKERS: config.engines.KAFKA_BROKERS, clientId: opts.name });
    const running = await opts.start({ store, bus, logger, grpcPort: config.grpcPort, opsPort: config.opsPort, addresses: config.addresses });
    stopOnSignals(async () => {
      await running.stop();
      await bus.close();
      await store.close();
    }, logger);
  });
}

/** The default addresses (every service on localhost at its default port). */
export const DEFAULT_ADDRESSES: ServiceAddresses = addressesFrom(z.object(addressConfig).parse({}));
