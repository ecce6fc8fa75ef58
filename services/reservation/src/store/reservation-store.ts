// Queries of the reservation service, written once as Mongo documents for both engines.
import { AppError, notFound } from '@vrp/platform/errors';
import { APPLIED_REQUEST_TTL_MS } from '@vrp/platform/applied-requests';
import { DuplicateKeyError, type Collection, type DocumentStore, type Filter, type Lease, type Tx } from '@vrp/platform/store';
import { findPage, type PageWindow } from '@vrp/platform/paging';
import type { ReservationFilters, ReservationRecord } from '../domain/reservation';
import { reservationSchema } from './schemas';

/** Creates remember their key on the reservation for as long as applied_requests do (bookedAt is when the create was stored). */
const keyCutoff = (now: Date) => new Date(now.getTime() - APPLIED_REQUEST_TTL_MS);

export type ReservationDoc = Omit<ReservationRecord, 'id'> & { _id: string; leaseToken?: string; leaseUntil?: Date | null; [field: string]: unknown };

// Documents written before a field existed read with its default.
const toRecord = ({ _id, leaseToken: _t, leaseUntil: _u, ...rest }: ReservationDoc): ReservationRecord => ({
  id: _id,
  ...rest,
  customFields: rest.customFields ?? {},
  notes: { host: rest.notes?.host ?? '', guest: rest.notes?.guest ?? '' },
  version: rest.version ?? 0,
  conflictsWith: rest.conflictsWith ?? [],
  idempotencyKey: rest.idempotencyKey ?? '',
});
export const toDoc = ({ id, ...rest }: ReservationRecord): ReservationDoc => ({ _id: id, ...rest });

export interface ListScope {
  /** Today (UTC, YYYY-MM-DD): POST_STAY and CONFIRMED are split on it. */
  today: string;
  /** Listings whose reservations are left out (inactive ones); ignored when a property is named. */
  excludedPropertyIds: string[];
}

/** The Mongo filter of a list request; the workspace is always part of it. */
export function reservationFilter(workspaceId: string, f: ReservationFilters, scope: ListScope): Filter {
  const filter: Filter = { workspaceId };
  if (f.status === 'POST_STAY') {
    // "The stay has ended": confirmed, and the check-out day has come.
    filter.status = 'CONFIRMED';
    filter.checkOut = { $lte: scope.today };
  } else if (f.status === 'CONFIRMED') {
    filter.status = 'CONFIRMED';
    filter.checkOut = { $gt: scope.today };
  } else if (f.status) {
    filter.status = f.status;
  }
  if (f.propertyId) filter.propertyId = f.propertyId;
  else if (scope.excludedPropertyIds.length > 0) filter.propertyId = { $nin: scope.excludedPropertyIds };
  if (f.source) filter.source = f.source;
  if (f.checkInAfter || f.checkInBefore) {
    // YYYY-MM-DD strings compare lexicographically in calendar order; both bounds inclusive.
    filter.checkIn = { ...(f.checkInAfter ? { $gte: f.checkInAfter } : {}), ...(f.checkInBefore ? { $lte: f.checkInBefore } : {}) };
  }
  if (f.updatedSince) filter.updatedAt = { $gt: f.updatedSince };
  return filter;
}

const duplicate = () => new AppError('conflict', 'A reservation with this id or confirmation code already exists in this workspace.');

export class ReservationStore {
  readonly reservations: Collection<ReservationDoc>;

  constructor(readonly store: DocumentStore) {
    this.reservations = store.collection<ReservationDoc>({ name: 'reservations', schema: reservationSchema });
  }

  async page(workspaceId: string, filters: ReservationFilters, scope: ListScope, window: PageWindow): Promise<{ items: ReservationRecord[]; total: number }> {
    const { docs, total } = await findPage(this.reservations, reservationFilter(workspaceId, filters, scope), { checkIn: 1, _id: 1 }, window);
    return { items: docs.map(toRecord), total };
  }

  /** not_found both when the id does not exist and when it belongs to another workspace. */
  async get(workspaceId: string, id: string, tx?: Tx): Promise<ReservationRecord> {
    const doc = await this.reservations.findOne({ workspaceId, _id: id }, { tx });
    if (!doc) throw notFound('reservation', id);
    return toRecord(doc);
  }

  /** The reservation a PMS knows by `externalId`, if it reached this service already. */
  async findByPmsId(workspaceId: string, provider: string, externalId: string, tx?: Tx): Promise<ReservationRecord | null> {
    const doc = await this.reservations.findOne({ workspaceId, pmsProvider: provider, pmsExternalId: externalId }, { tx });
    return doc ? toRecord(doc) : null;
  }

  /** Inserts; a duplicate id, confirmation code or PMS id is a DuplicateKeyError for the caller to judge. */
  async insertRaw(reservation: ReservationRecord, tx?: Tx): Promise<ReservationRecord> {
    return toRecord(await this.reservations.insertOne(toDoc(reservation), { tx }));
  }

  async insert(reservation: ReservationRecord, tx?: Tx): Promise<ReservationRecord> {
    try {
      return await this.insertRaw(reservation, tx);
    } catch (err) {
      // A raw DuplicateKeyError would reach the gRPC layer as internal_error.
      if (err instanceof DuplicateKeyError) throw duplicate();
      throw err;
    }
  }

  /** Bulk load (benchmarks, imports): one call, no events. */
  async insertMany(reservations: ReservationRecord[]): Promise<void> {
    await this.reservations.insertMany(reservations.map(toDoc));
  }

  /** The reservation a create with this Idempotency-Key wrote within the last 24 h, if any. */
  async findByIdempotencyKey(workspaceId: string, key: string, now: Date, tx?: Tx): Promise<ReservationRecord | null> {
    const doc = await this.reservations.findOne({ workspaceId, idempotencyKey: key, bookedAt: { $gt: keyCutoff(now) } }, { tx });
    return doc ? toRecord(doc) : null;
  }

  /** Keys expire after 24 h: an older create's key is cleared so that the key can be used again. */
  async releaseExpiredKey(workspaceId: string, key: string, now: Date, tx: Tx): Promise<void> {
    await this.reservations.updateMany({ workspaceId, idempotencyKey: key, bookedAt: { $lte: keyCutoff(now) } }, { $set: { idempotencyKey: '' } }, { tx });
  }

  /**
   * Replaces the mutable fields, guarded by the version read: null when another request
   * changed the reservation meanwhile (nothing is written then; the caller decides between
   * re-reading and 412). `next.version` must be the read version + 1.
   */
  async replaceIfVersion(next: ReservationRecord, readVersion: number, tx: Tx, lease?: Lease | null): Promise<ReservationRecord | null> {
    const { _id, workspaceId, ...fields } = toDoc(next);
    // Documents written before versions existed have no field: they are version 0.
    const version = readVersion === 0 ? { $in: [0, null] } : readVersion;
    const doc = await this.reservations.findOneAndUpdate(
      { workspaceId, _id, version, ...(lease?.held ?? {}) },
      { $set: { ...fields, ...(lease?.release ?? {}) } },
      { tx, returnDocument: 'after' },
    );
    return doc ? toRecord(doc) : null;
  }

  /** Any workspace's reservation by id (maintenance scans only; requests always name their workspace). */
  async byId(id: string, tx?: Tx): Promise<ReservationRecord | null> {
    const doc = await this.reservations.findOne({ _id: id }, { tx });
    return doc ? toRecord(doc) : null;
  }

  /** Flags overlaps with `withIds` in one change (a new version); null when the reservation is gone. */
  async addConflicts(workspaceId: string, id: string, withIds: string[], at: Date, tx: Tx): Promise<ReservationRecord | null> {
    const doc = await this.reservations.findOneAndUpdate(
      { workspaceId, _id: id },
      { $addToSet: { conflictsWith: { $each: withIds } }, $inc: { version: 1 }, $set: { updatedAt: at } },
      { tx, returnDocument: 'after' },
    );
    return doc ? toRecord(doc) : null;
  }

  /** The reservation, or null when there is none with this id in the workspace. */
  async find(workspaceId: string, id: string, tx?: Tx): Promise<ReservationRecord | null> {
    const doc = await this.reservations.findOne({ workspaceId, _id: id }, { tx });
    return doc ? toRecord(doc) : null;
  }

  /** The overlap with `withId` ended: the flag goes (a new version); null when it was not flagged. */
  async removeConflict(workspaceId: string, id: string, withId: string, at: Date, tx: Tx): Promise<ReservationRecord | null> {
    const doc = await this.reservations.findOneAndUpdate(
      { workspaceId, _id: id, conflictsWith: withId },
      { $pull: { conflictsWith: withId }, $inc: { version: 1 }, $set: { updatedAt: at } },
      { tx, returnDocument: 'after' },
    );
    return doc ? toRecord(doc) : null;
  }

  /** Sets the conflicts of the version just written in `tx` (part of that write: no new version). */
  async setConflicts(r: ReservationRecord, conflictsWith: string[], tx: Tx): Promise<ReservationRecord> {
    const doc = await this.reservations.findOneAndUpdate(
      { workspaceId: r.workspaceId, _id: r.id, version: r.version },
      { $set: { conflictsWith } },
      { tx, returnDocument: 'after' },
    );
    if (!doc) throw new AppError('conflict', `Reservation '${r.id}' changed while its conflicts were updated; nothing was changed.`, {}, 'Retry the request.');
    return toRecord(doc);
  }

  /** Records that a PMS booking overlaps this reservation (a new version); null when it is gone. */
  async addConflict(workspaceId: string, id: string, withId: string, at: Date, tx: Tx): Promise<ReservationRecord | null> {
    const doc = await this.reservations.findOneAndUpdate(
      { workspaceId, _id: id, conflictsWith: { $ne: withId } },
      { $addToSet: { conflictsWith: withId }, $inc: { version: 1 }, $set: { updatedAt: at } },
      { tx, returnDocument: 'after' },
    );
    return doc ? toRecord(doc) : null;
  }
}
