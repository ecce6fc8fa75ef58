// Wiring of the pms-adapter service: store and bus engines in, gRPC + ops servers out.
import { TOPICS } from '@vrp/contracts';
import { startServiceBase, type RunningService, type ServiceDeps } from '@vrp/platform/service';
import type { PmsProvider } from './domain/connection';
import { startOutcomeConsumer } from './consumers/sync-outcomes';
import { pmsAdapterHandlers } from './grpc/handlers';
import { syncHealthHandlers } from './grpc/sync-health-handlers';
import { exposeSyncHealth } from './metrics';
import { grpcListingsPort } from './ports/listings';
import { ConnectorRegistry, DEFAULT_CONNECTOR_OPTIONS, type ConnectorOptions } from './ports/pms-connector';
import { ConnectionStore } from './store/connection-store';
import { SyncHealthStore } from './store/sync-health-store';
import type { PmsAdapterDeps } from './use-cases/deps';
import { Syncer } from './use-cases/sync';

export { DEFAULT_CONNECTOR_OPTIONS, type ConnectorOptions } from './ports/pms-connector';

export interface PmsSettings {
  /**
   * Where each PMS's API lives. A string is a base under which each PMS answers at
   * `/<pms-a..pms-g>/v1` (the PMS simulator); a function gives each provider's own base.
   */
  baseUrl: string | ((provider: PmsProvider) => string);
  /** Scheduled sync of every connected account; 0 = only on demand (SyncNow, Connect). */
  syncIntervalMs?: number;
  connector?: Partial<Omit<ConnectorOptions, 'breaker'>> & { breaker?: Partial<ConnectorOptions['breaker']> };
}

export interface PmsAdapterServiceDeps extends ServiceDeps {
  /** Absent: PMSs are expected at http://127.0.0.1:8090 (the simulator's default), no schedule. */
  pms?: PmsSettings;
}

export const DEFAULT_PMS_BASE_URL = 'http://127.0.0.1:8090';

export function pmsBaseUrlOf(baseUrl: PmsSettings['baseUrl']): (provider: PmsProvider) => string {
  if (typeof baseUrl === 'function') return baseUrl;
  const base = baseUrl.replace(/\/+$/, '');
  return (provider) => `${base}/${provider.toLowerCase()}/v1`;
}

export async function startPmsAdapterService(given: PmsAdapterServiceDeps): Promise<RunningService> {
  // The topic this service publishes PMS changes on is created before the first sync needs it.
  const { deps, outbox, consumers, serve } = await startServiceBase('pms-adapter', given, { topics: [TOPICS.pmsSync] });
  const settings = deps.pms ?? { baseUrl: DEFAULT_PMS_BASE_URL };
  const connections = new ConnectionStore(deps.store);
  const options: ConnectorOptions = {
    ...DEFAULT_CONNECTOR_OPTIONS,
    ...settings.connector,
    breaker: { ...DEFAULT_CONNECTOR_OPTIONS.breaker, ...settings.connector?.breaker },
  };
  const connectors = new ConnectorRegistry(pmsBaseUrlOf(settings.baseUrl), options, deps.logger);
  const health = new SyncHealthStore(deps.store);
  const syncer = new Syncer(deps.store, connections, outbox, connectors, deps.logger, health);
  const listings = grpcListingsPort(deps.addresses);
  const useCases: PmsAdapterDeps = { connections, connectors, syncer, listings, health };
  // What the owning services did with each published change (sync health), and its metrics.
  const outcomes = await startOutcomeConsumer(consumers, useCases);
  const hideMetrics = exposeSyncHealth(useCases);
  syncer.start(settings.syncIntervalMs ?? 0);
  return serve({
    services: [pmsAdapterHandlers(useCases), syncHealthHandlers(useCases)],
    onStop: async () => {
      await syncer.stop();
      hideMetrics();
      await outcomes.stop();
      await outbox.stop();
      connectors.shutdown();
      listings.close();
    },
  });
}
