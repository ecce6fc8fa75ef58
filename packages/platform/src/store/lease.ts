// A write lease on one document: serializes the writes that must leave the system before they
// are stored (a change relayed to a PMS, then stored). Two such writes of one record would
// otherwise reach the PMS in one order and commit here in the other. The lease is two fields
// on the document itself (`leaseToken`, `leaseUntil`), taken with one guarded update, so it
// works the same on both engines and outside transactions; it expires by itself when its
// holder dies, so a crash never blocks a record for longer than the lease.
import { randomUUID } from 'node:crypto';
import { AppError } from '../errors';
import type { Collection, Doc, Filter } from './port';

export interface LeaseOptions {
  /** How long the lease holds without being released (well above the relay's own deadline). */
  ttlMs?: number;
  /** How long to wait for another holder before giving up with 409 conflict. */
  waitMs?: number;
  now?: () => Date;
}

const DEFAULT_TTL_MS = 15_000;
const DEFAULT_WAIT_MS = 8_000;
const POLL_MS = 25;

/** The schema fields a leased collection needs (mongoose paths). */
export const LEASE_FIELDS = {
  leaseToken: { type: String, default: '' },
  leaseUntil: { type: Date, default: null },
} as const;

export interface Lease {
  token: string;
  /** Add to the filter of the write that ends the lease: it only applies while the lease is held. */
  held: Filter;
  /** Add to the $set of that write: it releases the lease. */
  release: { leaseToken: string; leaseUntil: null };
}

/**
 * Takes the lease on the document `filter` names, waiting while another holder has it.
 * Resolves null when no such document exists.
 */
export async function acquireLease<T extends Doc>(collection: Collection<T>, filter: Filter, opts: LeaseOptions = {}): Promise<Lease | null> {
  const now = opts.now ?? (() => new Date());
  const ttl = opts.ttlMs ?? DEFAULT_TTL_MS;
  const deadline = Date.now() + (opts.waitMs ?? DEFAULT_WAIT_MS);
  const token = randomUUID();
  for (;;) {
    const at = now();
    const taken = await collection.findOneAndUpdate(
      { ...filter, $or: [{ leaseUntil: null }, { leaseUntil: { $lte: at } }] },
      { $set: { leaseToken: token, leaseUntil: new Date(at.getTime() + ttl) } },
    );
    if (taken) return { token, held: { leaseToken: token }, release: { leaseToken: '', leaseUntil: null } };
    if (!(await collection.findOne(filter))) return null;
    if (Date.now() >= deadline) {
      throw new AppError(
        'conflict',
        'The record is being changed by another request; nothing was changed by this one.',
        { retryAfterSeconds: 1 },
        'Retry the request.',
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Gives the lease back without writing anything else (the relayed write failed). */
export async function releaseLease<T extends Doc>(collection: Collection<T>, filter: Filter, lease: Lease): Promise<void> {
  await collection.updateOne({ ...filter, ...lease.held }, { $set: lease.release });
}
