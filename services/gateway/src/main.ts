// The gateway as its own process (docker-compose, Kubernetes).
import { collectDefaultMetrics, ConfigError, createLogger, createStore, loadConfigOrExit, runMain, stopOnSignals } from '@vrp/platform';
import { startGateway } from './app';
import { closeUpstreams, createUpstreams } from './ports/upstreams';
import { gatewayConfigSchema } from './config';

async function main(): Promise<void> {
  const config = loadConfigOrExit(gatewayConfigSchema);
  if (config.STORE === 'mongo' && !config.MONGO_URL) throw new ConfigError(['MONGO_URL: required when STORE=mongo']);
  const logger = createLogger('gateway');
  collectDefaultMetrics();

  const store = await createStore({ STORE: config.STORE, MONGO_URL: config.MONGO_URL, dbName: config.GATEWAY_MONGO_DB, timeoutMs: config.STORE_TIMEOUT_MS });
  const upstreams = createUpstreams(config, config.UPSTREAM_DEADLINE_MS);
  const running = await startGateway({ store, upstreams, config, logger });

  stopOnSignals(async () => {
    await running.close({ drain: true });
    closeUpstreams(upstreams);
    await store.close();
  }, logger);
}

runMain(main);
