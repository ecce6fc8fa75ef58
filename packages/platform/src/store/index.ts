import { createMemoryStore } from './memory';
import { createMongoStore } from './mongo';
import type { DocumentStore } from './port';

export * from './port';
export { createMemoryStore } from './memory';
export { createMongoStore, type MongoStoreOptions } from './mongo';

export interface StoreConfig {
  STORE: 'memory' | 'mongo';
  MONGO_URL?: string;
  dbName: string;
}

/** Picks the engine from configuration (`STORE=memory` needs nothing else). */
export async function createStore(config: StoreConfig): Promise<DocumentStore> {
  if (config.STORE === 'memory') return createMemoryStore();
  if (!config.MONGO_URL) throw new Error('STORE=mongo needs MONGO_URL');
  return createMongoStore({ url: config.MONGO_URL, dbName: config.dbName });
}
export * from './lease';
