// The Events API (GET /v1/events, GET /v1/events/{id}): the events the intake stored, which are
// the very bodies the webhooks deliver. The activity rule holds as for replays: an event of a listing
// that was inactive when it happened was never stored; one of a listing inactive now is
// listing_inactive (403), and left out of lists; listing by an inactive listing is a 403 too.
// Another workspace's (or mode's) event is not_found, decided before listing_inactive.
import type { ListingActivityCache } from '@vrp/activity-cache';
import { EVENT_TYPES } from '@vrp/api-model';
import { listingInactive, notFound, validationFailed } from '@vrp/platform/errors';
import { MAX_PAGE_LIMIT } from '@vrp/platform/paging';
import { type Logger } from '@vrp/platform/logging';
import type { WebhookClock } from '../ports/clock';
import type { WebhookEvent } from '../domain/delivery';
import type { ListingLookup } from '../ports/listings';
import type { EventLog } from '../store/event-log';

export interface ListEventsInput {
  types: readonly string[];
  createdGte?: Date | undefined;
  createdLt?: Date | undefined;
  listingId: string;
  startingAfter: string;
  endingBefore: string;
  limit: number;
}

/** How often the embedded engine removes expired events (MongoDB: its TTL monitor, every minute). */
const PURGE_EVERY_MS = 60_000;

export class Events {
  private purge: NodeJS.Timeout | null = null;

  constructor(
    private readonly deps: {
      log: EventLog;
      cache: ListingActivityCache;
      listings: ListingLookup;
      clock: WebhookClock;
      logger: Logger;
      /** The embedded engine has no TTL index: expired events are removed by a timer. */
      purgeExpired: boolean;
    },
  ) {}

  start(): void {
    if (!this.deps.purgeExpired) return;
    this.purge = setInterval(() => {
      this.deps.log.purgeExpired(this.deps.clock.now()).catch((err: unknown) => this.deps.logger.warn({ err }, 'could not remove expired events; retried'));
    }, PURGE_EVERY_MS);
    this.purge.unref();
  }

  stop(): void {
    if (this.purge) clearInterval(this.purge);
    this.purge = null;
  }

  async get(workspaceId: string, id: string): Promise<WebhookEvent> {
    const event = await this.deps.log.get(workspaceId, id, this.deps.clock.now());
    if (!event) throw notFound('event', id);
    this.assertVisible(workspaceId, event);
    return event;
  }

  async list(workspaceId: string, input: ListEventsInput): Promise<{ events: WebhookEvent[]; hasMore: boolean }> {
    const unknown = input.types.map((t, i) => [t, i] as const).filter(([t]) => !(t in EVENT_TYPES));
    if (unknown.length > 0)
      throw validationFailed(Object.fromEntries(unknown.map(([t, i]) => [`type[${i}]`, `'${t}' is not an event type (GET /v1/webhook-event-types)`])));
    if (input.limit < 1 || input.limit > MAX_PAGE_LIMIT) throw validationFailed({ limit: `must be 1..${MAX_PAGE_LIMIT}` });
    if (input.startingAfter && input.endingBefore) throw validationFailed({ ending_before: 'cannot be combined with starting_after' });
    const now = this.deps.clock.now();
    const cursor = async (id: string, param: string) => {
      if (!id) return undefined;
      const event = await this.deps.log.get(workspaceId, id, now);
      if (!event) throw validationFailed({ [param]: `no event '${id}' in this workspace (or it is past its retention)` });
      return event;
    };
    const listingId = input.listingId ? await this.activeListing(workspaceId, input.listingId) : undefined;
    return this.deps.log.page({
      workspaceId,
      types: input.types,
      createdGte: input.createdGte,
      createdLt: input.createdLt,
      listingId,
      hiddenListingIds: listingId ? [] : this.deps.cache.inactiveIds(workspaceId),
      after: await cursor(input.startingAfter, 'starting_after'),
      before: await cursor(input.endingBefore, 'ending_before'),
      limit: input.limit,
      now,
    });
  }

  /** A listing filter: 404 when the workspace has no such listing (or channel id), then 403 when it is inactive. */
  private async activeListing(workspaceId: string, id: string): Promise<string> {
    const listing = await this.deps.listings.get(workspaceId, id);
    if (!listing) throw notFound('listing', id);
    if (listing.status === 'inactive') throw listingInactive([{ id: listing.id, name: listing.name }]);
    this.deps.cache.assertActive(workspaceId, [listing.id]);
    return listing.id;
  }

  /** An event of a listing inactive now is listing_inactive, as a replay of it is; a guest event when every listing of the guest is. */
  private assertVisible(workspaceId: string, event: WebhookEvent): void {
    if (event.listingId) {
      this.deps.cache.assertActive(workspaceId, [event.listingId]);
      return;
    }
    const of = event.listingIds ?? [];
    const inactive = this.deps.cache.inactiveAmong(workspaceId, of);
    if (of.length > 0 && inactive.length === new Set(of).size) throw listingInactive(inactive);
  }
}
