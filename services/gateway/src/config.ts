// Gateway configuration, parsed once from the environment. Secrets (ADMIN_TOKEN,
// API_KEY_PEPPER) have no defaults on purpose: a gateway must never start with a guessable
// operator token or pepper. The embedded stack passes its own development values.
import { z } from 'zod';
import { address, engineConfig, port } from '@vrp/platform';

export const gatewayConfigSchema = z.object({
  GATEWAY_PORT: port(8080),
  GATEWAY_HOST: z.string().min(1).default('0.0.0.0'),
  /** Base of absolute links (error docs_url, OpenAPI servers); default http://localhost:<port>. */
  PUBLIC_BASE_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .transform((url) => url.replace(/\/+$/, ''))
    .optional(),
  /** Operator token of /admin/v1 (Bearer). */
  ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters'),
  /** Server-side secret mixed into API key hashes (HMAC-SHA256), so a leaked table is useless. */
  API_KEY_PEPPER: z.string().min(32, 'must be at least 32 characters'),
  LISTING_ADDR: address().default('127.0.0.1:50061'),
  RESERVATION_ADDR: address().default('127.0.0.1:50062'),
  GUEST_ADDR: address().default('127.0.0.1:50063'),
  PMS_ADAPTER_ADDR: address().default('127.0.0.1:50064'),
  WEBHOOK_ADDR: address().default('127.0.0.1:50065'),
  /** Deadline of every upstream gRPC call. */
  UPSTREAM_DEADLINE_MS: z.coerce.number().int().min(50).max(60_000).default(3000),
  /** How long in-flight requests may take to finish on SIGTERM. */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(120_000).default(10_000),
  GATEWAY_MONGO_DB: z.string().min(1).default('vrp_gateway'),
  STORE: engineConfig.STORE,
  MONGO_URL: engineConfig.MONGO_URL,
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;
