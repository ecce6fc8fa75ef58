// The gateway as its own process (docker-compose, Kubernetes). `--help` lists its configuration.
import { checkEngineConfig, exitOnHelp, loadConfigOrExit } from '@vrp/platform/config';
import { collectDefaultMetrics } from '@vrp/platform/metrics';
import { createLogger } from '@vrp/platform/logging';
import { createStore } from '@vrp/engines/store';
import { runMain, stopOnSignals } from '@vrp/platform/service';
import { startGateway } from './app';
import { closeUpstreams, createUpstreams } from './ports/upstreams';
import { gatewayConfigSchema } from './config';

async function main(): Promise<void> {
  const config = loadConfigOrExit(gatewayConfigSchema);
  checkEngineConfig(config);
  const logger = createLogger('gateway');
  collectDefaultMetrics();

  const store = await createStore({
    STORE: config.STORE,
    MONGO_URL: config.MONGO_URL,
    dbName: config.GATEWAY_MONGO_DB,
    timeoutMs: config.STORE_TIMEOUT_MS,
    DATA_DIR: config.DATA_DIR,
  });
  const upstreams = createUpstreams(config, config.UPSTREAM_DEADLINE_MS);
  const running = await startGateway({ store, upstreams, config, logger });

  stopOnSignals(async () => {
    await running.close({ drain: true });
    closeUpstreams(upstreams);
    await store.close();
  }, logger);
}

exitOnHelp('node dist/main.js   (the gateway)', gatewayConfigSchema);
runMain(main);
