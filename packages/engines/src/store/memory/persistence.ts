// Persistence of the embedded document store: every collection's documents in one LMDB database
// (the store's named database in its data directory's journal, or an environment of its own). The
// store keeps evaluating queries in memory; the disk holds the committed state, written at each
// commit and read back at start.
//
// Layout: one entry per document, key `<collection>\0<_id>`, value `[seq, document]` (encodeValue,
// which keeps Dates, nested objects and binary data). `seq` is the document's insertion rank, so
// a reload restores the natural order of every collection.
import type { Doc } from '@vrp/platform/store';
import { decodeValue, DurableEnv, encodeValue, type JournalEnvOptions, type OwnEnvOptions } from '../../persistence/lmdb';

/** A document as it is on disk: its insertion rank and its content. */
export interface PersistedDoc {
  seq: number;
  doc: Doc;
}

/** The new state of one document at a commit; `doc` undefined: deleted. */
export interface StoreChange {
  collection: string;
  id: string;
  seq: number;
  doc: Doc | undefined;
}

export interface StorePersistence {
  /** Every document of a collection on disk, in insertion order. */
  load(collection: string): PersistedDoc[];
  /** Writes the changes of one commit in one LMDB transaction; resolves once they are on disk. */
  write(changes: StoreChange[]): Promise<void>;
  close(): Promise<void>;
}

const SEPARATOR = '\u0000';

export function openStorePersistence(options: OwnEnvOptions | JournalEnvOptions): StorePersistence {
  const env = new DurableEnv(options);
  const root = env.root;
  return {
    load(collection) {
      const out: PersistedDoc[] = [];
      const prefix = `${collection}${SEPARATOR}`;
      for (const { value } of root.getRange({ start: prefix, end: `${collection}\u0001` })) {
        const [seq, doc] = decodeValue<[number, Doc]>(value as Uint8Array);
        out.push({ seq, doc });
      }
      return out.sort((a, b) => a.seq - b.seq);
    },
    write(changes) {
      if (changes.length === 0) return Promise.resolve();
      return env.commit({
        write(db) {
          for (const change of changes) {
            const key = `${change.collection}${SEPARATOR}${change.id}`;
            // Settle with the batch's transaction; its failure rejects this write (CommitEntry).
            if (change.doc === undefined) void db.remove(key);
            else void db.put(key, encodeValue([change.seq, change.doc]));
          }
        },
      });
    },
    close: () => env.close(),
  };
}
