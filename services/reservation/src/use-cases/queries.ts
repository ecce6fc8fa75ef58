// Reads: the reservations of a workspace, one reservation, a quote, and the nights a listing's
// reservations hold (for its calendar). An inactive listing's reservations are 403
// listing_inactive (docs/api.md), decided by the activity cache (@vrp/activity-cache).
import { assertListingsActive } from '@vrp/activity-cache';
import { assertSupported } from '@vrp/pms-matrix';
import { validationFailed } from '@vrp/platform/errors';
import { type PageWindow } from '@vrp/platform/paging';
import { liveNights, type BookedNight } from '../domain/booking';
import { priceStay, type StayPrice } from '../domain/pricing';
import { isIsoDate, nightsBetween, parseReservationFilters, todayUtc, type ReservationQueryInput, type ReservationRecord } from '../domain/reservation';
import { MAX_NIGHTS } from '../domain/writes';
import { activeStay, availableStay } from './checks';
import type { ReservationDeps } from './deps';

export interface QuoteInput {
  workspaceId: string;
  propertyId: string;
  checkIn: string;
  checkOut: string;
}

export interface QuoteResult {
  propertyId: string;
  checkIn: string;
  checkOut: string;
  nights: number;
  currency: string;
  price: StayPrice;
}

export interface BookedNightsInput {
  workspaceId: string;
  listingId: string;
  /** Inclusive bounds, YYYY-MM-DD. */
  from: string;
  to: string;
}

/**
 * A page of the workspace's reservations. 404 first (the listing service decides whether a
 * filtered listing is in the workspace; a channel id names its listing here too), then 403 when
 * the filtered listing is inactive; without a filter, inactive listings' reservations are left out.
 */
export async function listReservations(deps: ReservationDeps, workspaceId: string, query: ReservationQueryInput, window: PageWindow) {
  const filters = parseReservationFilters(query);
  if (filters.propertyId) {
    filters.propertyId = (await deps.listings.resolve(workspaceId, filters.propertyId)).id;
    await assertListingsActive(deps.activity, workspaceId, [filters.propertyId]);
  }
  const scope = { today: todayUtc(deps.clock()), excludedPropertyIds: deps.activity.inactiveIds(workspaceId) };
  return deps.reservations.page(workspaceId, filters, scope, window);
}

/** 404 first (the reservation is not in the workspace), then 403 (its listing is inactive). */
export async function getReservation(deps: ReservationDeps, workspaceId: string, id: string): Promise<ReservationRecord> {
  const found = await deps.reservations.get(workspaceId, id);
  await assertListingsActive(deps.activity, workspaceId, [found.propertyId]);
  return found;
}

/** The price of a stay; booked or closed nights are refused as a create would refuse them. */
export async function quoteStay(deps: ReservationDeps, input: QuoteInput): Promise<QuoteResult> {
  const { workspaceId, propertyId, checkIn, checkOut } = input;
  const problems: Record<string, string> = {};
  if (!propertyId) problems.propertyId = 'is required';
  for (const [field, value] of [
    ['checkIn', checkIn],
    ['checkOut', checkOut],
  ] as const) {
    if (!value) problems[field] = 'is required (YYYY-MM-DD)';
    else if (!isIsoDate(value)) problems[field] = 'must be a real calendar date as YYYY-MM-DD';
  }
  if (!problems.checkIn && !problems.checkOut) {
    const nights = nightsBetween(checkIn, checkOut);
    if (nights < 1) problems.checkOut = 'must be after checkIn';
    else if (nights > MAX_NIGHTS) problems.checkOut = `must be at most ${MAX_NIGHTS} nights after checkIn`;
  }
  if (Object.keys(problems).length > 0) throw validationFailed(problems);
  const [{ listing, nights }, settings] = await Promise.all([activeStay(deps, workspaceId, propertyId, { checkIn, checkOut }), deps.settings.of(workspaceId)]);
  assertSupported(listing.pmsProvider, 'reservation.quote');
  const calendar = await availableStay(deps, { workspaceId, listingId: listing.id, checkIn, checkOut, settings }, nights);
  const price = priceStay({ nights: calendar, cleaningFee: listing.cleaningFee, taxRate: listing.taxRate });
  return { propertyId: listing.id, checkIn, checkOut, nights: nightsBetween(checkIn, checkOut), currency: listing.currency, price };
}

/**
 * The nights of a listing held in from..to (inclusive), for the listing's calendar: stays, and
 * nights held pending while a PMS answers (a lapsed hold of a dead writer is free).
 */
export async function listBookedNights(deps: ReservationDeps, input: BookedNightsInput): Promise<BookedNight[]> {
  const { workspaceId, listingId, from, to } = input;
  const problems: Record<string, string> = {};
  if (!listingId) problems.listingId = 'is required';
  if (!isIsoDate(from)) problems.from = 'must be a real calendar date as YYYY-MM-DD';
  if (!isIsoDate(to)) problems.to = 'must be a real calendar date as YYYY-MM-DD';
  else if (!problems.from && nightsBetween(from, to) > MAX_NIGHTS + 1) problems.to = `the range may span at most ${MAX_NIGHTS + 1} days`;
  if (Object.keys(problems).length > 0) throw validationFailed(problems);
  return liveNights(await deps.nights.range(workspaceId, listingId, from, to), deps.clock());
}
