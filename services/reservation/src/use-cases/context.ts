// What every reservation use case shares: its dependencies, the service's clock, and the
// checks made before a write (the listing exists and is active, the stay's nights are free).
import { assertListingsActive, type ListingActivityCache } from '@vrp/activity-cache';
import type { AppliedRequests } from '@vrp/platform/applied-requests';
import type { Logger } from '@vrp/platform/logging';
import type { Outbox } from '@vrp/platform/outbox';
import { DuplicateKeyError, type DocumentStore } from '@vrp/platform/store';
import { datesUnavailable } from '../domain/date-conflict';
import { dateConflicts, liveNights, stayNights } from '../domain/occupancy';
import { type NightPrice } from '../domain/pricing';
import { addDays } from '../domain/reservation';
import type { ListingDirectory, ListingInfo } from '../ports/listings';
import type { PmsRelay } from '@vrp/pms-relay';
import type { NightStore } from '../store/night-store';
import { assertNotRunning } from './hold-nights';
import type { ReservationStore } from '../store/reservation-store';

/** Attempts at a fresh confirmation code when one collides within the workspace. */
export const CODE_ATTEMPTS = 5;
/** Read-decide-write rounds of a PATCH while other changes of the same reservation commit first. */
export const VERSION_ATTEMPTS = 8;

export interface ReservationDeps {
  store: DocumentStore;
  reservations: ReservationStore;
  nights: NightStore;
  outbox: Outbox;
  listings: ListingDirectory;
  relay: PmsRelay;
  activity: ListingActivityCache;
  logger: Logger;
  /** Idempotency-Keys stored with the writes (service-side idempotency). */
  applied: AppliedRequests;
  clock?: () => Date;
}

export const isDuplicateOf = (err: unknown, field: string) => err instanceof DuplicateKeyError && field in err.keyPattern;

export abstract class ReservationUseCase {
  /** The service's clock: POST_STAY is decided against it. */
  readonly now: () => Date;

  constructor(protected readonly deps: ReservationDeps) {
    this.now = deps.clock ?? (() => new Date());
  }

  /**
   * The listing by id or channel id (from the listing service: its PMS and prices, current):
   * 404 when it is not in the workspace, then 403 when inactive, decided as reads decide it, by
   * the activity cache; a listing the cache has not seen yet is decided by the answer at hand.
   */
  protected async activeListing(workspaceId: string, id: string): Promise<ListingInfo> {
    const listing = await this.deps.listings.resolve(workspaceId, id);
    await assertListingsActive(this.deps.activity, workspaceId, [listing.id], () => [listing]);
    return listing;
  }

  /**
   * The calendar nights of a stay, after checking that none is closed on the listing's calendar
   * or booked by a reservation other than `self` (or held pending by another write): 409
   * dates_unavailable naming every one (409 idempotency_in_progress when the pending hold is the
   * same write's, `key`, still waiting for its PMS). Bookings are checked again, atomically, when the nights
   * are taken (holdNights, holdPending).
   */
  protected async availableStay(workspaceId: string, listingId: string, checkIn: string, checkOut: string, self = '', key = ''): Promise<NightPrice[]> {
    const [calendar, booked] = await Promise.all([
      this.deps.listings.nights(workspaceId, listingId, checkIn, addDays(checkOut, -1)),
      this.deps.nights.holders(workspaceId, listingId, stayNights(checkIn, checkOut)),
    ]);
    const now = this.now();
    assertNotRunning(booked, key, now);
    const conflicts = dateConflicts(stayNights(checkIn, checkOut), calendar, liveNights(booked, now), self);
    if (conflicts.length > 0) throw datesUnavailable(conflicts);
    return calendar;
  }

  /** Publish right after the commit; the outbox relay's timer retries if this fails. */
  protected publishSoon(): void {
    void this.deps.outbox.flush().catch(() => undefined);
  }
}
