// Queries of guest profiles, written once as Mongo documents for both engines.
import { AppError, notFound } from '@vrp/platform/errors';
import { DuplicateKeyError, type Collection, type DocumentStore, type Filter, type Tx } from '@vrp/platform/store';
import { findPage, type PageWindow } from '@vrp/platform/paging';
import { normalizeName, searchNameOf, type GuestRecord, type ReservationLink } from '../domain/guest';
import { guestSchema, matchKeySchema, reservationLinkSchema } from './schemas';

type GuestDoc = Omit<GuestRecord, 'id'> & {
  _id: string;
  searchName: string;
  /** Links embedded by profiles written before guest_reservation_links; moved out at start. */
  reservations?: ReservationLink[];
  sourceUpdatedAt: Date | null;
  idempotencyKey?: string;
  leaseToken?: string;
  leaseUntil?: Date | null;
  [field: string]: unknown;
};
type MatchKeyDoc = { _id: string; workspaceId: string; guestId: string; [field: string]: unknown };
type LinkDoc = ReservationLink & { _id: string; workspaceId: string; guestId: string; [field: string]: unknown };

const toLink = ({ reservationId, listingId, changedAt, email, phone }: LinkDoc): ReservationLink => ({ reservationId, listingId, changedAt, email, phone });

// `changeKeys` is left on profiles changed before applied_requests held change keys: never read.
const toRecord = ({
  _id,
  searchName: _s,
  reservations: _r,
  sourceUpdatedAt: _u,
  idempotencyKey: _k,
  leaseToken: _t,
  leaseUntil: _lu,
  changeKeys: _c,
  ...rest
}: GuestDoc): GuestRecord => ({
  id: _id,
  ...rest,
  version: rest.version ?? 0,
});

/** How long a create's Idempotency-Key is remembered (as long as the gateway's records). */
export const CREATE_KEY_TTL_MS = 24 * 60 * 60 * 1000;
const keyCutoff = (now: Date) => new Date(now.getTime() - CREATE_KEY_TTL_MS);

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The Mongo filter of a guest list. The search term is normalized like the stored searchName
 * and matched anywhere in it (contains, not anchored), because people search by last name as
 * often as by first name; it is escaped so that user input is never interpreted as a pattern.
 * Visibility: a guest whose every reservation is on an inactive listing is left out, i.e. a guest
 * is listed when it has no reservation or at least one on a listing not in `inactiveListingIds`.
 */
export function guestFilter(workspaceId: string, search: string, inactiveListingIds: string[] = []): Filter {
  const term = normalizeName(search);
  const filter: Filter = term ? { workspaceId, searchName: { $regex: escapeRegex(term) } } : { workspaceId };
  if (inactiveListingIds.length > 0) filter.$or = [{ listingIds: { $size: 0 } }, { listingIds: { $elemMatch: { $nin: inactiveListingIds } } }];
  return filter;
}

const matchKeyId = (workspaceId: string, key: string) => `${workspaceId}|${key}`;
const linkId = (workspaceId: string, reservationId: string) => `${workspaceId}|${reservationId}`;

export class GuestStore {
  readonly guests: Collection<GuestDoc>;
  private readonly matchKeys: Collection<MatchKeyDoc>;
  private readonly links: Collection<LinkDoc>;

  constructor(readonly store: DocumentStore) {
    this.guests = store.collection<GuestDoc>({ name: 'guests', schema: guestSchema });
    this.matchKeys = store.collection<MatchKeyDoc>({ name: 'guest_match_keys', schema: matchKeySchema });
    this.links = store.collection<LinkDoc>({ name: 'guest_reservation_links', schema: reservationLinkSchema });
  }

  /** The link of a reservation and the profile it is linked to, if any. */
  async linkOf(workspaceId: string, reservationId: string, tx?: Tx): Promise<{ guestId: string; link: ReservationLink } | null> {
    const doc = await this.links.findOne({ _id: linkId(workspaceId, reservationId) }, { tx });
    return doc ? { guestId: doc.guestId, link: toLink(doc) } : null;
  }

  /** Every reservation linked to a profile (its contact sources), in no particular order. */
  async linksOf(workspaceId: string, guestId: string, tx?: Tx): Promise<ReservationLink[]> {
    return (await this.links.find({ workspaceId, guestId }, { tx })).map(toLink);
  }

  /**
   * Links a reservation to `guestId`, or replaces its link (a move, new contacts). A link to
   * another profile is never taken over: the reservation keeps the profile it was first linked to.
   */
  async putLink(workspaceId: string, guestId: string, link: ReservationLink, tx: Tx): Promise<void> {
    const { reservationId, listingId, changedAt = null, email = '', phone = '' } = link;
    await this.links.updateOne(
      { _id: linkId(workspaceId, reservationId), guestId },
      { $set: { listingId, changedAt, email, phone }, $setOnInsert: { workspaceId, reservationId } },
      { tx, upsert: true },
    );
  }

  /**
   * Moves the links that profiles written before guest_reservation_links embedded into their own
   * documents, profile by profile, each in one transaction (idempotent: a start interrupted
   * half-way moves the rest on the next start). Returns how many profiles were migrated.
   */
  async migrateEmbeddedLinks(): Promise<number> {
    const legacy = await this.guests.find({ reservations: { $exists: true } });
    for (const { _id } of legacy) {
      await this.store.transaction(async (tx) => {
        // Read again inside the transaction: a writer of the previous version (a rolling
        // upgrade) may have added a link since the scan; a concurrent write aborts and retries.
        const guest = await this.guests.findOne({ _id }, { tx });
        if (!guest?.reservations) return;
        for (const link of guest.reservations) {
          if (await this.linkOf(guest.workspaceId, link.reservationId, tx)) continue;
          await this.putLink(guest.workspaceId, guest._id, link, tx);
        }
        await this.guests.updateOne({ _id: guest._id }, { $unset: { reservations: '' } }, { tx });
      });
    }
    return legacy.length;
  }

  async page(workspaceId: string, search: string, inactiveListingIds: string[], window: PageWindow): Promise<{ items: GuestRecord[]; total: number }> {
    const { docs, total } = await findPage(this.guests, guestFilter(workspaceId, search, inactiveListingIds), { searchName: 1, _id: 1 }, window);
    return { items: docs.map(toRecord), total };
  }

  /** not_found both when the id does not exist and when it belongs to another workspace. */
  async get(workspaceId: string, id: string, tx?: Tx): Promise<GuestRecord> {
    const doc = await this.guests.findOne({ workspaceId, _id: id }, { tx });
    if (!doc) throw notFound('guest', id);
    return toRecord(doc);
  }

  /** The profile a reservation is linked to, with its link. */
  async byReservation(workspaceId: string, reservationId: string, tx?: Tx): Promise<{ guest: GuestRecord; link: ReservationLink } | null> {
    const linked = await this.linkOf(workspaceId, reservationId, tx);
    if (!linked) return null;
    const doc = await this.guests.findOne({ workspaceId, _id: linked.guestId }, { tx });
    return doc ? { guest: toRecord(doc), link: linked.link } : null;
  }

  async byExternalId(workspaceId: string, provider: string, externalId: string, tx?: Tx): Promise<(GuestRecord & { sourceUpdatedAt: Date | null }) | null> {
    const doc = await this.guests.findOne({ workspaceId, provider, externalId }, { tx });
    return doc ? { ...toRecord(doc), sourceUpdatedAt: doc.sourceUpdatedAt } : null;
  }

  /** The profile claiming the first of `keys` that is claimed (keys in priority order). */
  async byMatchKeys(workspaceId: string, keys: string[], tx?: Tx): Promise<GuestRecord | null> {
    for (const key of keys) {
      const claim = await this.matchKeys.findOne({ _id: matchKeyId(workspaceId, key) }, { tx });
      if (!claim) continue;
      const doc = await this.guests.findOne({ workspaceId, _id: claim.guestId }, { tx });
      if (doc) return toRecord(doc);
    }
    return null;
  }

  /**
   * Claims the keys not claimed yet for `guestId`. A key claimed meanwhile by a concurrent
   * transaction raises DuplicateKeyError, which fails the caller's transaction (it is retried).
   */
  async claimKeys(workspaceId: string, guestId: string, keys: string[], tx: Tx): Promise<void> {
    for (const key of keys) {
      const _id = matchKeyId(workspaceId, key);
      if (await this.matchKeys.findOne({ _id }, { tx })) continue;
      await this.matchKeys.insertOne({ _id, workspaceId, guestId }, { tx });
    }
  }

  /** Releases the keys that `guestId` holds among `keys` (a contact it no longer has); others' claims stay. */
  async releaseKeys(workspaceId: string, guestId: string, keys: string[], tx: Tx): Promise<void> {
    for (const key of keys) await this.matchKeys.deleteOne({ _id: matchKeyId(workspaceId, key), guestId }, { tx });
  }

  /** The profile a create with this Idempotency-Key wrote within the last 24 h, if any. */
  async byIdempotencyKey(workspaceId: string, key: string, now: Date, tx?: Tx): Promise<GuestRecord | null> {
    const doc = await this.guests.findOne({ workspaceId, idempotencyKey: key, createdAt: { $gt: keyCutoff(now) } }, { tx });
    return doc ? toRecord(doc) : null;
  }

  /** Keys expire after 24 h: an older create's key is cleared so that the key can be used again. */
  async releaseExpiredKey(workspaceId: string, key: string, now: Date, tx: Tx): Promise<void> {
    await this.guests.updateMany({ workspaceId, idempotencyKey: key, createdAt: { $lte: keyCutoff(now) } }, { $set: { idempotencyKey: '' } }, { tx });
  }

  /** Inserts; a duplicate Idempotency-Key is left to the caller (DuplicateKeyError on `idempotencyKey`). */
  async insert(guest: GuestRecord, tx?: Tx, sourceUpdatedAt: Date | null = null, idempotencyKey = ''): Promise<GuestRecord> {
    const { id, ...rest } = guest;
    try {
      return toRecord(await this.guests.insertOne({ _id: id, ...rest, searchName: searchNameOf(guest), sourceUpdatedAt, idempotencyKey }, { tx }));
    } catch (err) {
      if (err instanceof DuplicateKeyError && 'idempotencyKey' in err.keyPattern) throw err;
      // A raw DuplicateKeyError would reach the gRPC layer as internal_error.
      if (err instanceof DuplicateKeyError) throw new AppError('conflict', `A guest with id '${id}' already exists.`);
      throw err;
    }
  }

  /** Replaces the profile's fields as a new version; derived fields are recomputed from them (links are written by putLink). */
  async save(guest: GuestRecord, tx: Tx, sourceUpdatedAt?: Date): Promise<GuestRecord> {
    const doc = await this.saveIf(guest, {}, tx, sourceUpdatedAt);
    if (!doc) throw notFound('guest', guest.id);
    return doc;
  }

  /**
   * save() only while `guard` holds on the stored document (a version, a lease): null when it
   * does not (or the profile is gone), and nothing is written then.
   */
  async saveIf(guest: GuestRecord, guard: Filter, tx: Tx, sourceUpdatedAt?: Date, release: Record<string, unknown> = {}): Promise<GuestRecord | null> {
    const { id, workspaceId, createdAt: _c, version: _v, ...fields } = guest;
    const set: Record<string, unknown> = { ...fields, searchName: searchNameOf(guest), ...release };
    if (sourceUpdatedAt) set.sourceUpdatedAt = sourceUpdatedAt;
    const doc = await this.guests.findOneAndUpdate({ workspaceId, _id: id, ...guard }, { $set: set, $inc: { version: 1 } }, { tx });
    return doc ? toRecord(doc) : null;
  }
}
