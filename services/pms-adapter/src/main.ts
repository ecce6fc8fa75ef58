// The pms-adapter service as its own process (docker-compose, Kubernetes).
import { z } from 'zod';
import { loadConfigOrExit, serviceMain } from '@vrp/platform';
import { startPmsAdapterService } from './app';

// Settings of this service beyond the common ones (ports, engines, addresses).
const pmsConfigSchema = z.object({
  /** Base URL of the PMS APIs: each PMS answers under /<pms-a..pms-g>/v1 (the simulator's layout). */
  PMS_BASE_URL: z.string().url().default('http://127.0.0.1:8090'),
  PMS_SYNC_INTERVAL_MS: z.coerce.number().int().min(0).default(60_000),
  PMS_TIMEOUT_MS: z.coerce.number().int().min(1).default(1500),
  PMS_RETRIES: z.coerce.number().int().min(0).max(5).default(2),
  PMS_BREAKER_RESET_MS: z.coerce.number().int().min(100).default(5000),
});

const pmsConfig = loadConfigOrExit(pmsConfigSchema);

serviceMain({
  name: 'pms-adapter',
  prefix: 'PMS_ADAPTER',
  defaults: { grpc: 50064, ops: 9164, db: 'vrp_pms_adapter' },
  start: (deps) =>
    startPmsAdapterService({
      ...deps,
      pms: {
        baseUrl: pmsConfig.PMS_BASE_URL,
        syncIntervalMs: pmsConfig.PMS_SYNC_INTERVAL_MS,
        connector: { timeoutMs: pmsConfig.PMS_TIMEOUT_MS, retries: pmsConfig.PMS_RETRIES, breaker: { resetTimeoutMs: pmsConfig.PMS_BREAKER_RESET_MS } },
      },
    }),
});
