// Configuration: env vars parsed and validated once at start with zod. A bad value stops the
// process with a message naming the variable. The same schema answers `--help` and generates
// docs/configuration.md (describeConfig), and reads every secret from `<NAME>_FILE` as well.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { Logger } from './logging';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/**
 * Marks a variable as a secret: `--help` and the docs say so, and it is also read from the file
 * named by `<NAME>_FILE` (the Docker and Kubernetes convention: a mounted Secret, compose
 * `secrets:`), which keeps it out of the process environment and off command lines.
 * Wrap the whole field, defaults and `.optional()` included.
 */
export function secret<T extends z.ZodType>(schema: T, description?: string): T {
  return schema.meta({ secret: true, ...(description ? { description } : {}) });
}

function isSecret(field: z.ZodType): boolean {
  return field.meta()?.secret === true;
}

/**
 * `env` with each secret of `schema` given as `<NAME>_FILE` replaced by the file's content (one
 * trailing newline dropped). A secret given both ways, or an unreadable file, is a problem.
 */
function readSecretFiles(schema: z.ZodObject, env: Env): { env: Env; problems: string[] } {
  const out: Env = { ...env };
  const problems: string[] = [];
  for (const [name, field] of Object.entries(schema.shape)) {
    const file = env[`${name}_FILE`];
    if (file === undefined || file === '' || !isSecret(field as z.ZodType)) continue;
    if (env[name] !== undefined) {
      problems.push(`${name} and ${name}_FILE: both are set; give the secret one way only (unset ${name} to read it from ${file})`);
      continue;
    }
    try {
      out[name] = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    } catch (err) {
      problems.push(`${name}_FILE: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)}); mount the secret there or fix the path`);
    }
  }
  return { env: out, problems };
}

/** Parses `env` with `schema` (secrets also from `<NAME>_FILE`); throws ConfigError naming every bad variable. */
export function parseConfig<S extends z.ZodObject>(schema: S, env: Env = process.env): z.infer<S> {
  const files = readSecretFiles(schema, env);
  const result = schema.safeParse(files.env);
  const problems = [...files.problems];
  if (!result.success) problems.push(...result.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`));
  if (problems.length) throw new ConfigError(problems);
  return result.data as z.infer<S>;
}

/** For main.ts: parse, or print the problems and exit(1). */
export function loadConfigOrExit<S extends z.ZodObject>(schema: S, env: Env = process.env): z.infer<S> {
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

/** One variable of a schema as `--help` and docs/configuration.md show it. */
export interface ConfigVariable {
  name: string;
  /** integer 0..65535, one of: memory | mongo, URL, host:port ... */
  type: string;
  /** The default as the variable would be written; undefined when there is none. */
  defaultValue: string | undefined;
  required: boolean;
  secret: boolean;
  description: string;
}

function typeOf(json: Record<string, unknown>): string {
  if (Array.isArray(json.enum)) return `one of: ${(json.enum as unknown[]).join(' | ')}`;
  const base = json.type === 'integer' ? 'integer' : json.type === 'number' ? 'number' : json.format === 'uri' ? 'URL' : String(json.type ?? 'string');
  const min = json.minimum ?? (json.exclusiveMinimum !== undefined ? `>${String(json.exclusiveMinimum)}` : undefined);
  const max = json.maximum;
  if (base === 'integer' || base === 'number') {
    if (min !== undefined && max !== undefined) return `${base} ${String(min)}..${String(max)}`;
    if (min !== undefined) return `${base} >= ${String(min)}`.replace('>= >', '> ');
    return base;
  }
  if (json.pattern === ADDRESS_PATTERN.source) return '[dns:///]host:port or ipv4:ip:port,ip:port';
  if (json.minLength === 1) return `non-empty ${base}`;
  if (typeof json.minLength === 'number') return `${base}, at least ${json.minLength} characters`;
  return base;
}

/** Every variable of `schema`: its type, default, whether required and secret, from the schema itself. */
export function describeConfig(schema: z.ZodObject): ConfigVariable[] {
  return Object.entries(schema.shape).map(([name, value]) => {
    const field = value as z.ZodType;
    const json = z.toJSONSchema(field, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    const unset = field.safeParse(undefined);
    const defaultValue = json.default !== undefined ? String(json.default as string | number) : undefined;
    return {
      name,
      type: typeOf(json),
      defaultValue,
      required: !unset.success,
      secret: isSecret(field),
      description: typeof json.description === 'string' ? json.description : '',
    };
  });
}

/** The text of `<program> --help`: every variable it reads. */
export function renderConfigHelp(program: string, schema: z.ZodObject): string {
  const vars = describeConfig(schema);
  const width = Math.max(...vars.map((v) => v.name.length));
  const lines = vars.map((v) => {
    const flags = [
      v.required ? 'required' : `default ${v.defaultValue === undefined ? '(unset)' : JSON.stringify(v.defaultValue)}`,
      ...(v.secret ? [`secret, or ${v.name}_FILE`] : []),
    ];
    return `  ${v.name.padEnd(width)}  ${v.type}; ${flags.join('; ')}${v.description ? `\n  ${' '.repeat(width)}  ${v.description}` : ''}`;
  });
  return `Usage: ${program}\nConfigured by environment variables only (no flags besides --help):\n\n${lines.join('\n')}\n\nA secret can be given as <NAME>_FILE, the path of a file holding it (not both).\n`;
}

/** The Markdown table of `schema`'s variables (docs/configuration.md). */
export function renderConfigMarkdown(schema: z.ZodObject): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const rows = describeConfig(schema).map(
    (v) =>
      `| \`${v.name}\` | ${cell(v.type)} | ${v.defaultValue === undefined ? '' : `\`${cell(v.defaultValue)}\``} | ${v.required ? 'yes' : ''} | ${v.secret ? `yes (or \`${v.name}_FILE\`)` : ''} | ${cell(v.description)} |`,
  );
  return ['| variable | type | default | required | secret | description |', '|---|---|---|---|---|---|', ...rows].join('\n');
}

/** For main.ts: with `--help` (or `-h`), print the configuration and exit 0. */
export function exitOnHelp(program: string, schema: z.ZodObject, argv: readonly string[] = process.argv.slice(2)): void {
  if (!argv.includes('--help') && !argv.includes('-h')) return;
  process.stdout.write(renderConfigHelp(program, schema));
  process.exit(0);
}

/** Reusable pieces of service configs. */
export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);
/**
 * A gRPC target of a service: `host:port` or `dns:///host:port` (resolved, every address used:
 * a Kubernetes headless Service), or `ipv4:ip:port[,ip:port...]` (a fixed list of instances).
 */
const ADDRESS_PATTERN = /^(?:(?:dns:\/\/\/)?[\w.-]+:\d{1,5}|ipv4:\d{1,3}(?:\.\d{1,3}){3}:\d{1,5}(?:,\d{1,3}(?:\.\d{1,3}){3}:\d{1,5})*)$/;
export const address = () => z.string().regex(ADDRESS_PATTERN, 'must be host:port, dns:///host:port or ipv4:ip:port[,ip:port...]');

/**
 * Where the embedded engines keep their data: a directory per database and one for the bus.
 * Empty: in memory only (the default of a service and of tests; `pnpm start` defaults to
 * ./.data). Deployed services run on MongoDB and Kafka and leave it empty.
 */
export const persistenceConfig = {
  DATA_DIR: z.string().trim().default('').describe('STORE=memory / BUS=memory: keep their data in this directory; empty = in memory only'),
  /** Retention of the persisted embedded bus, applied at start (@vrp/engines, bus/persistence.ts). */
  BUS_RETENTION_HOURS: z.coerce.number().positive().default(168).describe('retention of the persisted embedded bus, hours'),
};

export const engineConfig = {
  STORE: z.enum(['memory', 'mongo']).default('memory').describe('document store engine; production: mongo'),
  BUS: z.enum(['memory', 'kafka']).default('memory').describe('event bus engine; production: kafka'),
  MONGO_URL: secret(z.string().url().optional(), 'MongoDB connection string (replica set); required with STORE=mongo'),
  /** Time limit of every store call (and of a transaction's retries), ms; below the gateway's upstream deadline (UPSTREAM_DEADLINE_MS, 3 s by default). */
  STORE_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(2000).describe('time limit of every store call, ms'),
  KAFKA_BROKERS: z
    .string()
    .regex(/^[\w.-]+:\d+(,[\w.-]+:\d+)*$/, 'must be host:port[,host:port...]')
    .optional()
    .describe('Kafka bootstrap list host:port[,host:port...]; required with BUS=kafka'),
  /** Replication factor of the topics a service creates (production default 3; one broker: 1). */
  KAFKA_REPLICATION_FACTOR: z.coerce.number().int().min(1).default(3).describe('replication factor of the topics a service creates'),
  /** min.insync.replicas of the topics a service creates (production default 2; one broker: 1). */
  KAFKA_MIN_INSYNC_REPLICAS: z.coerce.number().int().min(1).default(2).describe('min.insync.replicas of the topics a service creates'),
  NODE_ENV: z.string().default('').describe('production: the memory engines are refused unless ALLOW_EMBEDDED_ENGINES=true'),
  ALLOW_EMBEDDED_ENGINES: z
    .enum(['true', 'false'])
    .default('false')
    .describe('with NODE_ENV=production: allow STORE=memory / BUS=memory (the single-node deployment; needs DATA_DIR)'),
};

/** What selects and opens a service's document store (the engines: @vrp/engines/store). */
export interface StoreConfig {
  STORE: 'memory' | 'mongo';
  MONGO_URL?: string;
  dbName: string;
  /** STORE_TIMEOUT_MS: time limit of every store call. */
  timeoutMs?: number;
  /** STORE=memory: keep the data in `<DATA_DIR>/<dbName>`; empty or absent: in memory only. */
  DATA_DIR?: string;
}

/** What selects and opens a service's event bus (the engines: @vrp/engines/bus). */
export interface BusConfig {
  BUS: 'memory' | 'kafka';
  /** Comma-separated host:port list; required when BUS is 'kafka'. */
  KAFKA_BROKERS?: string;
  /** Replication factor and min.insync.replicas of created topics; default 3 and 2. */
  KAFKA_REPLICATION_FACTOR?: number;
  KAFKA_MIN_INSYNC_REPLICAS?: number;
  clientId: string;
  /** Logger of kafkajs's own lines (the service's logger). */
  logger?: Logger;
  /** BUS=memory: keep topics and offsets in `<DATA_DIR>/bus`; empty or absent: in memory only. */
  DATA_DIR?: string;
  /** Retention of the persisted embedded bus. Default 168 h. */
  BUS_RETENTION_HOURS?: number;
}

/**
 * The engine rules a schema cannot express alone: each real engine's address, the topic
 * settings, and no embedded engine in production unless the operator asked for it with a data
 * directory (a memory-only production deployment loses every write at its next restart).
 * `BUS` is absent for a process without a bus (the gateway).
 */
export function checkEngineConfig(cfg: {
  STORE: string;
  BUS?: string;
  MONGO_URL?: string;
  KAFKA_BROKERS?: string;
  KAFKA_REPLICATION_FACTOR?: number;
  KAFKA_MIN_INSYNC_REPLICAS?: number;
  NODE_ENV?: string;
  ALLOW_EMBEDDED_ENGINES?: string;
  DATA_DIR?: string;
}): void {
  const problems: string[] = [];
  if (cfg.STORE === 'mongo' && !cfg.MONGO_URL) problems.push('MONGO_URL: required when STORE=mongo (or MONGO_URL_FILE)');
  if (cfg.BUS === 'kafka' && !cfg.KAFKA_BROKERS) problems.push('KAFKA_BROKERS: required when BUS=kafka');
  if ((cfg.KAFKA_MIN_INSYNC_REPLICAS ?? 0) > (cfg.KAFKA_REPLICATION_FACTOR ?? Infinity)) {
    problems.push(`KAFKA_MIN_INSYNC_REPLICAS: must not exceed KAFKA_REPLICATION_FACTOR (${cfg.KAFKA_REPLICATION_FACTOR})`);
  }
  const embedded = [cfg.STORE === 'memory' ? 'STORE=memory' : null, cfg.BUS === 'memory' ? 'BUS=memory' : null].filter((e) => e !== null);
  if (cfg.NODE_ENV === 'production' && embedded.length) {
    if (cfg.ALLOW_EMBEDDED_ENGINES !== 'true') {
      problems.push(
        `${embedded.join(', ')}: refused with NODE_ENV=production (the data would not survive a restart). Set ${[
          cfg.STORE === 'memory' ? 'STORE=mongo and MONGO_URL' : null,
          cfg.BUS === 'memory' ? 'BUS=kafka and KAFKA_BROKERS' : null,
        ]
          .filter(Boolean)
          .join(', ')}; or, for the single-node deployment on the embedded engines, ALLOW_EMBEDDED_ENGINES=true and DATA_DIR`,
      );
    } else if (!cfg.DATA_DIR) {
      problems.push(`DATA_DIR: required with ALLOW_EMBEDDED_ENGINES=true and NODE_ENV=production (${embedded.join(', ')} keep their data there)`);
    }
  }
  if (problems.length) throw new ConfigError(problems);
}
