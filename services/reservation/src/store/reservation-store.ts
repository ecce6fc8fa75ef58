// Queries of the reservation service, written once as Mongo documents for both engines.
import { AppError, DuplicateKeyError, findPage, notFound, type Collection, type DocumentStore, type Filter, type PageWindow, type Tx } from '@vrp/platform';
import type { ReservationFilters, ReservationRecord } from '../domain/reservation';
import { reservationSchema } from './schemas';

export type ReservationDoc = Omit<ReservationRecord, 'id'> & { _id: string; [field: string]: unknown };

// Documents written before a field existed read with its default.
const toRecord = ({ _id, ...rest }: ReservationDoc): ReservationRecord => ({
  id: _id,
  ...rest,
  customFields: rest.customFields ?? {},
  notes: { host: rest.notes?.host ?? '', guest: rest.notes?.guest ?? '' },
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

  /**
   * Replaces the mutable fields, guarded by the version read (`updatedAt`): a change made
   * meanwhile by another request makes this one a 409 instead of silently overwriting it.
   */
  async replace(next: ReservationRecord, readAt: Date, tx?: Tx): Promise<ReservationRecord> {
    const { _id, workspaceId, ...fields } = toDoc(next);
    const doc = await this.reservations.findOneAndUpdate({ workspaceId, _id, updatedAt: readAt }, { $set: fields }, { tx, returnDocument: 'after' });
    if (!doc) throw new AppError('conflict', `Reservation '${_id}' was changed by another request meanwhile; nothing was changed by this one.`);
    return toRecord(doc);
  }
}
