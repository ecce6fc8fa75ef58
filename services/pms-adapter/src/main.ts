// The pms-adapter service as its own process (docker-compose, Kubernetes). `--help` lists its configuration.
import { openEngines } from '@vrp/engines';
import { serviceMain } from '@vrp/platform/service';
import { startPmsAdapterService } from './app';
import { pmsAdapterService } from './config';

serviceMain({
  definition: pmsAdapterService,
  engines: openEngines,
  start: (deps, config) =>
    startPmsAdapterService({
      ...deps,
      pms: {
        baseUrl: config.PMS_BASE_URL,
        syncIntervalMs: config.PMS_SYNC_INTERVAL_MS,
        connector: { timeoutMs: config.PMS_TIMEOUT_MS, retries: config.PMS_RETRIES, breaker: { resetTimeoutMs: config.PMS_BREAKER_RESET_MS } },
      },
    }),
});
