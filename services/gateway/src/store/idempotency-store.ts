// Idempotency records: one per (scope, key). A request claims its key by inserting a pending
// record (the unique index decides races) that names its holder (this gateway process) and a
// short lease the request renews while it runs; it completes the record with the response to
// replay, or releases it when the outcome must not be replayed. A pending record whose lease
// ran out belongs to a request that died with its process: the next retry takes it over.
//
// Only the completed record, the response a retry is answered with, is journaled before the
// reply. Claims, renewals, takeovers and releases are written unjournaled (`journal: false`):
// acknowledged once applied, on disk in commit order shortly after. A crash that loses one loses
// a pending record of a request that died with that crash, which is what a takeover after the
// lease would do anyway. This keeps one wait for the disk, instead of two, ahead of every keyed
// write, whose service journals the key with the write itself (applied_requests).
import { randomUUID } from 'node:crypto';
import { DuplicateKeyError, type Collection, type DocumentStore } from '@vrp/platform/store';
import { newId } from '@vrp/platform/ids';
import { IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_TTL_MS, secondsUntil } from '../domain/idempotency';
import { idempotencyRecordSchema } from './schemas';

/** Pending records: acknowledged before they are on disk (see above). */
const UNJOURNALED = { journal: false } as const;

type IdempotencyDoc = {
  _id: string;
  scope: string;
  key: string;
  fingerprint: string;
  state: 'pending' | 'completed';
  holder?: string;
  lockedUntil: Date;
  status: number | null;
  responseJson: string | null;
  /** The response's ETag, replayed with it; null when it had none. */
  etag?: string | null;
  createdAt: Date;
  expiresAt: Date;
};

export type ClaimOutcome =
  | { kind: 'claimed'; recordId: string }
  | { kind: 'replay'; status: number; body: unknown; etag?: string }
  | { kind: 'fingerprint_mismatch' }
  /** `retryAfterSeconds`: when the running request's lease ends unless it renews it (it renews while it runs). */
  | { kind: 'in_progress'; retryAfterSeconds: number };

export class IdempotencyStore {
  private readonly records: Collection<IdempotencyDoc>;
  /** This process, as the holder of the keys its requests claim. */
  readonly holder = randomUUID();

  constructor(
    store: DocumentStore,
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.records = store.collection<IdempotencyDoc>({ name: 'idempotency_records', schema: idempotencyRecordSchema });
  }

  async claim(scope: string, key: string, fingerprint: string): Promise<ClaimOutcome> {
    // Two attempts at most: the second runs after an expired record was cleared out of the way.
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const now = this.clock();
      const recordId = newId('idem');
      try {
        await this.records.insertOne(
          {
            _id: recordId,
            scope,
            key,
            fingerprint,
            state: 'pending',
            holder: this.holder,
            lockedUntil: new Date(now.getTime() + IDEMPOTENCY_LEASE_MS),
            status: null,
            responseJson: null,
            createdAt: now,
            expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
          },
          UNJOURNALED,
        );
        return { kind: 'claimed', recordId };
      } catch (err) {
        if (!(err instanceof DuplicateKeyError)) throw err;
      }
      const existing = await this.records.findOne({ scope, key });
      if (!existing) continue; // released or expired in between: claim again
      if (existing.expiresAt <= now) {
        await this.records.deleteOne({ _id: existing._id, expiresAt: { $lte: now } }, UNJOURNALED);
        continue;
      }
      if (existing.fingerprint !== fingerprint) return { kind: 'fingerprint_mismatch' };
      if (existing.state === 'completed' && existing.status !== null && existing.responseJson !== null) {
        return {
          kind: 'replay',
          status: existing.status,
          body: JSON.parse(existing.responseJson) as unknown,
          ...(existing.etag ? { etag: existing.etag } : {}),
        };
      }
      // Pending: another request is still running, unless it died and its lease ran out. (Taking
      // over a request that is only slow is safe too: the service stores the key with its write.)
      const takenOver = await this.records.findOneAndUpdate(
        { _id: existing._id, state: 'pending', lockedUntil: { $lte: now } },
        { $set: { holder: this.holder, lockedUntil: new Date(now.getTime() + IDEMPOTENCY_LEASE_MS) } },
        UNJOURNALED,
      );
      return takenOver ? { kind: 'claimed', recordId: takenOver._id } : { kind: 'in_progress', retryAfterSeconds: secondsUntil(existing.lockedUntil, now) };
    }
    return { kind: 'in_progress', retryAfterSeconds: 1 };
  }

  /** Extends the lease of a record this process holds; false once it no longer holds it. */
  async renew(recordId: string): Promise<boolean> {
    const res = await this.records.updateOne(
      { _id: recordId, state: 'pending', holder: this.holder },
      { $set: { lockedUntil: new Date(this.clock().getTime() + IDEMPOTENCY_LEASE_MS) } },
      UNJOURNALED,
    );
    return res.matchedCount > 0;
  }

  /** Records the response to replay, while this process holds the record. */
  async complete(recordId: string, status: number, body: unknown, etag: string | null = null): Promise<void> {
    await this.records.updateOne(
      { _id: recordId, state: 'pending', holder: this.holder },
      { $set: { state: 'completed', status, responseJson: JSON.stringify(body), etag } },
    );
  }

  async release(recordId: string): Promise<void> {
    await this.records.deleteOne({ _id: recordId, state: 'pending', holder: this.holder }, UNJOURNALED);
  }
}
