// Progress of this database's one-time data migrations (`migrations`), and the scan they walk.
import type { Collection, DocumentStore } from '@vrp/platform/store';
import { migrationSchema } from './schemas';

type MigrationDoc = { _id: string; after: string; done: boolean; updatedAt: Date; [field: string]: unknown };

export interface MigrationProgress {
  after: string;
  done: boolean;
}

export class MigrationStore {
  readonly migrations: Collection<MigrationDoc>;

  constructor(store: DocumentStore) {
    this.migrations = store.collection<MigrationDoc>({ name: 'migrations', schema: migrationSchema });
  }

  async progress(name: string): Promise<MigrationProgress> {
    const doc = await this.migrations.findOne({ _id: name });
    return { after: doc?.after ?? '', done: doc?.done ?? false };
  }

  /**
   * Moves the cursor forward only (replicas running the same migration concurrently never move
   * it back); `done` once set stays set.
   */
  async advance(name: string, after: string, done: boolean, at: Date): Promise<void> {
    await this.migrations.updateOne({ _id: name }, { $max: { after }, $set: { updatedAt: at, ...(done ? { done: true } : {}) } }, { upsert: true });
  }
}
