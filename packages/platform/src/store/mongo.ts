// The MongoDB engine, through mongoose: the schema casts and validates, the server evaluates the
// filter / update documents. Transactions need a replica set (a single-node one is enough).
import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import type { ClientSession, Connection, Model } from 'mongoose';
import {
  DocumentValidationError,
  DuplicateKeyError,
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
} from './port';
import { isPlainObject, prepareSchema, upsertDeterminesId, validationFields } from './shared';

export interface MongoStoreOptions {
  url: string;
  dbName?: string;
  /** How long an operation waits for a reachable server before failing (default 10s). */
  serverSelectionTimeoutMS?: number;
}

type RawDoc = Record<string, unknown>;

const TO_OBJECT = { depopulate: true, versionKey: false, flattenMaps: true } as const;
const RETRY_LABELS = ['TransientTransactionError', 'UnknownTransactionCommitResult'];

function hasErrorLabel(err: unknown, label: string): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const fn: unknown = Reflect.get(err, 'hasErrorLabel');
  return typeof fn === 'function' && fn.call(err, label) === true;
}

/** keyPattern of an E11000 error, wherever the driver put it (server error or bulk write). */
function duplicateKeyPattern(err: object): Record<string, unknown> {
  const candidates: unknown[] = [
    Reflect.get(err, 'keyPattern'),
    Reflect.get(Reflect.get(err, 'errorResponse') ?? {}, 'keyPattern'),
  ];
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

/**
 * Turns driver / mongoose errors into the port's errors. Inside a transaction, errors carrying a
 * retry label are passed through untouched: withTransaction only retries on a MongoError.
 */
function mapError(err: unknown, collection: string, inTx: boolean): unknown {
  // Anything else (the caller's own errors thrown inside a transaction) passes through as is.
  const isDriverError = err instanceof mongoose.mongo.MongoError;
  if (isDriverError && inTx && RETRY_LABELS.some((l) => hasErrorLabel(err, l))) return err;
  if (isDriverError && codeOf(err) === 11000) return new DuplicateKeyError(collection, duplicateKeyPattern(err));
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

  private async run<R>(tx: Tx | undefined, op: (session: ClientSession | undefined) => Promise<R>): Promise<R> {
    const session = this.store.sessionOf(tx);
    try {
      await this.ensureReady();
      return await op(session);
    } catch (err) {
      throw mapError(err, this.name, session !== undefined);
    }
  }

  insertOne(doc: T, opts: WriteOptions = {}): Promise<T> {
    return this.run(opts.tx, async (session) => {
      const created = new this.model(doc);
      await created.save(session ? { session } : {});
      return created.toObject(TO_OBJECT) as unknown as T;
    });
  }

  insertMany(docs: T[], opts: WriteOptions = {}): Promise<T[]> {
    return this.run(opts.tx, async (session) => {
      const created = await this.model.insertMany(docs, { session, ordered: true });
      return created.map((d) => d.toObject(TO_OBJECT) as unknown as T);
    });
  }

  findOne(filter: Filter, opts: FindOptions & WriteOptions = {}): Promise<T | null> {
    return this.run(opts.tx, async (session) => {
      const found = await this.model
        .findOne(filter, opts.projection ?? null, { session, sort: opts.sort, skip: opts.skip })
        .lean()
        .exec();
      return found as unknown as T | null;
    });
  }

  find(filter: Filter, opts: FindOptions & WriteOptions = {}): Promise<T[]> {
    return this.run(opts.tx, async (session) => {
      const found = await this.model
        .find(filter, opts.projection ?? null, { session, sort: opts.sort, skip: opts.skip, limit: opts.limit })
        .lean()
        .exec();
      return found as unknown as T[];
    });
  }

  countDocuments(filter: Filter, opts: WriteOptions = {}): Promise<number> {
    return this.run(opts.tx, (session) => this.model.countDocuments(filter, { session }).exec());
  }

  updateOne(filter: Filter, update: Update, opts: UpdateOptions = {}): Promise<UpdateResult> {
    return this.run(opts.tx, async (session) => {
      const res = await this.model
        .updateOne(filter, this.withUpsertId(filter, update, opts.upsert), {
          session,
          upsert: opts.upsert === true,
          runValidators: true,
        })
        .exec();
      return toUpdateResult(res);
    });
  }

  updateMany(filter: Filter, update: Update, opts: UpdateOptions = {}): Promise<UpdateResult> {
    return this.run(opts.tx, async (session) => {
      const res = await this.model
        .updateMany(filter, this.withUpsertId(filter, update, opts.upsert), {
          session,
          upsert: opts.upsert === true,
          runValidators: true,
        })
        .exec();
      return toUpdateResult(res);
    });
  }

  findOneAndUpdate(filter: Filter, update: Update, opts: FindOneAndUpdateOptions = {}): Promise<T | null> {
    return this.run(opts.tx, async (session) => {
      const found = await this.model
        .findOneAndUpdate(filter, this.withUpsertId(filter, update, opts.upsert), {
          session,
          upsert: opts.upsert === true,
          sort: opts.sort,
          returnDocument: opts.returnDocument ?? 'after',
          runValidators: true,
        })
        .lean()
        .exec();
      return found as unknown as T | null;
    });
  }

  deleteOne(filter: Filter, opts: WriteOptions = {}): Promise<{ deletedCount: number }> {
    return this.run(opts.tx, async (session) => {
      const res = await this.model.deleteOne(filter, { session }).exec();
      return { deletedCount: res.deletedCount };
    });
  }

  deleteMany(filter: Filter, opts: WriteOptions = {}): Promise<{ deletedCount: number }> {
    return this.run(opts.tx, async (session) => {
      const res = await this.model.deleteMany(filter, { session }).exec();
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

function toUpdateResult(res: { matchedCount: number; modifiedCount: number; upsertedId?: unknown }): UpdateResult {
  const id = res.upsertedId;
  return {
    matchedCount: res.matchedCount,
    modifiedCount: res.modifiedCount,
    upsertedId: id === null || id === undefined ? null : String(id),
  };
}

class MongoStore implements DocumentStore {
  readonly engine = 'mongo' as const;
  private readonly collections = new Map<string, MongoCollection<Doc>>();
  private readonly sessions = new WeakMap<Tx, ClientSession>();

  constructor(private readonly conn: Connection) {}

  collection<T extends Doc>(spec: CollectionSpec): Collection<T> {
    let coll = this.collections.get(spec.name);
    if (!coll) {
      coll = new MongoCollection<Doc>(spec.name, spec.schema, this, this.conn);
      this.collections.set(spec.name, coll);
    }
    return coll as unknown as Collection<T>;
  }

  async init(): Promise<void> {
    await Promise.all([...this.collections.values()].map((c) => c.ensureReady()));
  }

  async transaction<R>(work: (tx: Tx) => Promise<R>): Promise<R> {
    try {
      // withTransaction re-runs `work` on TransientTransactionError, each time with a fresh Tx.
      return await this.conn.transaction(async (session) => {
        const tx: Tx = { id: randomUUID() };
        this.sessions.set(tx, session);
        try {
          return await work(tx);
        } finally {
          this.sessions.delete(tx);
        }
      });
    } catch (err) {
      throw mapError(err, 'transaction', false);
    }
  }

  sessionOf(tx: Tx | undefined): ClientSession | undefined {
    if (tx === undefined) return undefined;
    const session = this.sessions.get(tx);
    if (!session) throw new Error('mongo store: transaction is no longer active or belongs to another store');
    return session;
  }

  async ready(): Promise<boolean> {
    const db = this.conn.db;
    if (this.conn.readyState !== mongoose.ConnectionStates.connected || !db) return false;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), 2000);
    });
    try {
      const ping = db.admin().ping().then(
        () => true,
        () => false,
      );
      return await Promise.race([ping, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await this.conn.close();
  }
}

export async function createMongoStore(opts: MongoStoreOptions): Promise<DocumentStore> {
  // A private Mongoose instance: global mongoose settings or plugins of other code don't leak in.
  const base = new mongoose.Mongoose();
  const conn = base.createConnection(opts.url, {
    dbName: opts.dbName,
    serverSelectionTimeoutMS: opts.serverSelectionTimeoutMS ?? 10_000,
    // Collections and indexes are created explicitly, once, before a collection's first operation.
    autoIndex: false,
    autoCreate: false,
  });
  try {
    await conn.asPromise();
  } catch (err) {
    await conn.close().catch(() => undefined);
    throw mapError(err, 'connect', false);
  }
  return new MongoStore(conn);
}
