// Queries of guest profiles, written once as Mongo documents for both engines.
import { AppError, DuplicateKeyError, findPage, notFound, type Collection, type DocumentStore, type Filter, type PageWindow, type Tx } from '@vrp/platform';
import { listingIdsOf, normalizeName, searchNameOf, type GuestRecord } from '../domain/guest';
import { guestSchema, matchKeySchema } from './schemas';

type GuestDoc = Omit<GuestRecord, 'id'> & {
  _id: string;
  searchName: string;
  listingIds: string[];
  sourceUpdatedAt: Date | null;
  idempotencyKey?: string;
  leaseToken?: string;
  leaseUntil?: Date | null;
  [field: string]: unknown;
};
type MatchKeyDoc = { _id: string; workspaceId: string; guestId: string; [field: string]: unknown };

// `changeKeys` is left on profiles changed before applied_requests held change keys: never read.
const toRecord = ({
  _id,
  searchName: _s,
  listingIds: _l,
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
 * Spec 2.2: a guest whose every reservation is on an inactive listing is left out, i.e. a guest
 * is listed when it has no reservation or at least one on a listing not in `inactiveListingIds`.
 */
export function guestFilter(workspaceId: string, search: string, inactiveListingIds: string[] = []): Filter {
  const term = normalizeName(search);
  const filter: Filter = term ? { workspaceId, searchName: { $regex: escapeRegex(term) } } : { workspaceId };
  if (inactiveListingIds.length > 0) filter.$or = [{ listingIds: { $size: 0 } }, { listingIds: { $elemMatch: { $nin: inactiveListingIds } } }];
  return filter;
}

const matchKeyId = (workspaceId: string, key: string) => `${workspaceId}|${key}`;

export class GuestStore {
  readonly guests: Collection<GuestDoc>;
  private readonly matchKeys: Collection<MatchKeyDoc>;

  constructor(readonly store: DocumentStore) {
    this.guests = store.collection<GuestDoc>({ name: 'guests', schema: guestSchema });
    this.matchKeys = store.collection<MatchKeyDoc>({ name: 'guest_match_keys', schema: matchKeySchema });
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

  async byReservation(workspaceId: string, reservationId: string, tx?: Tx): Promise<GuestRecord | null> {
    const doc = await this.guests.findOne({ workspaceId, 'reservations.reservationId': reservationId }, { tx });
    return doc ? toRecord(doc) : null;
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
      return toRecord(
        await this.guests.insertOne(
          { _id: id, ...rest, searchName: searchNameOf(guest), listingIds: listingIdsOf(guest.reservations), sourceUpdatedAt, idempotencyKey },
          { tx },
        ),
      );
    } catch (err) {
      if (err instanceof DuplicateKeyError && 'idempotencyKey' in err.keyPattern) throw err;
      // A raw DuplicateKeyError would reach the gRPC layer as internal_error.
      if (err instanceof DuplicateKeyError) throw new AppError('conflict', `A guest with id '${id}' already exists.`);
      throw err;
    }
  }

  /** Replaces the profile's fields as a new version; derived fields are recomputed from them. */
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
    const set: Record<string, unknown> = { ...fields, searchName: searchNameOf(guest), listingIds: listingIdsOf(guest.reservations), ...release };
    if (sourceUpdatedAt) set.sourceUpdatedAt = sourceUpdatedAt;
    const doc = await this.guests.findOneAndUpdate({ workspaceId, _id: id, ...guard }, { $set: set, $inc: { version: 1 } }, { tx });
    return doc ? toRecord(doc) : null;
  }
}
