// The local cache of listing activity that every service except the listing service uses to
// answer `listing_inactive` (spec 7.1) without calling the listing service. It is fed by the
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
import { listingEvents, TOPICS } from '@vrp/contracts';
import { listingInactive, type Collection, type DocumentStore, type EventBus, type Logger, type Subscription } from '@vrp/platform';
import { Schema } from 'mongoose';

export interface ListingActivity {
  workspaceId: string;
  listingId: string;
  name: string;
  active: boolean;
  version: number;
  channelIds: string[];
}

type ActivityDoc = Omit<ListingActivity, 'listingId'> & { _id: string; updatedAt: Date; deleted?: boolean; [field: string]: unknown };

const activitySchema = new Schema(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    name: { type: String, default: '' },
    active: { type: Boolean, required: true },
    version: { type: Number, required: true },
    channelIds: { type: [String], default: [] },
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

  constructor(
    private readonly deps: { store: DocumentStore; bus: EventBus; groupId: string; logger: Logger },
  ) {
    this.docs = deps.store.collection<ActivityDoc>({ name: 'listing_activity', schema: activitySchema });
  }

  /** Loads the persisted state, then follows the topic. Resolves once the consumer has joined. */
  async start(): Promise<void> {
    for (const doc of await this.docs.find({})) {
      if (doc.deleted) this.deleted.add(doc._id);
      else this.remember(fromDoc(doc));
    }
    await this.deps.bus.ensureTopics([TOPICS.listingActivity]);
    this.subscription = await this.deps.bus.subscribe({
      groupId: this.deps.groupId,
      topics: [TOPICS.listingActivity.name],
      fromBeginning: true,
      handler: async (message) => this.apply(listingEvents.ListingActivityChanged.decode(message.value)),
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
        { $set: { workspaceId: event.workspaceId, name: '', active: false, version: Math.max(event.version, known?.version ?? 0), channelIds: [], deleted: true, updatedAt: new Date() } },
        { upsert: true },
      );
      this.deleted.add(event.listingId);
      this.forget(event.workspaceId, event.listingId);
      return;
    }
    const activity: ListingActivity = {
      workspaceId: event.workspaceId,
      listingId: event.listingId,
      name: event.listingName,
      active: event.active,
      version: event.version,
      channelIds: event.channelIds,
    };
    // Guarded write: a stale event cannot overwrite a newer persisted state or a tombstone.
    const stale = await this.docs
      .updateOne(
        { _id: event.listingId, version: { $lt: event.version }, deleted: { $ne: true } },
        { $set: { workspaceId: activity.workspaceId, name: activity.name, active: activity.active, version: activity.version, channelIds: activity.channelIds, updatedAt: new Date() } },
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
      const stored = await this.docs.findOne({ _id: event.listingId });
      if (stored?.deleted) {
        this.deleted.add(stored._id);
        this.forget(stored.workspaceId, stored._id);
      } else if (stored) {
        this.remember(fromDoc(stored));
      }
      return;
    }
    this.remember(activity);
    for (const listener of this.listeners) listener(activity);
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

  private remember(a: ListingActivity): void {
    let listings = this.byWorkspace.get(a.workspaceId);
    if (!listings) {
      listings = new Map();
      this.byWorkspace.set(a.workspaceId, listings);
    }
    const previous = listings.get(a.listingId);
    for (const channelId of previous?.channelIds ?? []) listings.delete(channelId);
    listings.set(a.listingId, a);
    for (const channelId of a.channelIds) listings.set(channelId, a);
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
  return { listingId: _id, workspaceId: rest.workspaceId, name: rest.name, active: rest.active, version: rest.version, channelIds: rest.channelIds };
}
