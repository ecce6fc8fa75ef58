// What the pms-adapter service reads from its environment: the settings every service reads
// (@vrp/platform/service, service/main.ts) and its own below. `--help` prints them.
import { z } from 'zod';
import type { ServiceDefinition } from '@vrp/platform/service';
import { DEFAULT_PMS_BASE_URL } from './app';

export const pmsConfig = z.object({
  /** Base URL of the PMS APIs: each PMS answers under /<pms-a..pms-g>/v1 (the simulator's layout). */
  PMS_BASE_URL: z.string().url().default(DEFAULT_PMS_BASE_URL).describe('base URL of the PMS APIs: each PMS under <url>/pms-a/v1 .. /pms-g/v1'),
  PMS_SYNC_INTERVAL_MS: z.coerce.number().int().min(0).default(60_000).describe('period of the scheduled pull from every PMS, ms (0 = on demand only)'),
  PMS_TIMEOUT_MS: z.coerce.number().int().min(1).default(1500).describe('time limit of one HTTP call to a PMS, ms'),
  PMS_RETRIES: z.coerce.number().int().min(0).max(5).default(2).describe('retries of a failed idempotent PMS call'),
  PMS_BREAKER_RESET_MS: z.coerce.number().int().min(100).default(5000).describe('how long an open PMS breaker waits before trying again, ms'),
});

export const pmsAdapterService: ServiceDefinition<typeof pmsConfig> = {
  name: 'pms-adapter',
  prefix: 'PMS_ADAPTER',
  defaults: { grpc: 50064, ops: 9164, db: 'vrp_pms_adapter' },
  extra: pmsConfig,
};
