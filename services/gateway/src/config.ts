// Gateway configuration, parsed once from the environment (`--help` prints it). Secrets
// (ADMIN_TOKEN, API_KEY_PEPPER, MONGO_URL; each also as <NAME>_FILE) have no defaults on purpose:
// a gateway must never start with a guessable operator token or pepper. The embedded stack
// passes its own development values.
import { z } from 'zod';
import { addressConfig } from '@vrp/platform/service';
import { engineConfig, persistenceConfig, port, secret } from '@vrp/platform/config';
import { LOG_LEVELS } from '@vrp/platform/logging';

export const gatewayConfigSchema = z.object({
  GATEWAY_PORT: port(8080).describe('port of the public listener: /v1, /docs, /healthz, /readyz'),
  /** The private listener: /admin/v1 and /metrics (plus /healthz, /readyz), never routed by a public Ingress. */
  GATEWAY_ADMIN_PORT: port(9160).describe('port of the private listener: /admin/v1, /metrics, /healthz, /readyz'),
  GATEWAY_HOST: z.string().min(1).default('0.0.0.0').describe('address both listeners bind'),
  /** Base of absolute links (error docs_url, OpenAPI servers); default http://localhost:<port>. */
  PUBLIC_BASE_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .transform((url) => url.replace(/\/+$/, ''))
    .optional()
    .describe('base of absolute links (docs_url, OpenAPI servers): the public URL; default http://localhost:<port>'),
  /** Operator token of /admin/v1 (Bearer). */
  ADMIN_TOKEN: secret(z.string().min(16, 'must be at least 16 characters'), 'operator token of /admin/v1 (Bearer)'),
  /** Server-side secret mixed into API key hashes (HMAC-SHA256), so a leaked table is useless. */
  API_KEY_PEPPER: secret(z.string().min(32, 'must be at least 32 characters'), 'server-side secret mixed into API key hashes; never change it once keys exist'),
  ...addressConfig,
  /** Deadline of every upstream gRPC call. */
  UPSTREAM_DEADLINE_MS: z.coerce.number().int().min(50).max(60_000).default(3000).describe('deadline of every upstream gRPC call, ms'),
  /** How long in-flight requests may take to finish on SIGTERM. */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(120_000).default(10_000).describe('how long in-flight requests may take to finish on SIGTERM, ms'),
  /** Admin API requests per second of one client address (bursts of ten times that per 10 s). */
  ADMIN_RATE_LIMIT_PER_SECOND: z.coerce.number().int().min(1).max(100_000).default(20).describe('admin API requests per second of one client address'),
  /** Failed authentications (API key or admin token) of one client address per minute before it gets 429. */
  AUTH_FAILURES_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(30)
    .describe('failed authentications of one client address per minute before 429'),
  /**
   * How long a verified API key is reused without reading the store (0 = never). Revoking a key
   * evicts it from every gateway over the same store object at once; another replica process
   * stops accepting it within this time.
   */
  API_KEY_CACHE_TTL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(60_000)
    .default(1000)
    .describe('how long a verified API key is reused without reading the store, ms'),
  /** Time limit of one rate-limiter call to the store; past it the replica counts in memory. */
  RATE_LIMIT_STORE_TIMEOUT_MS: z.coerce.number().int().min(5).max(10_000).default(250).describe('time limit of one rate-limiter call to the store, ms'),
  /**
   * Proxies in front of the gateway whose X-Forwarded-For is trusted to name the client address
   * (per-address limits): 0 behind none, 1 behind one Ingress or load balancer.
   */
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0).describe('proxies in front whose X-Forwarded-For names the client (1 behind an Ingress)'),
  GATEWAY_MONGO_DB: z.string().min(1).default('vrp_gateway').describe('database of the gateway'),
  STORE: engineConfig.STORE,
  MONGO_URL: engineConfig.MONGO_URL,
  STORE_TIMEOUT_MS: engineConfig.STORE_TIMEOUT_MS,
  NODE_ENV: engineConfig.NODE_ENV,
  ALLOW_EMBEDDED_ENGINES: engineConfig.ALLOW_EMBEDDED_ENGINES,
  DATA_DIR: persistenceConfig.DATA_DIR,
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info').describe('pino log level'),
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;
