// The checks every write (and a quote) makes before it holds anything: the listing exists and is
// active, and the stay's nights are free.
import { assertListingsActive } from '@vrp/activity-cache';
import type { WorkspaceSettings } from '@vrp/api-model';
import { assertStayFree, stayClaim } from '../domain/booking';
import type { NightPrice } from '../domain/pricing';
import { addDays } from '../domain/reservation';
import type { ListingInfo } from '../ports/listings';
import type { ReservationDeps } from './deps';

/**
 * The listing by id or channel id (from the listing service: its PMS and prices, current):
 * 404 when it is not in the workspace, then 403 when inactive, decided as reads decide it, by
 * the activity cache; a listing the cache has not seen yet is decided by the answer at hand.
 */
export async function activeListing(deps: Pick<ReservationDeps, 'listings' | 'activity'>, workspaceId: string, id: string): Promise<ListingInfo> {
  return assertActive(deps, workspaceId, await deps.listings.resolve(workspaceId, id));
}

/** 403 when `listing` is inactive, decided by the activity cache (by `listing` itself when the cache has not seen it). */
async function assertActive(deps: Pick<ReservationDeps, 'activity'>, workspaceId: string, listing: ListingInfo): Promise<ListingInfo> {
  await assertListingsActive(deps.activity, workspaceId, [listing.id], () => [listing]);
  return listing;
}

/**
 * activeListing with the calendar nights of a stay from checkIn to checkOut, in one call to the
 * listing service: the listing (404, then 403, decided as activeListing decides them) and its nights.
 */
export async function activeStay(
  deps: Pick<ReservationDeps, 'listings' | 'activity'>,
  workspaceId: string,
  id: string,
  stay: { checkIn: string; checkOut: string },
): Promise<{ listing: ListingInfo; nights: NightPrice[] }> {
  const { listing, nights } = await deps.listings.stay(workspaceId, id, stay.checkIn, addDays(stay.checkOut, -1));
  return { listing: await assertActive(deps, workspaceId, listing), nights };
}

export interface StayToCheck {
  workspaceId: string;
  listingId: string;
  checkIn: string;
  checkOut: string;
  /** The reservation being changed ('' for a new one): its own nights are no conflict. */
  self?: string;
  /** The write's Idempotency-Key ('' without one). */
  key?: string;
  /** The workspace's settings, which the booking rule reads. */
  settings: WorkspaceSettings;
}

/**
 * The calendar nights of a stay (`known`, when the caller has them already), after the booking
 * rule found them free for a local write (assertStayFree: 409 dates_unavailable naming every
 * closed or taken night). Bookings are checked again, atomically, when the nights are taken
 * (hold-nights.ts).
 */
export async function availableStay(deps: Pick<ReservationDeps, 'listings' | 'nights' | 'clock'>, s: StayToCheck, known?: NightPrice[]): Promise<NightPrice[]> {
  const claim = stayClaim({ status: 'CONFIRMED', checkIn: s.checkIn, checkOut: s.checkOut }, 'local', s.settings);
  const [calendar, booked] = await Promise.all([
    known ?? deps.listings.nights(s.workspaceId, s.listingId, s.checkIn, addDays(s.checkOut, -1)),
    deps.nights.holders(s.workspaceId, s.listingId, claim.mustBeFree),
  ]);
  assertStayFree(claim, calendar, booked, { self: s.self ?? '', key: s.key ?? '', now: deps.clock() });
  return calendar;
}
