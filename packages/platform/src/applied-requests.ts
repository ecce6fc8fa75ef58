// Service-side idempotency, shared by every service: the `Idempotency-Key` of a write travels
// into the service (the `idempotency_key` field of the RPC) and is stored, unique, in the
// service's own database in the SAME store.transaction() as the write. A retry that reaches the
// service (after a gateway crash between the service's commit and the gateway's record, or
// after a 5xx whose write did commit) finds the key and answers the first outcome instead of
// writing again; a key reused with another request is refused as the gateway refuses it
// (409 idempotency_conflict).
//
// One collection per service database, `applied_requests`: `_id` = `workspaceId:key`, the
// operation, a fingerprint of the request and `result`, a reference to what the retry must
// answer (the id of the record written, or a small JSON document). Keys expire after 24 h:
// a TTL index on MongoDB; both engines read an expired key as absent and the next write with
// the key replaces it, and the embedded engine (which has no TTL monitor) sweeps expired keys
// from time to time.
import { createHash } from 'node:crypto';
import { Schema } from 'mongoose';
import { AppError } from './errors/app-error';
import { DuplicateKeyError, type Collection, type DocumentStore, type Tx } from './store/port';

export const APPLIED_REQUESTS = 'applied_requests';
/** As long as the gateway keeps its idempotency records. */
export const APPLIED_REQUEST_TTL_MS = 24 * 60 * 60 * 1000;
/** How often the embedded engine removes expired keys (MongoDB's TTL monitor does it there). */
const SWEEP_EVERY_MS = 60 * 60 * 1000;

export type AppliedRequestDoc = {
  _id: string;
  workspaceId: string;
  key: string;
  operation: string;
  fingerprint: string;
  result: string;
  createdAt: Date;
  expiresAt: Date;
  [field: string]: unknown;
};

export const appliedRequestSchema = new Schema(
  {
    _id: { type: String, required: true }, // `${workspaceId}:${key}`
    workspaceId: { type: String, required: true },
    key: { type: String, required: true },
    operation: { type: String, required: true },
    fingerprint: { type: String, required: true },
    result: { type: String, default: '' },
    createdAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
  },
  { versionKey: false },
);
appliedRequestSchema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });

/** One keyed request: who sent it, with which key, for what, and the digest of what it asked. */
export interface RequestKey {
  workspaceId: string;
  key: string;
  operation: string;
  fingerprint: string;
}

/** JSON with object keys sorted, so that equal requests give equal text whatever their field order. */
function canonical(value: unknown): string {
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return JSON.stringify(Buffer.from(value).toString('base64'));
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * The key of a keyed RPC, or null when it carries none (an un-keyed write runs as before).
 * The fingerprint covers the operation and the whole request except the key itself.
 */
export function requestKey<T extends { workspaceId: string; idempotencyKey: string }>(operation: string, request: T): RequestKey | null {
  if (!request.idempotencyKey) return null;
  const { idempotencyKey: key, ...rest } = request;
  const fingerprint = createHash('sha256')
    .update(`${operation}\n${canonical(rest)}`)
    .digest('base64url');
  return { workspaceId: request.workspaceId, key, operation, fingerprint };
}

/** True when `err` is the unique `_id` of applied_requests: a concurrent request with the key committed first. */
export const isAppliedRequestDuplicate = (err: unknown): boolean => err instanceof DuplicateKeyError && err.collection === APPLIED_REQUESTS;

export class AppliedRequests {
  readonly collection: Collection<AppliedRequestDoc>;
  private lastSweep = 0;

  constructor(
    private readonly store: DocumentStore,
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.collection = store.collection<AppliedRequestDoc>({ name: APPLIED_REQUESTS, schema: appliedRequestSchema });
  }

  /**
   * The result stored for this key if a request with it was applied within 24 h; null if none.
   * The same key with another operation or request is `idempotency_conflict`.
   */
  async lookup(req: RequestKey, tx?: Tx): Promise<string | null> {
    const doc = await this.collection.findOne({ _id: `${req.workspaceId}:${req.key}`, expiresAt: { $gt: this.clock() } }, { tx });
    if (!doc) return null;
    if (doc.operation !== req.operation || doc.fingerprint !== req.fingerprint) throw new AppError('idempotency_conflict');
    return doc.result;
  }

  /**
   * Stores the key with its result inside the write's own transaction (no-op without a key).
   * A second writer of the same key gets a DuplicateKeyError that aborts its transaction, so
   * the write is applied once; an expired key is replaced.
   */
  async remember(req: RequestKey | null, result: string, tx: Tx): Promise<void> {
    if (!req) return;
    const now = this.clock();
    const _id = `${req.workspaceId}:${req.key}`;
    await this.collection.deleteOne({ _id, expiresAt: { $lte: now } }, { tx });
    await this.collection.insertOne(
      {
        _id,
        workspaceId: req.workspaceId,
        key: req.key,
        operation: req.operation,
        fingerprint: req.fingerprint,
        result,
        createdAt: now,
        expiresAt: new Date(now.getTime() + APPLIED_REQUEST_TTL_MS),
      },
      { tx },
    );
    this.sweepSoon(now);
  }

  /**
   * Runs a keyed write once: a key already applied answers `replay(result)` without running
   * `run` (so nothing is written and nothing is relayed to a PMS twice); `run` must call
   * `remember(req, result, tx)` in the transaction of its write. If a concurrent request with
   * the same key commits first, this one's transaction fails on the key and the first one's
   * outcome is answered.
   */
  async once<R>(req: RequestKey | null, run: () => Promise<R>, replay: (result: string) => Promise<R>): Promise<R> {
    if (!req) return run();
    const done = await this.lookup(req);
    if (done !== null) return replay(done);
    try {
      return await run();
    } catch (err) {
      if (!isAppliedRequestDuplicate(err)) throw err;
      const first = await this.lookup(req);
      if (first === null) throw err;
      return replay(first);
    }
  }

  /** Removes expired keys (MongoDB's TTL index does it by itself; the embedded engine needs this). */
  async purgeExpired(): Promise<number> {
    const { deletedCount } = await this.collection.deleteMany({ expiresAt: { $lte: this.clock() } });
    return deletedCount;
  }

  private sweepSoon(now: Date): void {
    if (this.store.engine !== 'memory' || now.getTime() - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now.getTime();
    // After the write's transaction, outside it; a failed sweep is retried at the next interval.
    setImmediate(() => void this.purgeExpired().catch(() => undefined));
  }
}
