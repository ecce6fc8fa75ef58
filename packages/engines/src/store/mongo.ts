// The MongoDB engine, through mongoose: the schema casts and validates, the server evaluates the
// filter / update documents. Transactions need a replica set (a single-node one is enough).
//
// Time limits: every operation carries `maxTimeMS` (the server stops it) and a client-side bound
// of the same length plus a small grace (covers server selection, a dead socket, a frozen primary);
// serverSelectionTimeoutMS is the same limit (socketTimeoutMS only a longer backstop). Transactions run in
// this engine's own loop instead of the driver's withTransaction (which retries for 120 s):
// retried on TransientTransactionError with a jittered backoff until the limit, the commit
// bounded by maxCommitTimeMS and retried on UnknownTransactionCommitResult within the same limit.
import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import type { ClientSession, Connection, Model } from 'mongoose';
import {
  DocumentValidationError,
  DuplicateKeyError,
  isTransientStoreError,
  StoreUnavailableError,
  TransactionAbortedError,
  WriteConflictError,
  type Collection,
  type CollectionSpec,
  type Doc,
  type DocumentStore,
  type Filter,
  type FindOneAndUpdateOptions,
  type FindOptions,
  type Tx,
  type Update,
  type UpdateOptions,
  type UpdateResult,
  type WriteOptions,
} from '@vrp/platform/store';
import {
  DEFAULT_STORE_TIMEOUT_MS,
  isPlainObject,
  prepareSchema,
  settleWithin,
  sleep,
  transactionBackoffMs,
  upsertDeterminesId,
  validationFields,
} from './shared';

export interface MongoStoreOptions {
  url: string;
  dbName?: string;
  /**
   * Time limit of every operation, of server selection, and of a transaction's retries
   * (STORE_TIMEOUT_MS). Default 2000 ms.
   */
  timeoutMs?: number;
}

/** Client-side slack over maxTimeMS: the server's own MaxTimeMSExpired answer should win. */
const CLIENT_GRACE_MS = 250;
/** Least socketTimeoutMS (see createMongoStore). */
const SOCKET_TIMEOUT_FLOOR_MS = 30_000;

/** What `hello` says about a server, as far as readiness goes. */
export interface HelloReply {
  setName?: unknown;
  msg?: unknown;
  isWritablePrimary?: unknown;
  ismaster?: unknown;
}

/**
 * Readiness from a `hello` reply: transactions need a replica set member that is the writable
 * primary (`setName` present), or a mongos (`msg: 'isdbgrid'`). A standalone server accepts
 * plain writes but fails every transaction, so it is not ready.
 */
export function readinessFromHello(hello: HelloReply): { ready: true } | { ready: false; reason: string } {
  if (hello.msg === 'isdbgrid') return { ready: true };
  if (typeof hello.setName !== 'string' || hello.setName === '') {
    return { ready: false, reason: 'the server is not a replica set member: transactions need a replica set (a single-node one is enough)' };
  }
  if (hello.isWritablePrimary !== true && hello.ismaster !== true) {
    return { ready: false, reason: `the server is not the writable primary of replica set ${hello.setName}` };
  }
  return { ready: true };
}

type RawDoc = Record<string, unknown>;

const TO_OBJECT = { depopulate: true, versionKey: false, flattenMaps: true } as const;

/** Server error codes that mean "no answer in time" (MaxTimeMSExpired, ExceededTimeLimit...). */
const TIMEOUT_CODES = new Set([50, 89, 262]);
/** WriteConflict: another transaction holds the document (labelled TransientTransactionError too). */
const WRITE_CONFLICT = 112;

function hasErrorLabel(err: unknown, label: string): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const fn: unknown = Reflect.get(err, 'hasErrorLabel');
  return typeof fn === 'function' && fn.call(err, label) === true;
}

/** keyPattern of an E11000 error, wherever the driver put it (server error or bulk write). */
function duplicateKeyPattern(err: object): Record<string, unknown> {
  const candidates: unknown[] = [Reflect.get(err, 'keyPattern'), Reflect.get(Reflect.get(err, 'errorResponse') ?? {}, 'keyPattern')];
  const writeErrors: unknown = Reflect.get(err, 'writeErrors');
  if (Array.isArray(writeErrors) && writeErrors[0]) {
    const first: unknown = writeErrors[0];
    if (typeof first === 'object' && first !== null) {
      candidates.push(Reflect.get(first, 'keyPattern'), Reflect.get(Reflect.get(first, 'err') ?? {}, 'keyPattern'));
    }
  }
  for (const c of candidates) if (isPlainObject(c)) return c;
  const match = /index: (\S+)/.exec(err instanceof Error ? err.message : '');
  return match?.[1] ? { index: match[1] } : {};
}

function codeOf(err: unknown): unknown {
  return typeof err === 'object' && err !== null ? Reflect.get(err, 'code') : undefined;
}

function isUnavailable(err: unknown): boolean {
  const m = mongoose.mongo;
  return (
    err instanceof m.MongoServerSelectionError ||
    err instanceof m.MongoNetworkError || // MongoNetworkTimeoutError too
    err instanceof m.MongoNotConnectedError ||
    err instanceof m.MongoTopologyClosedError ||
    err instanceof m.MongoOperationTimeoutError ||
    (err instanceof m.MongoError && TIMEOUT_CODES.has(Number(codeOf(err))))
  );
}

/**
 * Turns driver / mongoose errors into the port's errors: E11000 -> DuplicateKeyError, a write
 * conflict or any TransientTransactionError -> WriteConflictError, no answer in time or no server
 * -> StoreUnavailableError, mongoose validation -> DocumentValidationError. Anything else (the
 * caller's own errors thrown inside a transaction) passes through as is.
 */
export function mapError(err: unknown, collection: string): unknown {
  if (err instanceof DuplicateKeyError || err instanceof WriteConflictError || err instanceof StoreUnavailableError) return err;
  if (err instanceof TransactionAbortedError || err instanceof DocumentValidationError) return err;
  const isDriverError = err instanceof mongoose.mongo.MongoError;
  if (isDriverError && codeOf(err) === 11000) return new DuplicateKeyError(collection, duplicateKeyPattern(err));
  if (isDriverError && (codeOf(err) === WRITE_CONFLICT || hasErrorLabel(err, 'TransientTransactionError'))) {
    return new WriteConflictError(collection, err.message, { cause: err });
  }
  if (isUnavailable(err)) return new StoreUnavailableError(`mongo store (${collection}): ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  const fields = validationFields(err);
  if (fields) return new DocumentValidationError(collection, fields);
  if (isDriverError || err instanceof mongoose.Error) {
    return new Error(`mongo store (${collection}): ${err.message}`, { cause: err });
  }
  return err;
}

class MongoCollection<T extends Doc> implements Collection<T> {
  private readonly model: Model<RawDoc>;
  private prepared: Promise<void> | null = null;

  constructor(
    readonly name: string,
    schema: mongoose.Schema,
    private readonly store: MongoStore,
    conn: Connection,
  ) {
    this.model = conn.model<RawDoc>(name, prepareSchema(schema), name);
  }

  /** Creates the collection (so transactions never have to) and its indexes, once. */
  ensureReady(): Promise<void> {
    this.prepared ??= (async () => {
      await this.model.createCollection();
      await this.model.createIndexes();
    })().catch((err: unknown) => {
      this.prepared = null; // retry on the next operation
      throw err;
    });
    return this.prepared;
  }

  /**
   * Runs one operation within the time limit. In a transaction, a failed operation aborts the
   * transaction (MongoDB aborts it server-side on a write error; a client-side failure such as a
   * validation error is treated the same way so both engines agree): later operations fail.
   */
  private async run<R>(tx: Tx | undefined, op: (session: ClientSession | undefined, maxTimeMS: number) => Promise<R>): Promise<R> {
    const active = this.store.activeTx(tx);
    const limit = this.store.timeoutMs;
    try {
      await this.store.bounded(this.ensureReady(), `preparing ${this.name}`);
      return await this.store.bounded(op(active?.session, limit), `${this.name}`);
    } catch (err) {
      const mapped = mapError(err, this.name);
      if (active) active.abortReason ??= mapped;
      throw mapped;
    }
  }

  insertOne(doc: T, opts: WriteOptions = {}): Promise<T> {
    // Inserts take no maxTimeMS (an insert does not scan); the client-side bound of run() holds.
    return this.run(opts.tx, async (session) => {
      const created = new this.model(doc);
      await created.save(session ? { session } : { ...unjournaled(opts).writeConcern });
      return created.toObject(TO_OBJECT) as unknown as T;
    });
  }

  insertMany(docs: T[], opts: WriteOptions = {}): Promise<T[]> {
    return this.run(opts.tx, async (session) => {
      const created = await this.model.insertMany(docs, { session, ordered: true, ...unjournaled(opts, session) });
      return created.map((d) => d.toObject(TO_OBJECT) as unknown as T);
    });
  }

  findOne(filter: Filter, opts: FindOptions & WriteOptions = {}): Promise<T | null> {
    return this.run(opts.tx, async (session, maxTimeMS) => {
      const found = await this.model
        .findOne(filter, opts.projection ?? null, { session, sort: opts.sort, skip: opts.skip, maxTimeMS })
        .lean()
        .exec();
      return found as unknown as T | null;
    });
  }

  find(filter: Filter, opts: FindOptions & WriteOptions = {}): Promise<T[]> {
    return this.run(opts.tx, async (session, maxTimeMS) => {
      const found = await this.model
        .find(filter, opts.projection ?? null, { session, sort: opts.sort, skip: opts.skip, limit: opts.limit, maxTimeMS })
        .lean()
        .exec();
      return found as unknown as T[];
    });
  }

  countDocuments(filter: Filter, opts: WriteOptions = {}): Promise<number> {
    return this.run(opts.tx, (session, maxTimeMS) => this.model.countDocuments(filter, { session, maxTimeMS }).exec());
  }

  updateOne(filter: Filter, update: Update, opts: UpdateOptions = {}): Promise<UpdateResult> {
    return this.update('updateOne', filter, update, opts);
  }

  updateMany(filter: Filter, update: Update, opts: UpdateOptions = {}): Promise<UpdateResult> {
    return this.update('updateMany', filter, update, opts);
  }

  private update(kind: 'updateOne' | 'updateMany', filter: Filter, update: Update, opts: UpdateOptions): Promise<UpdateResult> {
    return this.run(opts.tx, async (session, maxTimeMS) => {
      const options = { session, maxTimeMS, upsert: opts.upsert === true, runValidators: true, ...unjournaled(opts, session) };
      const withId = this.withUpsertId(filter, update, opts.upsert);
      const res =
        kind === 'updateOne' ? await this.model.updateOne(filter, withId, options).exec() : await this.model.updateMany(filter, withId, options).exec();
      return toUpdateResult(res);
    });
  }

  findOneAndUpdate(filter: Filter, update: Update, opts: FindOneAndUpdateOptions = {}): Promise<T | null> {
    return this.run(opts.tx, async (session, maxTimeMS) => {
      const found = await this.model
        .findOneAndUpdate(filter, this.withUpsertId(filter, update, opts.upsert), {
          session,
          maxTimeMS,
          upsert: opts.upsert === true,
          sort: opts.sort,
          returnDocument: opts.returnDocument ?? 'after',
          runValidators: true,
          ...unjournaled(opts, session),
        })
        .lean()
        .exec();
      return found as unknown as T | null;
    });
  }

  deleteOne(filter: Filter, opts: WriteOptions = {}): Promise<{ deletedCount: number }> {
    return this.run(opts.tx, async (session, maxTimeMS) => {
      const res = await this.model.deleteOne(filter, { session, maxTimeMS, ...unjournaled(opts, session) }).exec();
      return { deletedCount: res.deletedCount };
    });
  }

  deleteMany(filter: Filter, opts: WriteOptions = {}): Promise<{ deletedCount: number }> {
    return this.run(opts.tx, async (session, maxTimeMS) => {
      const res = await this.model.deleteMany(filter, { session, maxTimeMS, ...unjournaled(opts, session) }).exec();
      return { deletedCount: res.deletedCount };
    });
  }

  /**
   * `_id` is a string on both engines: when an upsert would leave it to the server (an ObjectId),
   * give it a random string instead, as the memory engine does.
   */
  private withUpsertId(filter: Filter, update: Update, upsert: boolean | undefined): Update {
    if (!upsert || upsertDeterminesId(filter, update)) return update;
    const setOnInsert = isPlainObject(update.$setOnInsert) ? update.$setOnInsert : {};
    return { ...update, $setOnInsert: { ...setOnInsert, _id: randomUUID() } };
  }
}

/** The write concern of a lone write with `journal: false`: acknowledged by the primary once applied, before its journal is on disk. */
const UNJOURNALED = { w: 1, j: false } as const;

/**
 * The write concern of a lone write with `journal: false`, as an operation option. Inside a
 * transaction nothing: a write concern on an operation of a transaction is an error, and the
 * commit's own write concern holds.
 */
function unjournaled(opts: WriteOptions, session?: ClientSession): { writeConcern?: typeof UNJOURNALED } {
  return opts.journal === false && !session ? { writeConcern: UNJOURNALED } : {};
}

function toUpdateResult(res: { matchedCount: number; modifiedCount: number; upsertedId?: unknown }): UpdateResult {
  const id = res.upsertedId;
  return {
    matchedCount: res.matchedCount,
    modifiedCount: res.modifiedCount,
    upsertedId: id === null || id === undefined ? null : String(id),
  };
}

/** A transaction of this engine: its session, and the error that aborted it, if any. */
interface MongoTx extends Tx {
  readonly session: ClientSession;
  active: boolean;
  abortReason: unknown;
}

class MongoStore implements DocumentStore {
  readonly engine = 'mongo' as const;
  private readonly collections = new Map<string, MongoCollection<Doc>>();
  private readonly txs = new WeakSet<MongoTx>();

  constructor(
    private readonly conn: Connection,
    readonly timeoutMs: number,
  ) {}

  collection<T extends Doc>(spec: CollectionSpec): Collection<T> {
    let coll = this.collections.get(spec.name);
    if (!coll) {
      coll = new MongoCollection<Doc>(spec.name, spec.schema, this, this.conn);
      this.collections.set(spec.name, coll);
    }
    return coll as unknown as Collection<T>;
  }

  /** Creates every registered collection and its indexes (index builds are not time-limited). */
  async init(): Promise<void> {
    try {
      await Promise.all([...this.collections.values()].map((c) => c.ensureReady()));
    } catch (err) {
      throw mapError(err, 'init');
    }
  }

  /** `promise` within the time limit (plus a grace over maxTimeMS), else StoreUnavailableError. */
  async bounded<R>(promise: Promise<R>, what: string): Promise<R> {
    const settled = await settleWithin(promise, this.timeoutMs + CLIENT_GRACE_MS);
    if (settled) return settled.value;
    promise.catch(() => undefined); // its late failure is no longer anyone's concern
    throw new StoreUnavailableError(`mongo store (${what}): no answer within ${this.timeoutMs} ms`);
  }

  async transaction<R>(work: (tx: Tx) => Promise<R>): Promise<R> {
    const deadline = Date.now() + this.timeoutMs;
    const session = await this.bounded(this.conn.startSession(), 'startSession').catch((err: unknown) => {
      throw mapError(err, 'transaction');
    });
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          return await this.attempt(session, work, deadline);
        } catch (err) {
          const pause = transactionBackoffMs(attempt);
          if (!isTransientStoreError(err) || Date.now() + pause >= deadline) throw err;
          await sleep(pause);
        }
      }
    } finally {
      await session.endSession().catch(() => undefined);
    }
  }

  /** One run of `work` in a fresh transaction, then the commit. Errors come out mapped. */
  private async attempt<R>(session: ClientSession, work: (tx: Tx) => Promise<R>, deadline: number): Promise<R> {
    session.startTransaction({
      readConcern: { level: 'snapshot' },
      writeConcern: { w: 'majority' },
      readPreference: 'primary',
      maxCommitTimeMS: this.timeoutMs,
    });
    const tx: MongoTx = { id: randomUUID(), session, active: true, abortReason: undefined };
    this.txs.add(tx);
    let result: R;
    try {
      result = await work(tx);
      if (tx.abortReason !== undefined) throw new TransactionAbortedError(tx.abortReason);
    } catch (err) {
      tx.active = false;
      if (session.inTransaction()) await this.bounded(session.abortTransaction(), 'abortTransaction').catch(() => undefined);
      throw mapError(err, 'transaction');
    }
    tx.active = false;
    for (;;) {
      try {
        await this.bounded(session.commitTransaction(), 'commitTransaction');
        return result;
      } catch (err) {
        // The commit may or may not have happened: committing again is safe (the driver makes it idempotent).
        if (hasErrorLabel(err, 'UnknownTransactionCommitResult') && !isTimeout(err) && Date.now() < deadline) {
          await sleep(transactionBackoffMs(1));
          continue;
        }
        if (session.inTransaction()) await this.bounded(session.abortTransaction(), 'abortTransaction').catch(() => undefined);
        throw mapError(err, 'transaction');
      }
    }
  }

  /** The open transaction of a Tx, or undefined; fails for a Tx that ended or was aborted. */
  activeTx(tx: Tx | undefined): MongoTx | undefined {
    if (tx === undefined) return undefined;
    const mongoTx = tx as MongoTx;
    if (!this.txs.has(mongoTx)) throw new Error('mongo store: tx belongs to another store');
    if (mongoTx.abortReason !== undefined) throw new TransactionAbortedError(mongoTx.abortReason);
    if (!mongoTx.active) throw new Error('mongo store: transaction is no longer active');
    return mongoTx;
  }

  /** Ready when connected to a replica set primary (or mongos) that answers `hello` in time. */
  async ready(): Promise<boolean> {
    const db = this.conn.db;
    if (this.conn.readyState !== mongoose.ConnectionStates.connected || !db) return false;
    try {
      const hello = await this.bounded(db.admin().command({ hello: 1 }), 'hello');
      return readinessFromHello(hello).ready;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.conn.close();
  }
}

function isTimeout(err: unknown): boolean {
  return err instanceof StoreUnavailableError || (err instanceof mongoose.mongo.MongoError && TIMEOUT_CODES.has(Number(codeOf(err))));
}

export async function createMongoStore(opts: MongoStoreOptions): Promise<DocumentStore> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
  // A private Mongoose instance: global mongoose settings or plugins of other code don't leak in.
  const base = new mongoose.Mongoose();
  const conn = base.createConnection(opts.url, {
    dbName: opts.dbName,
    serverSelectionTimeoutMS: timeoutMs,
    // A backstop that frees a connection whose server went silent. Callers are answered at the
    // limit by the client-side bound; this is longer so that index builds at init can finish.
    socketTimeoutMS: Math.max(SOCKET_TIMEOUT_FLOOR_MS, timeoutMs * 10),
    connectTimeoutMS: timeoutMs,
    waitQueueTimeoutMS: timeoutMs,
    // Collections and indexes are created by init() (and before a collection's first operation).
    autoIndex: false,
    autoCreate: false,
    // No mongoose-side buffering of operations while disconnected: they fail fast and bounded.
    bufferCommands: false,
  });
  try {
    await conn.asPromise();
  } catch (err) {
    await conn.close().catch(() => undefined);
    throw mapError(err, 'connect');
  }
  return new MongoStore(conn, timeoutMs);
}
