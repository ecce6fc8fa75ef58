// The guarantee: one document per held night, `_id` = `${workspaceId}:${listingId}:${night}`, so
// two stays can never hold one night of a listing, whatever the writers (replicas, API writes, PMS
// sync, backfill): the second insert of a night is a DuplicateKeyError on MongoDB and in memory
// alike, and aborts its transaction.
//
// The nights held by reservations (`booked_nights`), written once as Mongo documents for both
// engines. This store only reads and writes: which nights a stay claims and what is a conflict is
// the booking rule (domain/booking.ts). Every write runs inside the caller's transaction, next to
// the reservation's own.
import type { Collection, DocumentStore, Tx } from '@vrp/platform/store';
import type { BookedNight } from '../domain/booking';
import { bookedNightSchema, nightGuardSchema } from './schemas';

type BookedNightDoc = {
  _id: string;
  workspaceId: string;
  listingId: string;
  night: string;
  reservationId: string;
  holdUntil?: Date | null;
  holdKey?: string;
  [field: string]: unknown;
};

const toBooked = (d: BookedNightDoc): BookedNight => ({
  night: d.night,
  reservationId: d.reservationId,
  holdUntil: d.holdUntil ?? null,
  holdKey: d.holdKey ?? '',
});

/** The pending holds of one holder (a create's new id, or the reservation whose dates change). */
const pendingOf = (workspaceId: string, holderId: string) => ({ workspaceId, reservationId: holderId, holdUntil: { $ne: null } });

const nightId = (workspaceId: string, listingId: string, night: string) => `${workspaceId}:${listingId}:${night}`;

export const BOOKED_NIGHTS = 'booked_nights';
/** One document per listing that writes checking nights beyond their own update (guardListing). */
export const NIGHT_GUARDS = 'night_guards';

type NightGuardDoc = { _id: string; writes: number; [field: string]: unknown };

export class NightStore {
  readonly nights: Collection<BookedNightDoc>;
  readonly guards: Collection<NightGuardDoc>;

  constructor(store: DocumentStore) {
    this.nights = store.collection<BookedNightDoc>({ name: BOOKED_NIGHTS, schema: bookedNightSchema });
    this.guards = store.collection<NightGuardDoc>({ name: NIGHT_GUARDS, schema: nightGuardSchema });
  }

  /**
   * Serialises, per listing, the transactions that check nights they do not hold (the booking
   * rule's `mustBeFree` beyond a stay's own nights): each writes the listing's guard document, so
   * of two concurrent ones the later is a write conflict (run again by the store, then it reads
   * the first one's nights) or, for the very first write of a listing, a duplicate key (run again
   * like a night taken meanwhile). Unique night documents cannot do this for nights nobody holds.
   */
  async guardListing(workspaceId: string, listingId: string, tx: Tx): Promise<void> {
    await this.guards.updateOne({ _id: `${workspaceId}:${listingId}` }, { $inc: { writes: 1 } }, { tx, upsert: true });
  }

  /** Booked nights of a listing in from..to (inclusive), in date order. */
  async range(workspaceId: string, listingId: string, from: string, to: string, tx?: Tx): Promise<BookedNight[]> {
    const docs = await this.nights.find({ workspaceId, listingId, night: { $gte: from, $lte: to } }, { tx, sort: { night: 1 } });
    return docs.map(toBooked);
  }

  /** Which of these nights of a listing are booked or held pending, by whom. */
  async holders(workspaceId: string, listingId: string, nights: readonly string[], tx?: Tx): Promise<BookedNight[]> {
    if (nights.length === 0) return [];
    const docs = await this.nights.find({ _id: { $in: nights.map((n) => nightId(workspaceId, listingId, n)) } }, { tx });
    return docs.map(toBooked);
  }

  /** Removes other holders' pending holds of these nights (lapsed ones, or any a PMS's own booking overrides). */
  async dropPending(workspaceId: string, listingId: string, nights: readonly string[], self: string, tx: Tx): Promise<void> {
    if (nights.length === 0) return;
    await this.nights.deleteMany(
      { _id: { $in: nights.map((n) => nightId(workspaceId, listingId, n)) }, reservationId: { $ne: self }, holdUntil: { $ne: null } },
      { tx },
    );
  }

  /** Turns a holder's pending holds into its stay's nights, in the transaction that stores the stay. */
  async confirmPending(workspaceId: string, holderId: string, tx: Tx): Promise<void> {
    await this.nights.updateMany(pendingOf(workspaceId, holderId), { $set: { holdUntil: null, holdKey: '' } }, { tx });
  }

  /** Keeps a holder's pending holds until `until` (its write still waits for the PMS). */
  async renewPending(workspaceId: string, holderId: string, until: Date): Promise<void> {
    await this.nights.updateMany(pendingOf(workspaceId, holderId), { $set: { holdUntil: until } });
  }

  /** Frees a holder's pending holds (the PMS refused, timed out, or the write failed); its stored nights stay. */
  async releasePending(workspaceId: string, holderId: string): Promise<void> {
    await this.nights.deleteMany(pendingOf(workspaceId, holderId));
  }

  /**
   * Frees every night `reservationId` holds except `keep` on `listingId` (all of them when
   * `keep` is empty): cancel, date change, move to another listing.
   */
  async releaseExcept(workspaceId: string, reservationId: string, listingId: string, keep: readonly string[], tx: Tx): Promise<void> {
    await this.nights.deleteMany({ workspaceId, reservationId, $or: [{ listingId: { $ne: listingId } }, { night: { $nin: [...keep] } }] }, { tx });
  }

  /**
   * Takes nights for a reservation (a pending hold of the write with that key, until then, when `pending` is given). A night another reservation holds (or takes meanwhile, in
   * a concurrent transaction) is a DuplicateKeyError on MongoDB and in memory alike; it aborts
   * the transaction, and the caller re-reads to name the conflicts.
   */
  async take(
    workspaceId: string,
    listingId: string,
    nights: readonly string[],
    reservationId: string,
    tx: Tx,
    pending: { until: Date; key: string } | null = null,
  ): Promise<void> {
    if (nights.length === 0) return;
    const hold = { holdUntil: pending?.until ?? null, holdKey: pending?.key ?? '' };
    await this.nights.insertMany(
      nights.map((night) => ({ _id: nightId(workspaceId, listingId, night), workspaceId, listingId, night, reservationId, ...hold })),
      { tx },
    );
  }
}
