// Night occupancy: which nights a reservation holds on its listing, and which nights of a stay
// are taken (spec of issue #12: availability is the source of truth). No I/O here.
//
// A PENDING or CONFIRMED reservation (owner blocks included) holds every night of
// [checkIn, checkOut) on its listing; a CANCELLED one holds none. Closed nights live on the
// listing's calendar (listing service); booked nights live in this service's `booked_nights`
// collection, written in the same transaction as the reservation.
import type { DateConflict } from './date-conflict';
import { addDays, nightsBetween, type ReservationRecord } from './reservation';

/** Statuses that hold nights. POST_STAY is CONFIRMED as stored, so an ended stay keeps its nights. */
export const OCCUPYING_STATUSES = ['PENDING', 'CONFIRMED'] as const;

export function holdsNights(r: Pick<ReservationRecord, 'status'>): boolean {
  return (OCCUPYING_STATUSES as readonly string[]).includes(r.status);
}

/** Every night of a stay: checkIn up to the day before checkOut (empty when checkOut <= checkIn). */
export function stayNights(checkIn: string, checkOut: string): string[] {
  const n = nightsBetween(checkIn, checkOut);
  return Array.from({ length: Math.max(n, 0) }, (_, i) => addDays(checkIn, i));
}

/** The nights a reservation holds as it stands (none once cancelled). */
export function heldNights(r: Pick<ReservationRecord, 'status' | 'checkIn' | 'checkOut'>): string[] {
  return holdsNights(r) ? stayNights(r.checkIn, r.checkOut) : [];
}

export interface BookedNight {
  night: string;
  reservationId: string;
  /**
   * Set while the night is a pending hold: a write on a PMS listing holds its nights before it
   * is relayed, and keeps them (renewing this time) while the PMS answers. A hold whose time
   * has passed (its holder died) is free. Null or absent: the night of a stored stay.
   */
  holdUntil?: Date | null;
  /** The Idempotency-Key of the write holding a pending hold ('' when it had none). */
  holdKey?: string;
}

/** A pending hold whose holder stopped renewing it: the night is free. */
export function holdLapsed(b: BookedNight, now: Date): boolean {
  return b.holdUntil != null && b.holdUntil.getTime() <= now.getTime();
}

/**
 * A live pending hold taken by a write with this Idempotency-Key: the same request, still running
 * elsewhere (a retry that reached this service while the first attempt waits for its PMS).
 */
export function sameRequestHold(booked: readonly BookedNight[], key: string, now: Date): BookedNight | undefined {
  return key ? booked.find((b) => b.holdUntil != null && b.holdKey === key && !holdLapsed(b, now)) : undefined;
}

/** The nights that are taken at `now`: stored stays and live pending holds. */
export function liveNights<T extends BookedNight>(booked: readonly T[], now: Date): T[] {
  return booked.filter((b) => !holdLapsed(b, now));
}

/**
 * The nights of a stay that it cannot have, in date order, one entry per night: booked by
 * another reservation (named), else closed on the calendar. Nights held by `self` (the
 * reservation being changed) are not conflicts.
 */
export function dateConflicts(
  nights: readonly string[],
  calendar: readonly { date: string; available: boolean }[],
  booked: readonly BookedNight[],
  self = '',
): DateConflict[] {
  const closed = new Set(calendar.filter((d) => !d.available).map((d) => d.date));
  const holders = new Map(booked.filter((b) => b.reservationId !== self).map((b) => [b.night, b.reservationId]));
  const out: DateConflict[] = [];
  for (const night of [...nights].sort()) {
    const holder = holders.get(night);
    if (holder) out.push({ date: night, reason: 'booked', reservationId: holder });
    else if (closed.has(night)) out.push({ date: night, reason: 'closed' });
  }
  return out;
}

/** The distinct reservations (other than `self`) holding any of these nights. */
export function holdersOf(booked: readonly BookedNight[], self: string): string[] {
  return [...new Set(booked.filter((b) => b.reservationId !== self).map((b) => b.reservationId))].sort();
}

/**
 * True while two reservations hold a common night: both hold nights (PENDING or CONFIRMED), on
 * the same listing, with intersecting stays. A `conflict` flag lasts exactly as long as this.
 */
export function staysOverlap(
  a: Pick<ReservationRecord, 'status' | 'propertyId' | 'checkIn' | 'checkOut'>,
  b: Pick<ReservationRecord, 'status' | 'propertyId' | 'checkIn' | 'checkOut'>,
): boolean {
  return holdsNights(a) && holdsNights(b) && a.propertyId === b.propertyId && a.checkIn < b.checkOut && b.checkIn < a.checkOut;
}
