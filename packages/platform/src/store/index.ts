import { createMemoryStore } from './memory';
import { createMongoStore } from './mongo';
import type { DocumentStore } from './port';

export * from './port';
export { createMemoryStore, type MemoryDocumentStore, type MemoryStoreOptions } from './memory';
export { createMongoStore, readinessFromHello, type HelloReply, type MongoStoreOptions } from './mongo';
export { DEFAULT_STORE_TIMEOUT_MS } from './shared';

export interface StoreConfig {
  STORE: 'memory' | 'mongo';
  MONGO_URL?: string;
  dbName: string;
  /** STORE_TIMEOUT_MS: time limit of every store call. */
  timeoutMs?: number;
}

/** Picks the engine from configuration (`STORE=memory` needs nothing else). */
export async function createStore(config: StoreConfig): Promise<DocumentStore> {
  if (config.STORE === 'memory') return createMemoryStore({ timeoutMs: config.timeoutMs });
  if (!config.MONGO_URL) throw new Error('STORE=mongo needs MONGO_URL');
  return createMongoStore({ url: config.MONGO_URL, dbName: config.dbName, timeoutMs: config.timeoutMs });
}
export * from './lease';
