// Availability and nightly-price calendar of a listing: date arithmetic, request validation and
// the defaults of days nobody has written. No I/O here.
//
// Dates are calendar dates (YYYY-MM-DD strings) in the listing's own time zone, never instants:
// a night is "the night of 2025-07-14" wherever the caller is. All arithmetic therefore runs in
// UTC on midnight timestamps, where every day has exactly 24 hours (no DST gaps), and the string
// form sorts the same way as the date, so stores can range-query it as a plain string.

import { MAX_AVAILABILITY_UPDATES, MAX_CALENDAR_RANGE_DAYS, MAX_MIN_NIGHTS } from '@vrp/api-model';

/** Longest range GetCalendar reads and one availability update writes (a leap year). */
export const MAX_RANGE_DAYS = MAX_CALENDAR_RANGE_DAYS;
/** Most updates one UpdateAvailability request carries. */
export const MAX_UPDATES = MAX_AVAILABILITY_UPDATES;
/** Listing-days one batch may write in total: keeps a batch well inside one request's deadline. */
export const MAX_BATCH_DAYS = 3700;
export const MIN_NIGHTS_MAX = MAX_MIN_NIGHTS;

const DAY_MS = 86_400_000;
const DATE_SHAPE = /^(\d{4})-(\d{2})-(\d{2})$/;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** True for a YYYY-MM-DD string naming a day that exists (2024-02-29 yes, 2025-02-30 no). */
export function isRealDate(s: string): boolean {
  const m = DATE_SHAPE.exec(s);
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

function toEpochDay(date: string): number {
  const m = DATE_SHAPE.exec(date);
  if (!m) throw new RangeError(`not a YYYY-MM-DD date: ${date}`);
  const t = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0-99 onto 1900-1999.
  t.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return Math.round(t.getTime() / DAY_MS);
}

function fromEpochDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** The date `n` days after `date` (before it when n < 0). */
export function addDays(date: string, n: number): string {
  return fromEpochDay(toEpochDay(date) + n);
}

/** Number of days in the inclusive range from..to (0 when to is before from). */
export function daysInRange(from: string, to: string): number {
  return Math.max(toEpochDay(to) - toEpochDay(from) + 1, 0);
}

/** Every date from `from` to `to`, both included, in order; empty when to is before from. */
export function eachDate(from: string, to: string): string[] {
  const start = toEpochDay(from);
  const end = toEpochDay(to);
  const out: string[] = [];
  for (let d = start; d <= end; d++) out.push(fromEpochDay(d));
  return out;
}

/** The nights of a stay: check-in up to the day before check-out. */
export function nightsOf(checkIn: string, checkOut: string): string[] {
  return eachDate(checkIn, addDays(checkOut, -1));
}

type Problems = Record<string, string>;

/**
 * Problems of an inclusive date range, keyed by field (`${prefix}from`, `${prefix}to`). Both
 * ends are required real dates, from <= to, and the range spans at most MAX_RANGE_DAYS.
 */
export function rangeProblems(from: string, to: string, prefix = ''): Problems {
  const problems: Problems = {};
  for (const [field, value] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (!value) problems[`${prefix}${field}`] = 'is required (YYYY-MM-DD)';
    else if (!isRealDate(value)) problems[`${prefix}${field}`] = `'${value}' is not a real calendar date (YYYY-MM-DD)`;
  }
  if (Object.keys(problems).length > 0) return problems;
  if (from > to) problems[`${prefix}to`] = `must not be before from (${from})`;
  else if (daysInRange(from, to) > MAX_RANGE_DAYS) problems[`${prefix}to`] = `the range may span at most ${MAX_RANGE_DAYS} days`;
  return problems;
}

/** The fields one availability update sets; absent ones keep their current value. */
export interface DayChanges {
  available?: boolean;
  price?: number;
  minNights?: number;
}

export interface AvailabilityUpdateInput extends DayChanges {
  listingId: string;
  from: string;
  to: string;
}

/** Problems of one update, keyed `${prefix}<field>` (e.g. `updates[2].price`). */
export function updateProblems(u: AvailabilityUpdateInput, prefix: string): Problems {
  const problems: Problems = {};
  if (!u.listingId) problems[`${prefix}listingId`] = 'is required';
  Object.assign(problems, rangeProblems(u.from, u.to, prefix));
  if (u.available === undefined && u.price === undefined && u.minNights === undefined) {
    problems[prefix.replace(/\.$/, '')] = 'must set at least one of available, price, minNights';
  }
  if (u.price !== undefined && !(Number.isFinite(u.price) && u.price >= 0)) {
    problems[`${prefix}price`] = 'must be a finite number >= 0';
  }
  if (u.minNights !== undefined && !(Number.isInteger(u.minNights) && u.minNights >= 1 && u.minNights <= MIN_NIGHTS_MAX)) {
    problems[`${prefix}minNights`] = `must be an integer from 1 to ${MIN_NIGHTS_MAX}`;
  }
  return problems;
}

/** Problems of a whole UpdateAvailability request (count bounds, then every update). */
export function availabilityRequestProblems(updates: AvailabilityUpdateInput[]): Problems {
  if (updates.length === 0) return { updates: 'must contain at least one update' };
  if (updates.length > MAX_UPDATES) return { updates: `must contain at most ${MAX_UPDATES} updates` };
  const problems: Problems = {};
  updates.forEach((u, i) => Object.assign(problems, updateProblems(u, `updates[${i}].`)));
  if (Object.keys(problems).length === 0) {
    const total = updates.reduce((sum, u) => sum + daysInRange(u.from, u.to), 0);
    if (total > MAX_BATCH_DAYS)
      problems.updates = `may write at most ${MAX_BATCH_DAYS} listing-days in total (this batch has ${total}); split it into several requests`;
  }
  return problems;
}

/** Only the fields an update sets: the stored fields it does not name stay untouched. */
export function changesOf(u: DayChanges): DayChanges {
  const out: DayChanges = {};
  if (u.available !== undefined) out.available = u.available;
  if (u.price !== undefined) out.price = u.price;
  if (u.minNights !== undefined) out.minNights = u.minNights;
  return out;
}

export interface CalendarDay {
  date: string;
  available: boolean;
  price: number;
  minNights: number;
  /** The reservation holding the night; '' when none. */
  reservationId: string;
}

/** The calendar of one listing over a range of days, in the listing's currency. */
export interface ListingCalendar {
  listingId: string;
  currency: string;
  days: CalendarDay[];
}

/**
 * What a batch of availability changes did: the listings written (in request order, once each)
 * and the days written. Kept as JSON with the Idempotency-Key and answered again to a retry.
 */
export interface AvailabilityOutcome {
  listingIds: string[];
  daysUpdated: number;
}

/** What a day nobody wrote means: open, at the listing's default price, no minimum stay. */
export function defaultDay(date: string, defaultNightlyPrice: number): CalendarDay {
  return { date, available: true, price: defaultNightlyPrice, minNights: 1, reservationId: '' };
}

/** Every date of `dates`, taken from `stored` where a day was written, else the default. */
export function fillCalendar(dates: string[], stored: readonly Omit<CalendarDay, 'reservationId'>[], defaultNightlyPrice: number): CalendarDay[] {
  const byDate = new Map(stored.map((d) => [d.date, d]));
  return dates.map((date) => {
    const day = byDate.get(date);
    return day ? { date, available: day.available, price: day.price, minNights: day.minNights, reservationId: '' } : defaultDay(date, defaultNightlyPrice);
  });
}

/**
 * The calendar as guests see it: a night a reservation holds is unavailable and names the
 * reservation, whatever the calendar's own `available` says (reopening it does not free it).
 */
export function withBookings(days: readonly CalendarDay[], booked: readonly { date: string; reservationId: string }[]): CalendarDay[] {
  const holders = new Map(booked.map((b) => [b.date, b.reservationId]));
  return days.map((d) => {
    const reservationId = holders.get(d.date);
    return reservationId ? { ...d, available: false, reservationId } : d;
  });
}
