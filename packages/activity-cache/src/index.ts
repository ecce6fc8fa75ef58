// The local cache of listing activity that every service except the listing service uses to
// answer `listing_inactive` (docs/api.md, "Listings are active or inactive") without calling the listing service. It is fed by the
// compacted topic listing.activity.v1, replayed from the start for a new consumer group, and
// persisted in the owning service's own store, so a restart answers at once from what it had
// and then resumes from the group's committed offset.
//
// At-least-once: the topic may deliver an event again, and a replay starts from the last
// committed offset, so older events of a listing can come again after newer ones. Versions make
// that harmless for changes (an event not newer than the known one changes nothing and tells no
// listener), and a deleted listing leaves a tombstone (persisted, ids are never reused) so that
// a replayed older event cannot bring it back.
//
// A listing the cache has not heard of counts as active: the owning service decides
// existence (404) from its own data first, and a new listing is active unless its first
// event says otherwise.
//
// History: besides the current state, the cache keeps the last activity changes of each
// listing with the time they happened (occurred_at of listing.activity.v1), so that a consumer
// of another topic can ask "was the listing active when this event happened?" instead of "is
// it active now?" (arrival order of two topics says nothing about the order of their events).
// `activityAt` also says whether the answer is settled: it is once a change newer than the
// asked time has arrived (the topic keeps per-listing order, so every change before it is
// known too); before that a change may still be on its way.
import { listingEvents, TOPICS } from '@vrp/contracts';
import { listingInactive } from '@vrp/platform/errors';
import type { Collection, DocumentStore } from '@vrp/platform/store';
import type { ConsumerRunner } from '@vrp/platform/consumer';
import type { Logger } from '@vrp/platform/logging';
import type { Subscription } from '@vrp/platform/bus';
import { Schema } from 'mongoose';

/** One activity change of a listing: its version and state, and when it happened. */
export interface ActivityChange {
  version: number;
  active: boolean;
  at: Date;
}

export interface ListingActivity {
  workspaceId: string;
  listingId: string;
  name: string;
  active: boolean;
  version: number;
  channelIds: string[];
  /** The last changes (at most HISTORY_LIMIT), oldest first; empty for state stored before histories existed. */
  history: ActivityChange[];
}

/** Whether a listing was active at a given time, and whether a later change can still alter that answer. */
export interface ActivityAt {
  active: boolean;
  /** True once a change that happened after the asked time has been applied. */
  settled: boolean;
}

/** Changes kept per listing: enough to answer for events that arrive late by several toggles. */
export const HISTORY_LIMIT = 32;

type ActivityDoc = Omit<ListingActivity, 'listingId'> & { _id: string; updatedAt: Date; deleted?: boolean; [field: string]: unknown };

const changeSchema = new Schema(
  { version: { type: Number, required: true }, active: { type: Boolean, required: true }, at: { type: Date, required: true } },
  { _id: false },
);

const activitySchema = new Schema(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    name: { type: String, default: '' },
    active: { type: Boolean, required: true },
    version: { type: Number, required: true },
    channelIds: { type: [String], default: [] },
    history: { type: [changeSchema], default: [] },
    /** A tombstone: the listing was deleted; its events are ignored from now on. */
    deleted: { type: Boolean, default: false },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
activitySchema.index({ workspaceId: 1, active: 1 });

export class ListingActivityCache {
  private readonly docs: Collection<ActivityDoc>;
  /** workspace -> listing id -> activity; channel ids map to the same entry. */
  private readonly byWorkspace = new Map<string, Map<string, ListingActivity>>();
  /** Ids of deleted listings (tombstones). */
  private readonly deleted = new Set<string>();
  private subscription: Subscription | null = null;
  private readonly listeners = new Set<(activity: ListingActivity) => void>();

  constructor(private readonly deps: { store: DocumentStore; consumers: ConsumerRunner; groupId: string; logger: Logger }) {
    this.docs = deps.store.collection<ActivityDoc>({ name: 'listing_activity', schema: activitySchema });
  }

  /** Loads the persisted state, then follows the topic. Resolves once the consumer has joined. */
  async start(): Promise<void> {
    for (const doc of await this.docs.find({})) {
      if (doc.deleted) this.deleted.add(doc._id);
      else this.remember(fromDoc(doc));
    }
    // Every failure here is the store's (transient, retried in place); an undecodable message is
    // a dead letter. An activity event never names a listing another service must know first.
    this.subscription = await this.deps.consumers.subscribe({
      groupId: this.deps.groupId,
      topics: [TOPICS.listingActivity],
      fromBeginning: true,
      decode: (bytes) => listingEvents.ListingActivityChanged.decode(bytes),
      describe: (event) => ({ workspaceId: event.workspaceId, listingId: event.listingId }),
      handle: (event) => this.apply(event),
    });
    await this.subscription.ready;
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
    this.subscription = null;
  }

  /**
   * Applies one event; older or repeated versions change nothing, and nothing brings a deleted
   * listing back (replays and redeliveries are harmless).
   */
  async apply(event: listingEvents.ListingActivityChanged): Promise<void> {
    if (this.deleted.has(event.listingId)) return;
    const known = this.byWorkspace.get(event.workspaceId)?.get(event.listingId);
    if (known && known.version >= event.version && !event.deleted) return;
    if (event.deleted) {
      // A tombstone instead of a removal: a replayed older event of this id must not recreate it.
      await this.docs.updateOne(
        { _id: event.listingId },
        {
          $set: {
            workspaceId: event.workspaceId,
            name: '',
            active: false,
            version: Math.max(event.version, known?.version ?? 0),
            channelIds: [],
            deleted: true,
            updatedAt: new Date(),
          },
        },
        { upsert: true },
      );
      this.deleted.add(event.listingId);
      this.forget(event.workspaceId, event.listingId);
      return;
    }
    const change: ActivityChange = { version: event.version, active: event.active, at: event.occurredAt ?? new Date() };
    const activity: ListingActivity = {
      workspaceId: event.workspaceId,
      listingId: event.listingId,
      name: event.listingName,
      active: event.active,
      version: event.version,
      channelIds: event.channelIds,
      history: withChange(known?.history ?? [], change),
    };
    // Guarded write: a stale event cannot overwrite a newer persisted state or a tombstone.
    const stale = await this.docs
      .updateOne(
        { _id: event.listingId, version: { $lt: event.version }, deleted: { $ne: true } },
        {
          $set: {
            workspaceId: activity.workspaceId,
            name: activity.name,
            active: activity.active,
            version: activity.version,
            channelIds: activity.channelIds,
            history: activity.history,
            updatedAt: new Date(),
          },
        },
        { upsert: true },
      )
      .then(
        () => false,
        (err: unknown) => {
          // A duplicate key: the stored state is newer (or a tombstone), written by another replica.
          if ((err as Error).name !== 'DuplicateKeyError') throw err;
          return true;
        },
      );
    if (stale) {
      // Another instance of this service stored this change (or a newer one) first: this
      // instance still learns it, and tells its own listeners when it is news here.
      const stored = await this.docs.findOne({ _id: event.listingId });
      if (stored?.deleted) {
        this.deleted.add(stored._id);
        this.forget(stored.workspaceId, stored._id);
      } else if (stored) {
        const current = this.remember(fromDoc(stored));
        if (!known || current.version > known.version) for (const listener of this.listeners) listener(current);
      }
      return;
    }
    const current = this.remember(activity);
    for (const listener of this.listeners) listener(current);
  }

  /**
   * Was the listing active at `at`? The state set by the last known change at or before `at`
   * (a listing the cache has not heard of, or a time before its first known change, counts as
   * active, as in `isActive`). Settled once a change after `at` is known.
   */
  activityAt(workspaceId: string, listingId: string, at: Date): ActivityAt {
    const known = this.get(workspaceId, listingId);
    if (!known) return { active: true, settled: false };
    if (known.history.length === 0) return { active: known.active, settled: false };
    const t = at.getTime();
    let active = true;
    for (const change of known.history) {
      if (change.at.getTime() > t) return { active, settled: true };
      active = change.active;
    }
    return { active, settled: false };
  }

  /** The activity of a listing (by id or mapped channel id), if known. */
  get(workspaceId: string, listingId: string): ListingActivity | undefined {
    return this.byWorkspace.get(workspaceId)?.get(listingId);
  }

  isActive(workspaceId: string, listingId: string): boolean {
    return this.get(workspaceId, listingId)?.active ?? true;
  }

  /** The inactive listings among `listingIds` (deduplicated, in the order given). */
  inactiveAmong(workspaceId: string, listingIds: Iterable<string>): { id: string; name: string }[] {
    const seen = new Set<string>();
    const out: { id: string; name: string }[] = [];
    for (const id of listingIds) {
      const a = this.get(workspaceId, id);
      if (a && !a.active && !seen.has(a.listingId)) {
        seen.add(a.listingId);
        out.push({ id: a.listingId, name: a.name });
      }
    }
    return out;
  }

  /** Throws listing_inactive naming every inactive listing among `listingIds`. */
  assertActive(workspaceId: string, listingIds: Iterable<string>): void {
    const inactive = this.inactiveAmong(workspaceId, listingIds);
    if (inactive.length) throw listingInactive(inactive);
  }

  /** Ids of every inactive listing of a workspace, for `$nin` filters on collections. */
  inactiveIds(workspaceId: string): string[] {
    const out = new Set<string>();
    for (const a of this.byWorkspace.get(workspaceId)?.values() ?? []) if (!a.active) out.add(a.listingId);
    return [...out];
  }

  /** Called after every applied change (e.g. to drop pending webhook retries). */
  onChange(listener: (activity: ListingActivity) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Keeps the newer of `a` and what is in memory, with both histories merged: two consumers
   * (e.g. the cache's own and the webhook intake) may apply different versions concurrently.
   */
  private remember(incoming: ListingActivity): ListingActivity {
    let listings = this.byWorkspace.get(incoming.workspaceId);
    if (!listings) {
      listings = new Map();
      this.byWorkspace.set(incoming.workspaceId, listings);
    }
    const previous = listings.get(incoming.listingId);
    let a = incoming;
    if (previous) {
      const history = previous.history.reduce(withChange, incoming.history);
      a = previous.version > incoming.version ? { ...previous, history } : { ...incoming, history };
    }
    for (const channelId of previous?.channelIds ?? []) listings.delete(channelId);
    listings.set(a.listingId, a);
    for (const channelId of a.channelIds) listings.set(channelId, a);
    return a;
  }

  private forget(workspaceId: string, listingId: string): void {
    const listings = this.byWorkspace.get(workspaceId);
    const previous = listings?.get(listingId);
    if (!listings || !previous) return;
    for (const channelId of previous.channelIds) listings.delete(channelId);
    listings.delete(listingId);
  }
}

function fromDoc({ _id, updatedAt: _updatedAt, deleted: _deleted, ...rest }: ActivityDoc): ListingActivity {
  const history = (rest.history ?? []).map((c) => ({ version: c.version, active: c.active, at: new Date(c.at) }));
  return { listingId: _id, workspaceId: rest.workspaceId, name: rest.name, active: rest.active, version: rest.version, channelIds: rest.channelIds, history };
}

/** The history with one more change, in version order, without repeats, at most HISTORY_LIMIT long. */
function withChange(history: ActivityChange[], change: ActivityChange): ActivityChange[] {
  if (history.some((c) => c.version === change.version)) return history;
  return [...history, change].sort((x, y) => x.version - y.version).slice(-HISTORY_LIMIT);
}

/** A listing as the listing service answers it now (ResolveListings): a write's fallback for a listing the cache has not seen. */
export interface CurrentListing {
  id: string;
  name: string;
  active: boolean;
}

/**
 * The one way a service other than the listing service decides `listing_inactive`:
 * the inactive listings among `listingIds` (ids or channel ids), from the activity cache.
 *
 * - Reads pass no `current`: a listing the cache has not seen counts as active (the service
 *   decided existence, 404, from its own data first).
 * - Writes pass `current`, the listing service's answer for the listings the cache has not seen
 *   (a write fetches the listing anyway for its PMS and prices, so this costs no extra call):
 *   a listing created or imported unlisted moments ago, whose first activity event is still on
 *   its way, is decided by its current state instead of "active by default".
 *
 * A listing the cache has seen is decided by the cache, for reads and writes alike: a toggle
 * reaches it within the lag measured by bench/activity-lag.bench.ts, the same window in which
 * a write racing the toggle could land on either side of it anyway.
 */
export async function inactiveOf(
  cache: ListingActivityCache,
  workspaceId: string,
  listingIds: Iterable<string>,
  current?: (unseen: string[]) => CurrentListing[] | Promise<CurrentListing[]>,
): Promise<{ id: string; name: string }[]> {
  const ids = [...listingIds];
  const unseen = [...new Set(ids.filter((id) => cache.get(workspaceId, id) === undefined))];
  if (!current || unseen.length === 0) return cache.inactiveAmong(workspaceId, ids);
  const now = new Map((await current(unseen)).map((l) => [l.id, l]));
  const out: { id: string; name: string }[] = [];
  const named = new Set<string>();
  for (const id of ids) {
    const known = cache.get(workspaceId, id);
    const listing = known ? { id: known.listingId, name: known.name, active: known.active } : now.get(id);
    if (listing && !listing.active && !named.has(listing.id)) {
      named.add(listing.id);
      out.push({ id: listing.id, name: listing.name });
    }
  }
  return out;
}

/** Throws `listing_inactive` naming every inactive listing among `listingIds` (see inactiveOf). */
export async function assertListingsActive(
  cache: ListingActivityCache,
  workspaceId: string,
  listingIds: Iterable<string>,
  current?: (unseen: string[]) => CurrentListing[] | Promise<CurrentListing[]>,
): Promise<void> {
  const inactive = await inactiveOf(cache, workspaceId, listingIds, current);
  if (inactive.length) throw listingInactive(inactive);
}
