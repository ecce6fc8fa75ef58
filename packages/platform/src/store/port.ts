// The document-store port. Services write their queries once, as MongoDB filter / update /
// sort documents; both engines (MongoDB through mongoose, and the embedded in-process engine)
// evaluate those same documents. Records are plain objects; `_id` is a string chosen by the
// caller (services use prefixed ids such as `lst_...`), so both engines agree on identity.
import type { Schema } from 'mongoose';

export type Doc = { _id: string } & Record<string, unknown>;
export type Filter = Record<string, unknown>;
export type Update = Record<string, unknown>;
export type Sort = Record<string, 1 | -1>;
export type Projection = Record<string, 0 | 1>;

export interface FindOptions {
  sort?: Sort;
  skip?: number;
  limit?: number;
  projection?: Projection;
}

/** A unit of work: every operation given the same Tx commits or rolls back together. */
export interface Tx {
  readonly id: string;
}

export interface WriteOptions {
  tx?: Tx;
  /**
   * false: a lone write is acknowledged once applied, before it is on disk, as MongoDB's
   * `writeConcern: { w: 1, j: false }` acknowledges it: it reaches the disk shortly after, in
   * commit order (a journaled write made after it is on disk only with it), and a crash in
   * between loses it. Only for records whose loss costs a repeat and nothing else (a claim, a
   * lease). Inside a transaction it changes nothing: a commit is always journaled.
   */
  journal?: boolean;
}

export interface UpdateOptions extends WriteOptions {
  upsert?: boolean;
}

export interface FindOneAndUpdateOptions extends UpdateOptions {
  /** 'after' (default) returns the updated document, 'before' the one before the update. */
  returnDocument?: 'before' | 'after';
  sort?: Sort;
}

export interface UpdateResult {
  matchedCount: number;
  modifiedCount: number;
  upsertedId: string | null;
}

/** Description of a collection: its mongoose schema (casting, validation, indexes). */
export interface CollectionSpec {
  name: string;
  schema: Schema;
}

export interface Collection<T extends Doc = Doc> {
  readonly name: string;
  /** Validates against the schema, enforces unique indexes; throws DuplicateKeyError. */
  insertOne(doc: T, opts?: WriteOptions): Promise<T>;
  insertMany(docs: T[], opts?: WriteOptions): Promise<T[]>;
  findOne(filter: Filter, opts?: FindOptions & WriteOptions): Promise<T | null>;
  find(filter: Filter, opts?: FindOptions & WriteOptions): Promise<T[]>;
  countDocuments(filter: Filter, opts?: WriteOptions): Promise<number>;
  updateOne(filter: Filter, update: Update, opts?: UpdateOptions): Promise<UpdateResult>;
  updateMany(filter: Filter, update: Update, opts?: UpdateOptions): Promise<UpdateResult>;
  findOneAndUpdate(filter: Filter, update: Update, opts?: FindOneAndUpdateOptions): Promise<T | null>;
  deleteOne(filter: Filter, opts?: WriteOptions): Promise<{ deletedCount: number }>;
  deleteMany(filter: Filter, opts?: WriteOptions): Promise<{ deletedCount: number }>;
}

export interface DocumentStore {
  readonly engine: 'memory' | 'mongo';
  /** Registers (once) and returns a collection. Its indexes are created by init(). */
  collection<T extends Doc>(spec: CollectionSpec): Collection<T>;
  /**
   * Creates every registered collection and its indexes (idempotent). Services register their
   * collections while they are built and await this before they report ready; a collection
   * registered later is prepared at its first operation.
   */
  init(): Promise<void>;
  /**
   * Runs `work` in a transaction (snapshot isolation on both engines, see docs/architecture.md).
   * A write error inside it aborts it: later operations and the commit fail, nothing is visible.
   * `work` is run again, with a fresh Tx and a small jittered backoff, on a transient error
   * (WriteConflictError: another writer holds or committed a document it writes) until the
   * store's time limit; then the last error is thrown. Never catch a write error inside `work`
   * and go on: use an upsert with `$setOnInsert`, or read-then-write, for "insert if new".
   */
  transaction<R>(work: (tx: Tx) => Promise<R>): Promise<R>;
  /** True when the engine can serve requests (for /readyz): reachable, transactions possible, not frozen. */
  ready(): Promise<boolean>;
  close(): Promise<void>;
}

/** Thrown by both engines when a write would violate a unique index. */
export class DuplicateKeyError extends Error {
  constructor(
    readonly collection: string,
    readonly keyPattern: Record<string, unknown>,
  ) {
    super(`duplicate key in ${collection}: ${JSON.stringify(keyPattern)}`);
    this.name = 'DuplicateKeyError';
  }
}

/** Thrown by both engines when a document fails schema validation. */
export class DocumentValidationError extends Error {
  constructor(
    readonly collection: string,
    readonly fields: Record<string, string>,
  ) {
    super(
      `invalid document for ${collection}: ${Object.entries(fields)
        .map(([k, v]) => `${k}: ${v}`)
        .join('; ')}`,
    );
    this.name = 'DocumentValidationError';
  }
}

/**
 * A transaction lost a race (MongoDB: WriteConflict, labelled TransientTransactionError): another
 * open transaction holds a document or unique key it writes, or a document it writes was committed
 * by another writer after it began. The transaction is aborted; running it again can succeed.
 * store.transaction() retries on it by itself; it only reaches callers when the retries ran out.
 */
export class WriteConflictError extends Error {
  readonly transient = true;

  constructor(
    readonly collection: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`write conflict in ${collection}: ${detail}`, options);
    this.name = 'WriteConflictError';
  }
}

/**
 * The store did not answer within its time limit, or cannot be reached (no server, not
 * connected, closed, frozen by a test fault). Nothing is known to be written; services answer
 * `503 service_unavailable`.
 */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/**
 * An operation (or the commit) of a transaction that an earlier error already aborted, as
 * MongoDB's NoSuchTransaction after a failed write. `reason` is the error that aborted it.
 */
export class TransactionAbortedError extends Error {
  readonly transient: boolean;

  constructor(readonly reason: unknown) {
    super(`transaction aborted by an earlier error: ${reason instanceof Error ? reason.message : String(reason)}`, { cause: reason });
    this.name = 'TransactionAbortedError';
    this.transient = isTransientStoreError(reason);
  }
}

/** True for store errors that running the whole transaction again can cure. */
export function isTransientStoreError(err: unknown): boolean {
  return err instanceof WriteConflictError || (err instanceof TransactionAbortedError && err.transient);
}
