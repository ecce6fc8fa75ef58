// The Events API's reads of the stored events (the `events` collection the intake writes, see
// DeliveryStore.enqueue): newest first, with cursors, filters and retention. Queries are written
// once as Mongo documents for both engines.
import type { Collection, Filter } from '@vrp/platform/store';
import { type WebhookEvent, eventSortKey } from '../domain/delivery';
import type { DeliveryStore } from './delivery-store';

export interface EventQuery {
  workspaceId: string;
  /** Empty: every type. */
  types: readonly string[];
  createdGte?: Date | undefined;
  createdLt?: Date | undefined;
  /** One listing's events; otherwise every listing's but those in `hiddenListingIds`. */
  listingId?: string | undefined;
  /** Listings inactive now: their events are left out (the activity rule), guest events whose every listing is one of them too. */
  hiddenListingIds: readonly string[];
  /** An event of an earlier page: list the older ones (starting_after) or the newer ones (ending_before). */
  after?: Pick<WebhookEvent, 'id' | 'occurredAt'> | undefined;
  before?: Pick<WebhookEvent, 'id' | 'occurredAt'> | undefined;
  limit: number;
  now: Date;
}

type EventDoc = DeliveryStore['events'] extends Collection<infer D> ? D : never;

const toEvent = ({ _id, ...rest }: EventDoc): WebhookEvent => ({ id: _id, ...(rest as Omit<WebhookEvent, 'id'>) });

export class EventLog {
  private readonly events: Collection<EventDoc>;

  constructor(deliveries: DeliveryStore) {
    this.events = deliveries.events;
  }

  /** An event of the workspace still within its retention, or null. */
  async get(workspaceId: string, id: string, now: Date): Promise<WebhookEvent | null> {
    const doc = await this.events.findOne({ _id: id, workspaceId, expiresAt: { $gt: now } });
    return doc ? toEvent(doc) : null;
  }

  /** One page, newest first; `hasMore`: more events follow in the direction asked (older, or newer with `before`). */
  async page(q: EventQuery): Promise<{ events: WebhookEvent[]; hasMore: boolean }> {
    const filter: Filter = { workspaceId: q.workspaceId, expiresAt: { $gt: q.now } };
    if (q.types.length > 0) filter.type = { $in: [...q.types] };
    if (q.createdGte || q.createdLt) filter.occurredAt = { ...(q.createdGte ? { $gte: q.createdGte } : {}), ...(q.createdLt ? { $lt: q.createdLt } : {}) };
    if (q.listingId) filter.listingId = q.listingId;
    else if (q.hiddenListingIds.length > 0) {
      const hidden = [...q.hiddenListingIds];
      filter.listingId = { $nin: hidden };
      // A guest event (no listingId) is hidden when it depends on listings and every one is hidden.
      filter.$or = [{ listingId: { $ne: null } }, { listingIds: { $size: 0 } }, { listingIds: { $elemMatch: { $nin: hidden } } }];
    }
    if (q.after) filter.sortKey = { $lt: eventSortKey(q.after) };
    else if (q.before) filter.sortKey = { $gt: eventSortKey(q.before) };
    // ending_before walks towards newer events (oldest of them first), then the page is turned round.
    const docs = await this.events.find(filter, { sort: { sortKey: q.before ? 1 : -1 }, limit: q.limit + 1 });
    const page = docs.slice(0, q.limit).map(toEvent);
    if (q.before) page.reverse();
    return { events: page, hasMore: docs.length > q.limit };
  }

  /** Removes expired events (MongoDB's TTL index does it by itself; the embedded engine needs this). */
  async purgeExpired(now: Date): Promise<number> {
    const { deletedCount } = await this.events.deleteMany({ expiresAt: { $lte: now } });
    return deletedCount;
  }
}
