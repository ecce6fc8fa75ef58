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
  /** Registers (once) and returns a collection; creates its indexes on the mongo engine. */
  collection<T extends Doc>(spec: CollectionSpec): Collection<T>;
  /**
   * Runs `work` in a transaction. Mongo: a session transaction (replica set required),
   * retried on TransientTransactionError. Memory: writes are serialized and undone on throw.
   */
  transaction<R>(work: (tx: Tx) => Promise<R>): Promise<R>;
  /** True when the engine can serve requests (for /readyz). */
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
    super(`invalid document for ${collection}: ${Object.entries(fields).map(([k, v]) => `${k}: ${v}`).join('; ')}`);
    this.name = 'DocumentValidationError';
  }
}
