// Queries on the data of a listing (calendar, content, photos), written once as Mongo documents
// for both engines. Callers pass listings they already resolved and checked for activity; every
// query is still scoped by workspace id and listing id.
import { newId } from '@vrp/platform/ids';
import { validationFailed } from '@vrp/platform/errors';
import type { Collection, DocumentStore, Tx } from '@vrp/platform/store';
import { eachDate, fillCalendar, nightsOf, type CalendarDay, type DayChanges } from '../domain/calendar';
import { MAX_PHOTOS, type Photo, type SectionValues, type StoredContent } from '../domain/content';
import type { ListingRecord } from '../domain/listing';
import { calendarDaySchema, listingContentSchema, listingPhotoSchema } from './data-schemas';

type CalendarDayDoc = {
  _id: string;
  workspaceId: string;
  listingId: string;
  date: string;
  available: boolean;
  price: number;
  minNights: number;
  [field: string]: unknown;
};
type ContentDoc = {
  _id: string;
  workspaceId: string;
  listingId: string;
  sections: Record<string, unknown>;
  updatedAt: Date;
  version?: number;
  [field: string]: unknown;
};
type PhotoDoc = {
  _id: string;
  workspaceId: string;
  listingId: string;
  url: string;
  caption: string;
  position: number;
  createdAt: Date;
  [field: string]: unknown;
};

/** The listing fields the calendar needs: identity, tenant, and the default nightly price. */
export type CalendarListing = Pick<ListingRecord, 'id' | 'workspaceId' | 'defaultNightlyPrice'>;
type Owned = Pick<ListingRecord, 'id' | 'workspaceId'>;

/** A stored photo: the photo and the listing it belongs to. */
export interface PhotoRecord extends Photo {
  listingId: string;
}

export interface NightlyRate {
  date: string;
  price: number;
  available: boolean;
  minNights: number;
}

const dayId = (listingId: string, date: string) => `${listingId}:${date}`;
const toPhoto = (d: PhotoDoc): PhotoRecord => ({
  id: d._id,
  listingId: d.listingId,
  url: d.url,
  caption: d.caption,
  position: d.position,
  createdAt: d.createdAt,
});

export class DataStore {
  readonly days: Collection<CalendarDayDoc>;
  readonly content: Collection<ContentDoc>;
  readonly photos: Collection<PhotoDoc>;

  constructor(readonly store: DocumentStore) {
    this.days = store.collection<CalendarDayDoc>({ name: 'calendar_days', schema: calendarDaySchema });
    this.content = store.collection<ContentDoc>({ name: 'listing_content', schema: listingContentSchema });
    this.photos = store.collection<PhotoDoc>({ name: 'listing_photos', schema: listingPhotoSchema });
  }

  // ---- calendar ----

  private async storedDays(workspaceId: string, listingId: string, from: string, to: string, tx?: Tx): Promise<CalendarDayDoc[]> {
    return this.days.find({ workspaceId, listingId, date: { $gte: from, $lte: to } }, { tx, sort: { date: 1 } });
  }

  /** Every day of from..to (inclusive); days nobody wrote carry the listing's defaults. */
  async calendar(listing: CalendarListing, from: string, to: string): Promise<CalendarDay[]> {
    const stored = await this.storedDays(listing.workspaceId, listing.id, from, to);
    return fillCalendar(eachDate(from, to), stored, listing.defaultNightlyPrice);
  }

  /**
   * Writes `changes` on every day of from..to, inside the caller's transaction. Days already
   * stored get only the given fields ($set); the others are created with the given fields plus
   * the defaults for the rest. That is the per-day upsert {$set: changes, $setOnInsert:
   * defaults}, done as one updateMany + one insertMany per range instead of up to 366 upserts,
   * which keeps a 100-update request at a few hundred operations inside one transaction.
   * Returns the dates written.
   */
  async writeDays(listing: CalendarListing, from: string, to: string, changes: DayChanges, tx: Tx): Promise<string[]> {
    const { workspaceId, id: listingId } = listing;
    const range = { workspaceId, listingId, date: { $gte: from, $lte: to } };
    const existing = new Set((await this.storedDays(workspaceId, listingId, from, to, tx)).map((d) => d.date));
    if (existing.size > 0) await this.days.updateMany(range, { $set: { ...changes } }, { tx });
    const dates = eachDate(from, to);
    const missing = dates.filter((date) => !existing.has(date));
    if (missing.length > 0) {
      await this.days.insertMany(
        missing.map((date) => ({
          _id: dayId(listingId, date),
          workspaceId,
          listingId,
          date,
          available: changes.available ?? true,
          price: changes.price ?? listing.defaultNightlyPrice,
          minNights: changes.minNights ?? 1,
        })),
        { tx },
      );
    }
    return dates;
  }

  /**
   * The nights of a stay (check-in up to the day before check-out) with their price and
   * availability, for quotes. Empty when checkOut is not after checkIn. The caller validates the
   * dates and the listing's activity.
   */
  async nightlyRates(
    workspaceId: string,
    listing: Pick<ListingRecord, 'id' | 'defaultNightlyPrice'>,
    checkIn: string,
    checkOut: string,
  ): Promise<NightlyRate[]> {
    const nights = nightsOf(checkIn, checkOut);
    const first = nights[0];
    const last = nights[nights.length - 1];
    if (first === undefined || last === undefined) return [];
    const stored = await this.storedDays(workspaceId, listing.id, first, last);
    return fillCalendar(nights, stored, listing.defaultNightlyPrice).map((d) => ({
      date: d.date,
      price: d.price,
      available: d.available,
      minNights: d.minNights,
    }));
  }

  // ---- content ----

  async readContent(listing: Owned): Promise<StoredContent> {
    const doc = await this.content.findOne({ _id: listing.id, workspaceId: listing.workspaceId });
    return doc
      ? { sections: doc.sections as SectionValues, updatedAt: doc.updatedAt, version: doc.version ?? 0 }
      : { sections: {}, updatedAt: null, version: 0 };
  }

  /**
   * Merges `values` into the listing's stored sections (sections not given stay as they are)
   * with one atomic upsert, and returns the whole content after the write. With
   * `expectedVersion` (If-Match) the write happens only on that stored version: null otherwise.
   */
  async putContent(listing: Owned, values: SectionValues, at: Date, expectedVersion = 0): Promise<StoredContent | null> {
    const set: Record<string, unknown> = { updatedAt: at };
    for (const [name, value] of Object.entries(values)) set[`sections.${name}`] = value;
    const where = { _id: listing.id, workspaceId: listing.workspaceId };
    const doc = expectedVersion
      ? await this.content.findOneAndUpdate({ ...where, version: expectedVersion }, { $set: set, $inc: { version: 1 } }, { returnDocument: 'after' })
      : await this.content.findOneAndUpdate(
          where,
          { $set: set, $inc: { version: 1 }, $setOnInsert: { listingId: listing.id } },
          { upsert: true, returnDocument: 'after' },
        );
    if (!doc) return null;
    return { sections: doc.sections as SectionValues, updatedAt: doc.updatedAt, version: doc.version ?? 0 };
  }

  // ---- photos ----

  async listPhotos(listing: Owned): Promise<PhotoRecord[]> {
    const docs = await this.photos.find({ workspaceId: listing.workspaceId, listingId: listing.id }, { sort: { position: 1, _id: 1 } });
    return docs.map(toPhoto);
  }

  /**
   * Appends a photo after the last one. The count check and the insert share a transaction so
   * that concurrent adds cannot pass the limit together (and the unique position index turns a
   * race on MongoDB into a retried write conflict).
   */
  /** `stored` runs in the insert's transaction (the request's Idempotency-Key is stored there). */
  async addPhoto(
    listing: Owned,
    url: string,
    caption: string,
    stored: (photo: PhotoRecord, tx: Tx) => Promise<void> = async () => undefined,
  ): Promise<PhotoRecord> {
    return this.store.transaction(async (tx) => {
      const scope = { workspaceId: listing.workspaceId, listingId: listing.id };
      const count = await this.photos.countDocuments(scope, { tx });
      if (count >= MAX_PHOTOS) {
        throw validationFailed({ photos: `a listing holds at most ${MAX_PHOTOS} photos; remove one before adding another` });
      }
      const last = await this.photos.findOne(scope, { tx, sort: { position: -1 } });
      const doc = await this.photos.insertOne(
        { _id: newId('pho'), ...scope, url, caption, position: (last?.position ?? 0) + 1, createdAt: new Date() },
        { tx },
      );
      const photo = toPhoto(doc);
      await stored(photo, tx);
      return photo;
    });
  }

  /** Removes a photo of this listing; false when no such photo belongs to it. */
  async removePhoto(listing: Owned, photoId: string): Promise<boolean> {
    const { deletedCount } = await this.photos.deleteOne({ _id: photoId, workspaceId: listing.workspaceId, listingId: listing.id });
    return deletedCount > 0;
  }
}
