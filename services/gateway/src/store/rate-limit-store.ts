// rate-limiter-flexible counters kept in the gateway's own database, through the document-store
// port: MongoDB in production (so every gateway replica counts against the same numbers) and
// the embedded engine by default. The library does the limiting; this class is its documented
// extension point for a store it does not ship (RateLimiterStoreAbstract: _upsert, _get,
// _delete, _getRateLimiterRes), written with the same documents as its own RateLimiterMongo:
// one counter per key, `$inc` while its window lasts, replaced once the window has passed.
import { type RateLimiterStoreAbstract as StoreAbstractType, type IRateLimiterStoreOptions, RateLimiterRes } from 'rate-limiter-flexible';
import { Schema } from 'mongoose';
import { DuplicateKeyError, type Collection, type DocumentStore } from '@vrp/platform/store';

const rateLimitCounterSchema = new Schema(
  {
    /** `<limiter prefix>:<key>`, e.g. `rl:key:key_…`; unique, so racing first writers collide. */
    _id: { type: String, required: true },
    points: { type: Number, required: true },
    /** End of the counter's window; null = no expiry (never set by the gateway's limiters). */
    expire: { type: Date, default: null },
  },
  { versionKey: false },
);
// MongoDB removes counters whose window has passed (the embedded engine sweeps, see below).
rateLimitCounterSchema.index({ expire: 1 }, { expireAfterSeconds: 0 });

// The abstract store class is part of the library's API (typed in its types.d.ts) but not
// re-exported by its index; it is loaded from its module.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const RateLimiterStoreAbstract = require('rate-limiter-flexible/lib/RateLimiterStoreAbstract') as typeof StoreAbstractType;

type CounterDoc = { _id: string; points: number; expire: Date | null };

/** Expired counters are swept once every this many writes (MongoDB's TTL index does it too). */
const SWEEP_EVERY_WRITES = 5000;

const live = (now: Date) => ({ $or: [{ expire: { $gt: now } }, { expire: null }] });

export function rateLimitCounters(store: DocumentStore): Collection<CounterDoc> {
  return store.collection<CounterDoc>({ name: 'rate_limits', schema: rateLimitCounterSchema });
}

export class RateLimiterDocumentStore extends RateLimiterStoreAbstract {
  private readonly counters: Collection<CounterDoc>;
  private writes = 0;

  constructor(opts: Omit<IRateLimiterStoreOptions, 'storeClient'> & { counters: Collection<CounterDoc> }) {
    super({ ...opts, storeClient: opts.counters });
    this.counters = opts.counters;
  }

  _getRateLimiterRes(_rlKey: string, changedPoints: number, doc: CounterDoc): RateLimiterRes {
    const msBeforeNext = doc.expire === null ? -1 : Math.max(doc.expire.getTime() - Date.now(), 0);
    return new RateLimiterRes(Math.max(this.points - doc.points, 0), msBeforeNext, doc.points, doc.points === changedPoints);
  }

  async _upsert(key: string, points: number, msDuration: number, forceExpire = false): Promise<CounterDoc> {
    this.sweepNow();
    const now = new Date();
    const expire = msDuration > 0 ? new Date(now.getTime() + msDuration) : null;
    if (forceExpire) {
      return (await this.counters.findOneAndUpdate({ _id: key }, { $set: { points, expire } }, { upsert: true, returnDocument: 'after' }))!;
    }
    try {
      // Inside the window: count. No live counter: insert one (the unique _id decides races).
      const doc = await this.counters.findOneAndUpdate(
        { _id: key, ...live(now) },
        { $inc: { points }, $setOnInsert: { expire } },
        { upsert: true, returnDocument: 'after' },
      );
      return doc!;
    } catch (err) {
      if (!(err instanceof DuplicateKeyError)) throw err;
    }
    // An expired counter is in the way: start a new window over it, unless another writer just did.
    const replaced = await this.counters.findOneAndUpdate({ _id: key, expire: { $lte: now } }, { $set: { points, expire } }, { returnDocument: 'after' });
    return replaced ?? this._upsert(key, points, msDuration, false);
  }

  async _get(key: string): Promise<CounterDoc | null> {
    return this.counters.findOne({ _id: key, ...live(new Date()) });
  }

  async _delete(key: string): Promise<boolean> {
    return (await this.counters.deleteOne({ _id: key })).deletedCount > 0;
  }

  /** Drops counters whose window has passed, every SWEEP_EVERY_WRITES writes, in the background. */
  private sweepNow(): void {
    this.writes += 1;
    if (this.writes % SWEEP_EVERY_WRITES !== 0) return;
    this.counters.deleteMany({ expire: { $lte: new Date() } }).catch(() => undefined);
  }
}
