// The document-store engines: the embedded one (memory, persisted under DATA_DIR when set) and
// MongoDB through mongoose, and the choice between them from configuration.
import type { StoreConfig } from '@vrp/platform/config';
import type { DocumentStore } from '@vrp/platform/store';
import { createMemoryStore, type MemoryDocumentStore } from './memory/store';
import { openStorePersistence } from './memory/persistence';
import { createMongoStore } from './mongo';
import { openJournal } from '../persistence/lmdb';

export { createMemoryStore, type MemoryDocumentStore, type MemoryStoreOptions } from './memory/store';
export { openStorePersistence, type StorePersistence, type StoreChange, type PersistedDoc } from './memory/persistence';
export { createMongoStore, readinessFromHello, type HelloReply, type MongoStoreOptions } from './mongo';
export { DEFAULT_STORE_TIMEOUT_MS } from './shared';

/** Picks the engine from configuration (`STORE=memory` needs nothing else). */
export async function createStore(config: StoreConfig): Promise<DocumentStore> {
  if (config.STORE === 'memory') return createEmbeddedStore(config.dbName, config.DATA_DIR, { timeoutMs: config.timeoutMs });
  if (!config.MONGO_URL) throw new Error('STORE=mongo needs MONGO_URL');
  return createMongoStore({ url: config.MONGO_URL, dbName: config.dbName, timeoutMs: config.timeoutMs });
}

/** The embedded store of one database: persisted as `<name>` in the data directory's journal when a data directory is set. */
export function createEmbeddedStore(name: string, dataDir?: string, options: { timeoutMs?: number } = {}): MemoryDocumentStore {
  if (!dataDir) return createMemoryStore(options);
  return createMemoryStore({ ...options, persistence: openStorePersistence({ journal: openJournal(dataDir), name, label: `${name} store` }) });
}
