// Configuration: env vars parsed and validated once at start with zod. A bad value stops the
// process with a message naming the variable.
import { z } from 'zod';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses `env` with `schema`; throws ConfigError naming every bad variable. */
export function parseConfig<S extends z.ZodObject>(schema: S, env: Record<string, string | undefined> = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  throw new ConfigError(result.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`));
}

/** For main.ts: parse, or print the problems and exit(1). */
export function loadConfigOrExit<S extends z.ZodObject>(schema: S, env: Record<string, string | undefined> = process.env): z.infer<S> {
  try {
    return parseConfig(schema, env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
}

/** Reusable pieces of service configs. */
export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);
/**
 * A gRPC target of a service: `host:port` or `dns:///host:port` (resolved, every address used:
 * a Kubernetes headless Service), or `ipv4:ip:port[,ip:port...]` (a fixed list of instances).
 */
export const address = () =>
  z
    .string()
    .regex(
      /^(?:(?:dns:\/\/\/)?[\w.-]+:\d{1,5}|ipv4:\d{1,3}(?:\.\d{1,3}){3}:\d{1,5}(?:,\d{1,3}(?:\.\d{1,3}){3}:\d{1,5})*)$/,
      'must be host:port, dns:///host:port or ipv4:ip:port[,ip:port...]',
    );

/**
 * Where the embedded stack keeps its data (`pnpm start`): a directory per database and one for
 * the bus. Empty: in memory only (the default here and in tests; `pnpm start` defaults to
 * ./.data). Deployed services run on MongoDB and Kafka and do not read it.
 */
export const persistenceConfig = {
  DATA_DIR: z.string().trim().default(''),
  /** Retention of the persisted embedded bus, applied at start (bus/persistence.ts). */
  BUS_RETENTION_HOURS: z.coerce.number().positive().default(168),
};

export const engineConfig = {
  STORE: z.enum(['memory', 'mongo']).default('memory'),
  BUS: z.enum(['memory', 'kafka']).default('memory'),
  MONGO_URL: z.string().url().optional(),
  /** Time limit of every store call (and of a transaction's retries), ms; below the gateway's upstream deadline (UPSTREAM_DEADLINE_MS, 3 s by default). */
  STORE_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(2000),
  KAFKA_BROKERS: z
    .string()
    .regex(/^[\w.-]+:\d+(,[\w.-]+:\d+)*$/, 'must be host:port[,host:port...]')
    .optional(),
  /** Replication factor of the topics a service creates (production default 3; one broker: 1). */
  KAFKA_REPLICATION_FACTOR: z.coerce.number().int().min(1).default(3),
  /** min.insync.replicas of the topics a service creates (production default 2; one broker: 1). */
  KAFKA_MIN_INSYNC_REPLICAS: z.coerce.number().int().min(1).default(2),
};

export function checkEngineConfig(cfg: {
  STORE: string;
  BUS: string;
  MONGO_URL?: string;
  KAFKA_BROKERS?: string;
  KAFKA_REPLICATION_FACTOR?: number;
  KAFKA_MIN_INSYNC_REPLICAS?: number;
}): void {
  const problems: string[] = [];
  if (cfg.STORE === 'mongo' && !cfg.MONGO_URL) problems.push('MONGO_URL: required when STORE=mongo');
  if (cfg.BUS === 'kafka' && !cfg.KAFKA_BROKERS) problems.push('KAFKA_BROKERS: required when BUS=kafka');
  if ((cfg.KAFKA_MIN_INSYNC_REPLICAS ?? 0) > (cfg.KAFKA_REPLICATION_FACTOR ?? Infinity)) {
    problems.push(`KAFKA_MIN_INSYNC_REPLICAS: must not exceed KAFKA_REPLICATION_FACTOR (${cfg.KAFKA_REPLICATION_FACTOR})`);
  }
  if (problems.length) throw new ConfigError(problems);
}
