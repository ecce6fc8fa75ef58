import { join } from 'node:path';
import { createMemoryStore, type MemoryDocumentStore } from './memory';
import { createMongoStore } from './mongo';
import { openStorePersistence } from './persistence';
import type { DocumentStore } from './port';

export * from './port';
export { createMemoryStore, type MemoryDocumentStore, type MemoryStoreOptions } from './memory';
export { openStorePersistence, type StorePersistence, type StoreChange, type PersistedDoc } from './persistence';
export { createMongoStore, readinessFromHello, type HelloReply, type MongoStoreOptions } from './mongo';
export { DEFAULT_STORE_TIMEOUT_MS } from './shared';

export interface StoreConfig {
  STORE: 'memory' | 'mongo';
  MONGO_URL?: string;
  dbName: string;
  /** STORE_TIMEOUT_MS: time limit of every store call. */
  timeoutMs?: number;
  /** STORE=memory: keep the data in `<DATA_DIR>/<dbName>`; empty or absent: in memory only. */
  DATA_DIR?: string;
}

/** Picks the engine from configuration (`STORE=memory` needs nothing else). */
export async function createStore(config: StoreConfig): Promise<DocumentStore> {
  if (config.STORE === 'memory') return createEmbeddedStore(config.dbName, config.DATA_DIR, { timeoutMs: config.timeoutMs });
  if (!config.MONGO_URL) throw new Error('STORE=mongo needs MONGO_URL');
  return createMongoStore({ url: config.MONGO_URL, dbName: config.dbName, timeoutMs: config.timeoutMs });
}

/** The embedded store of one database: persisted under `<dataDir>/<name>` when a data directory is set. */
export function createEmbeddedStore(name: string, dataDir?: string, options: { timeoutMs?: number } = {}): MemoryDocumentStore {
  if (!dataDir) return createMemoryStore(options);
  return createMemoryStore({ ...options, persistence: openStorePersistence({ path: join(dataDir, name), label: `${name} store` }) });
}
export * from './lease';
