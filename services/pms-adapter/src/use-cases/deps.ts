// What the use cases of the pms-adapter work with. app.ts builds it once; each use case names the
// part it needs (a Pick of PmsAdapterDeps), so a test builds only that part.
import type { ListingsPort } from '../ports/listings';
import type { ConnectorRegistry } from '../ports/pms-connector';
import type { ConnectionStore } from '../store/connection-store';
import type { SyncHealthStore } from '../store/sync-health-store';
import type { Syncer } from './sync';

export interface PmsAdapterDeps {
  connections: ConnectionStore;
  /** One connector (HTTP client with breaker and deadlines) per PMS. */
  connectors: ConnectorRegistry;
  /** The sync runner: Connect and SyncNow sync within a budget through it. */
  syncer: Syncer;
  /** The listing service (deactivation of a disconnected account's listings). */
  listings: ListingsPort;
  health: SyncHealthStore;
  /** The clock of sync health (tests set it); default: the wall clock. */
  now?: () => Date;
}
