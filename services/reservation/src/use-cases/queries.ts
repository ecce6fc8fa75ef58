// Reads: the reservations of a workspace, one reservation, a quote, and the nights a listing's
// reservations hold (for its calendar). An inactive listing's reservations are 403 (spec 5).
import { assertListingsActive } from '@vrp/activity-cache';
import { assertSupported } from '@vrp/pms-matrix';
import { validationFailed } from '@vrp/platform/errors';
import type { PageWindow } from '@vrp/platform/paging';
import { liveNights } from '../domain/occupancy';
import { priceStay, type StayPrice } from '../domain/pricing';
import { isIsoDate, nightsBetween, parseReservationFilters, todayUtc, type ReservationQueryInput, type ReservationRecord } from '../domain/reservation';
import { MAX_NIGHTS } from '../domain/writes';
import { ReservationUseCase } from './context';

export interface QuoteResult {
  propertyId: string;
  checkIn: string;
  checkOut: string;
  nights: number;
  currency: string;
  price: StayPrice;
}

export class ReservationQueries extends ReservationUseCase {
  async list(workspaceId: string, query: ReservationQueryInput, window: PageWindow) {
    const filters = parseReservationFilters(query);
    if (filters.propertyId) {
      // Spec 7: not_found first. The listing service decides existence (an unknown id, another
      // workspace's or a deleted listing is 404); a channel id names its listing here too; then
      // filtering on an inactive listing is a 403.
      filters.propertyId = (await this.deps.listings.resolve(workspaceId, filters.propertyId)).id;
      await assertListingsActive(this.deps.activity, workspaceId, [filters.propertyId]);
    }
    const scope = { today: todayUtc(this.now()), excludedPropertyIds: this.deps.activity.inactiveIds(workspaceId) };
    return this.deps.reservations.page(workspaceId, filters, scope, window);
  }

  /** 404 first (the reservation is not in the workspace), then 403 (its listing is inactive). */
  async get(workspaceId: string, id: string): Promise<ReservationRecord> {
    const found = await this.deps.reservations.get(workspaceId, id);
    await assertListingsActive(this.deps.activity, workspaceId, [found.propertyId]);
    return found;
  }
  async quote(workspaceId: string, propertyId: string, checkIn: string, checkOut: string): Promise<QuoteResult> {
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
    const listing = await this.activeListing(workspaceId, propertyId);
    assertSupported(listing.pmsProvider, 'reservation.quote');
    // Booked or closed nights are refused as a create would refuse them.
    const calendar = await this.availableStay(workspaceId, listing.id, checkIn, checkOut);
    const price = priceStay({ nights: calendar, cleaningFee: listing.cleaningFee, taxRate: listing.taxRate });
    return { propertyId: listing.id, checkIn, checkOut, nights: nightsBetween(checkIn, checkOut), currency: listing.currency, price };
  }

  /**
   * The nights of a listing held in from..to (inclusive), for the listing's calendar: stays, and
   * nights held pending while a PMS answers (a lapsed hold of a dead writer is free).
   */
  async bookedNights(workspaceId: string, listingId: string, from: string, to: string) {
    const problems: Record<string, string> = {};
    if (!listingId) problems.listingId = 'is required';
    if (!isIsoDate(from)) problems.from = 'must be a real calendar date as YYYY-MM-DD';
    if (!isIsoDate(to)) problems.to = 'must be a real calendar date as YYYY-MM-DD';
    else if (!problems.from && nightsBetween(from, to) > MAX_NIGHTS + 1) problems.to = `the range may span at most ${MAX_NIGHTS + 1} days`;
    if (Object.keys(problems).length > 0) throw validationFailed(problems);
    return liveNights(await this.deps.nights.range(workspaceId, listingId, from, to), this.now());
  }
}
