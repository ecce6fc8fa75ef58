// The one place where a dry run (`?dry_run=true`, RequestContext.dryRun) loses its writes. A
// service's use-cases run unchanged: they read, check, decide and write as for the real request,
// and every write they make is rolled back instead of committed. A transaction runs in full (its
// reads see its own writes, unique indexes and conflicts apply as they would) and is then aborted;
// a lone write runs in a transaction of its own that is aborted the same way. The result the
// transaction's work returned is handed back as if it had committed, so the use-case answers what
// the real write would have answered. Outbox entries are written in those transactions, so nothing
// is published either (Outbox.flush does nothing in a dry run).
import { isDryRun } from '../context';
import type { Collection, Doc, DocumentStore, Tx } from './port';

/** Thrown out of the transaction's work to abort it, carrying the work's result. */
class DryRunRollback extends Error {
  constructor(readonly result: unknown) {
    super('dry run: rolled back');
    this.name = 'DryRunRollback';
  }
}

async function rolledBack<R>(store: DocumentStore, work: (tx: Tx) => Promise<R>): Promise<R> {
  try {
    await store.transaction(async (tx) => {
      throw new DryRunRollback(await work(tx));
    });
  } catch (err) {
    if (err instanceof DryRunRollback) return err.result as R;
    throw err;
  }
  throw new Error('dry run: the transaction committed');
}

const WRITES = new Set(['insertOne', 'insertMany', 'updateOne', 'updateMany', 'findOneAndUpdate', 'deleteOne', 'deleteMany']);
/** Where each write method takes its options (`opts.tx`). */
const OPTIONS_AT: Record<string, number> = { insertOne: 1, insertMany: 1, updateOne: 2, updateMany: 2, findOneAndUpdate: 2, deleteOne: 1, deleteMany: 1 };

function dryRunCollection<T extends Doc>(store: DocumentStore, inner: Collection<T>): Collection<T> {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof prop !== 'string' || !WRITES.has(prop) || typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => Promise<unknown>;
      return (...args: unknown[]) => {
        const at = OPTIONS_AT[prop]!;
        const opts = (args[at] ?? {}) as { tx?: Tx };
        // Inside a transaction (already rolled back in a dry run), or not a dry run: as is.
        if (opts.tx || !isDryRun()) return method.apply(target, args);
        return rolledBack(store, (tx) => {
          const withTx = [...args];
          withTx[at] = { ...opts, tx };
          return method.apply(target, withTx);
        });
      };
    },
  });
}

/** The store as a service sees it: in a dry run, nothing written through it is kept. */
export function dryRunAware(store: DocumentStore): DocumentStore {
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'transaction') return <R>(work: (tx: Tx) => Promise<R>) => (isDryRun() ? rolledBack(target, work) : target.transaction(work));
      if (prop === 'collection')
        return <T extends Doc>(spec: Parameters<DocumentStore['collection']>[0]) => dryRunCollection(target, target.collection<T>(spec));
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
