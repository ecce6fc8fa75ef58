// The embedded store's transactions: what an open transaction holds (its undo journal, the
// documents and unique keys it owns), who writes (a transaction or a lone write), and which
// transactions the current async context runs inside.
//
// Writes are made in place at once and journaled; a document a transaction writes is "dirty"
// (owned by it) until it ends: a conflict for every other writer, and every other reader sees
// its journaled pre-image instead. Snapshot isolation as on MongoDB: a document committed by
// another writer after the transaction began is a write conflict.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Doc, Tx } from '@vrp/platform/store';
import { settleWithin } from '../shared';
import type { StoreChange } from './persistence';

/** What a transaction's journal and its end need of a collection it wrote. */
export interface JournaledCollection {
  /** Puts back the version an undo entry replaced. */
  restore(entry: UndoEntry): void;
  /** Gives a committed document its commit number. */
  stampCommitted(id: string, version: number): void;
  /** Ends `tx`'s ownership of a document. */
  release(id: string, tx: MemoryTx): void;
  /** The document's state as persistence writes it at commit. */
  persistedState(id: string): StoreChange;
}

/** A unique index's keys that open transactions hold (their dirty documents' pre-images). */
export interface KeyReservations {
  readonly reserved: Map<string, MemoryTx>;
}

/** One in-place change: the version it replaced (undefined: the document did not exist). */
export interface UndoEntry {
  coll: JournaledCollection;
  id: string;
  prev: Doc | undefined;
  /** Commit number of `prev`. */
  prevVersion: number;
}

/**
 * A transaction. Its writes are made in place at once and journaled; every document it writes is
 * "dirty" (owned by it) until it ends, which makes the document a conflict for every other writer
 * and makes every other reader see the journaled pre-image instead.
 */
export interface MemoryTx extends Tx {
  readonly journal: UndoEntry[];
  state: 'active' | 'aborted' | 'ended';
  /** The error that aborted it (state 'aborted'). */
  abortReason: unknown;
  /** The store's commit number when it began: a document committed after that is a conflict. */
  readonly snapshot: number;
  /** Documents it made dirty, to release at the end. */
  readonly touched: Array<{ coll: JournaledCollection; id: string }>;
  /** Unique keys of the pre-images of its dirty documents, held until it ends. */
  readonly reserved: Array<{ index: KeyReservations; key: string }>;
  /** Resolves when it ends (commit or abort): what waiting writers wait for. */
  readonly ended: Promise<void>;
  readonly end: () => void;
}

/** A document written in place by an open transaction, and what others see instead. */
export interface DirtyEntry {
  tx: MemoryTx;
  /** The last committed version (undefined: the transaction inserted it). */
  pre: Doc | undefined;
  preSeq: number;
  preVersion: number;
}

/** Who writes: a transaction, or a lone operation with its own journal (undone when it must wait). */
export interface Writer {
  tx: MemoryTx | undefined;
  journal: UndoEntry[];
}

/** A lone write met a document or key an open transaction holds: it waits for that transaction. */
export class Blocked extends Error {
  constructor(
    readonly holder: MemoryTx,
    readonly collection: string,
    readonly detail: string,
  ) {
    super(`${collection}: ${detail} is held by an open transaction`);
  }
}

/**
 * The transactions the current async context runs inside, innermost first, one list for every
 * memory store of the process. Its own AsyncLocalStorage, apart from the request context's
 * (@vrp/platform/context): the store's bookkeeping is no part of a request.
 */
export interface OpenTransaction {
  readonly store: object;
  readonly tx: MemoryTx;
  readonly outer: OpenTransaction | undefined;
}

const openTransactions = new AsyncLocalStorage<OpenTransaction>();

/** The open transactions of the current async context, innermost first (undefined: none). */
export function currentTransactions(): OpenTransaction | undefined {
  return openTransactions.getStore();
}

/** Runs `fn` inside `open` (its `outer` the transactions already open). */
export function runInTransaction<R>(open: OpenTransaction, fn: () => R): R {
  return openTransactions.run(open, fn);
}

/** Resolves when `promise` does or after `ms` (whichever first), true when the promise won. */
export async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return (await settleWithin(promise, ms)) !== null;
}
