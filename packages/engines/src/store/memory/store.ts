// The embedded document store: in-process collections (collection.ts) that evaluate the same
// MongoDB filter / update / sort / projection documents through mingo (evaluation.ts), and cast
// and validate through the mongoose schema; transactions with snapshot isolation
// (transactions.ts); a time limit on every wait, as STORE_TIMEOUT_MS on MongoDB.
//
// Persistence (DATA_DIR, persistence.ts): at each commit (commitDurably) the final state of
// every document the transaction or lone write touched goes to LMDB in one write, awaited before
// the commit is acknowledged and queued in commit order; the writer keeps owning those documents
// until then (a lone write with `journal: false` is queued the same way but acknowledged at once).
// Without persistence nothing of this runs.
import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import {
  isTransientStoreError,
  StoreUnavailableError,
  TransactionAbortedError,
  WriteConflictError,
  type Collection,
  type CollectionSpec,
  type Doc,
  type DocumentStore,
  type Tx,
  type WriteOptions,
} from '@vrp/platform/store';
import { DEFAULT_STORE_TIMEOUT_MS, sleep, transactionBackoffMs } from '../shared';
import { MemoryCollection, type CollectionHost } from './collection';
import { QueryCache } from './evaluation';
import type { StorePersistence } from './persistence';
import { Blocked, currentTransactions, runInTransaction, within, type MemoryTx, type Writer } from './transactions';

export interface MemoryStoreOptions {
  /**
   * Time limit of every wait, as STORE_TIMEOUT_MS on MongoDB: a lone write waiting for a
   * transaction, any call while frozen, and the retries of a transaction. Default 2000 ms.
   */
  timeoutMs?: number;
  /** Where committed changes are written and read back at start (DATA_DIR); default: nowhere. */
  persistence?: StorePersistence;
}

/** The embedded engine, with its test-only fault hook. */
export interface MemoryDocumentStore extends DocumentStore {
  readonly engine: 'memory';
  /**
   * Test fault: from now on every call hangs, as against a frozen database, and fails with
   * StoreUnavailableError after the time limit; ready() is false. Calls waiting when thaw() is
   * called go on normally.
   */
  freeze(): void;
  thaw(): void;
}

class MemoryStore implements MemoryDocumentStore, CollectionHost {
  readonly engine = 'memory' as const;
  /** Compiled filters, reused across calls and collections of this store. */
  readonly queries = new QueryCache(2048);
  private readonly base = new mongoose.Mongoose();
  private readonly collections = new Map<string, MemoryCollection<Doc>>();
  private readonly txs = new WeakSet<MemoryTx>();
  /** Commit number of the last commit (lone writes and transactions alike). */
  private clock = 0;
  private closed = false;
  private frozen: { thawed: Promise<void>; thaw: () => void } | null = null;
  readonly timeoutMs: number;
  private readonly persistence: StorePersistence | undefined;

  constructor(opts: MemoryStoreOptions = {}) {
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
    this.persistence = opts.persistence;
  }

  collection<T extends Doc>(spec: CollectionSpec): Collection<T> {
    let coll = this.collections.get(spec.name);
    if (!coll) {
      coll = new MemoryCollection<Doc>(spec.name, spec.schema, this.base, this);
      this.collections.set(spec.name, coll);
      if (this.persistence) coll.loadPersisted(this.persistence.load(spec.name));
    }
    return coll as unknown as Collection<T>;
  }

  /** Collections and their indexes exist from registration on; init only checks the store answers. */
  async init(): Promise<void> {
    await this.gate(Date.now() + this.timeoutMs);
  }

  async transaction<R>(work: (tx: Tx) => Promise<R>): Promise<R> {
    const open = currentTransactions();
    for (let t = open; t; t = t.outer) {
      if (t.store === this && t.tx.state === 'active') throw new Error('memory store: nested transactions are not supported');
    }
    const deadline = Date.now() + this.timeoutMs;
    for (let attempt = 1; ; attempt++) {
      if (!this.answering()) await this.gate(deadline);
      const tx = this.begin();
      try {
        const result = await runInTransaction({ store: this, tx, outer: open }, () => work(tx));
        if (tx.state === 'aborted') throw new TransactionAbortedError(tx.abortReason);
        if (!this.answering()) await this.gate(deadline); // the commit waits for a frozen store too
        await this.commitDurably(tx);
        return result;
      } catch (err) {
        if (tx.state === 'active') this.abort(tx, err);
        if (err instanceof StoreUnavailableError) throw err; // a closed store or a refused disk: no retry
        const transient = isTransientStoreError(err) || isTransientStoreError(tx.abortReason);
        const pause = transactionBackoffMs(attempt);
        if (!transient || Date.now() + pause >= deadline) throw err;
        await sleep(pause);
      }
    }
  }

  async ready(): Promise<boolean> {
    return !this.closed && !this.frozen;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.thaw(); // waiting calls fail as closed instead of hanging
    // Commits already queued for the disk reach it first.
    await this.persistence?.close();
  }

  freeze(): void {
    if (this.frozen) return;
    let thaw: () => void = () => undefined;
    const thawed = new Promise<void>((resolve) => (thaw = resolve));
    this.frozen = { thawed, thaw };
  }

  thaw(): void {
    const frozen = this.frozen;
    this.frozen = null;
    frozen?.thaw();
  }

  /** Waits while frozen, up to the deadline; fails when closed or still frozen then. */
  private async gate(deadline: number): Promise<void> {
    if (this.frozen) await within(this.frozen.thawed, deadline - Date.now());
    if (this.closed) throw new StoreUnavailableError('memory store: closed');
    if (this.frozen) throw new StoreUnavailableError(`memory store: no answer within ${this.timeoutMs} ms (frozen)`);
  }

  private begin(): MemoryTx {
    let end: () => void = () => undefined;
    const ended = new Promise<void>((resolve) => (end = resolve));
    const tx: MemoryTx = {
      id: randomUUID(),
      journal: [],
      state: 'active',
      abortReason: undefined,
      snapshot: this.clock,
      touched: [],
      reserved: [],
      ended,
      end,
    };
    this.txs.add(tx);
    return tx;
  }

  /** Rolls a transaction back at once (its documents are free for others) and remembers why. */
  private abort(tx: MemoryTx, reason: unknown): void {
    for (let i = tx.journal.length - 1; i >= 0; i--) {
      const entry = tx.journal[i];
      if (entry) entry.coll.restore(entry);
    }
    tx.abortReason = reason;
    this.finish(tx, false);
  }

  /** Ends a transaction: committed versions get a commit number; dirty marks and keys are released. */
  private finish(tx: MemoryTx, committed: boolean): void {
    const version = committed ? ++this.clock : 0;
    for (const { coll, id } of tx.touched) {
      if (committed) coll.stampCommitted(id, version);
      coll.release(id, tx);
    }
    for (const { index, key } of tx.reserved) if (index.reserved.get(key) === tx) index.reserved.delete(key);
    tx.journal.length = 0;
    tx.state = committed ? 'ended' : 'aborted';
    tx.end();
  }

  /** Neither frozen nor closed: a read can run at once (no await on the common path). */
  answering(): boolean {
    return !this.frozen && !this.closed;
  }

  checkTx(tx: Tx | undefined): MemoryTx | undefined {
    if (tx === undefined) return undefined;
    if (!this.txs.has(tx as MemoryTx)) throw new Error('memory store: tx does not belong to this store');
    const memTx = tx as MemoryTx;
    if (memTx.state === 'aborted') throw new TransactionAbortedError(memTx.abortReason);
    if (memTx.state !== 'active') throw new Error('memory store: transaction is no longer active');
    return memTx;
  }

  /** The transaction a read runs in (checked), after waiting out a freeze. */
  async reader(tx: Tx | undefined): Promise<MemoryTx | undefined> {
    await this.gate(Date.now() + this.timeoutMs);
    return this.checkTx(tx);
  }

  /**
   * Runs a synchronous write. In a transaction it runs at once; any error aborts the
   * transaction (a conflict with another open transaction is a WriteConflictError). A lone write
   * that meets a document or key an open transaction holds undoes what it did, waits for that
   * transaction to end (up to the time limit) and runs again, as MongoDB does; it gets its
   * commit number when it succeeds (or stops part way, as an ordered insertMany does).
   */
  async write<R>(opts: WriteOptions, fn: (w: Writer) => R): Promise<R> {
    const deadline = Date.now() + this.timeoutMs;
    // No wait on the common path (neither frozen nor closed), as for reads.
    if (!this.answering()) await this.gate(deadline);
    const memTx = this.checkTx(opts.tx);
    if (memTx) {
      try {
        return fn({ tx: memTx, journal: memTx.journal });
      } catch (err) {
        const reason = err instanceof Blocked ? new WriteConflictError(err.collection, `${err.detail} is written by another open transaction`) : err;
        this.abort(memTx, reason);
        throw reason;
      }
    }
    for (;;) {
      // With persistence, a lone write owns what it writes (as a transaction does) until it is
      // on disk: other writers wait for it and readers see the versions before it.
      const owner = this.persistence ? this.begin() : undefined;
      const w: Writer = { tx: owner, journal: owner ? owner.journal : [] };
      let outcome: { ok: true; value: R } | { ok: false; error: unknown };
      try {
        outcome = { ok: true, value: fn(w) };
      } catch (err) {
        if (err instanceof Blocked) {
          if (owner) this.abort(owner, err);
          else {
            for (let i = w.journal.length - 1; i >= 0; i--) {
              const entry = w.journal[i];
              if (entry) entry.coll.restore(entry);
            }
          }
          if (!(await within(err.holder.ended, deadline - Date.now()))) {
            throw new StoreUnavailableError(`memory store: ${err.message}; no answer within ${this.timeoutMs} ms`);
          }
          await this.gate(deadline);
          continue;
        }
        // What it changed before the error (an ordered insertMany stops at a duplicate) stays.
        outcome = { ok: false, error: err };
      }
      if (owner) await this.commitDurably(owner, opts.journal !== false);
      else this.stampLone(w);
      if (!outcome.ok) throw outcome.error;
      return outcome.value;
    }
  }

  /**
   * Commits a transaction (or a lone write's owner). With persistence, the final state of every
   * document it touched is written in ONE LMDB write, awaited before the commit is acknowledged;
   * the documents stay owned by it until then, so no other writer changes them in between and
   * no reader sees them before they are on disk. The write is queued synchronously here, in
   * commit order, and the disk queue (DurableEnv) commits its batches in queue order: the disk
   * sees commits in the order they were made, and they become visible in that same order. On a
   * failure the in-memory changes are undone and the commit fails with StoreUnavailableError.
   *
   * Unjournaled (a lone write with `journal: false`, as MongoDB's `j: false`): queued for the disk
   * the same way, in commit order, but acknowledged and visible at once. A journaled commit made
   * after it is queued behind it, so it reaches the disk only with it; a failed disk write loses it
   * (as a crash would) and fails every journaled commit queued with or behind it, which their
   * writers see.
   */
  private async commitDurably(tx: MemoryTx, journaled = true): Promise<void> {
    const persistence = this.persistence;
    if (!persistence || tx.touched.length === 0) {
      this.finish(tx, true);
      return;
    }
    const changes = tx.touched.map(({ coll, id }) => coll.persistedState(id));
    if (!journaled) {
      persistence.write(changes).catch(() => undefined);
      this.finish(tx, true);
      return;
    }
    try {
      await persistence.write(changes);
    } catch (err) {
      const error =
        err instanceof StoreUnavailableError
          ? err
          : new StoreUnavailableError(`memory store: the write did not reach the disk (${String(err)})`, { cause: err });
      if (tx.state === 'active') this.abort(tx, error);
      throw error;
    }
    this.finish(tx, true);
  }

  private stampLone(w: Writer): void {
    if (w.journal.length === 0) return;
    const version = ++this.clock;
    for (const { coll, id } of w.journal) coll.stampCommitted(id, version);
  }
}

export function createMemoryStore(opts: MemoryStoreOptions = {}): MemoryDocumentStore {
  return new MemoryStore(opts);
}
