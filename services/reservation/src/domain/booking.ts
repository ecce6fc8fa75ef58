// The booking rule, in one place: which nights a stay claims, what counts as a conflict, and how a
// PMS's own booking differs from a local write. Pure: no I/O. The store enforces the outcome
// atomically (store/night-store.ts: one document per held night, so two stays never hold one
// night); use-cases/hold-nights.ts reads the nights, asks these functions, and writes.
//
// - A PENDING or CONFIRMED stay (owner blocks included) claims every night of [checkIn, checkOut)
//   on its listing; a CANCELLED one claims none. The check-out day is free for the next guest.
// - A local write (an API create, change or quote) is refused with 409 dates_unavailable when a
//   night it needs is closed on the listing's calendar, held by another stay, or held pending by
//   another write still waiting for its PMS (409 idempotency_in_progress when that write is a
//   retry of this one, same Idempotency-Key).
// - A PMS's own booking (synced from the PMS, or accepted by it after a relay) is a fact: it is
//   never refused. It takes the free nights, other writes' pending holds give way to it, and it
//   and every stay holding one of its nights are flagged (`conflictsWith`) while they still
//   share a night (conflictFlagHolds).
// - With the workspace setting `bufferNights` (off by default), a local write also needs the night
//   before check-in and the night of check-out free of other stays; a PMS booking does not.
import type { WorkspaceSettings } from '@vrp/api-model';
import { AppError } from '@vrp/platform/errors';
import { datesUnavailable, type DateConflict } from './date-conflict';
import { addDays, nightsBetween, type ReservationRecord } from './reservation';

/** Statuses that hold nights. POST_STAY is CONFIRMED as stored, so an ended stay keeps its nights. */
export const OCCUPYING_STATUSES = ['PENDING', 'CONFIRMED'] as const;

/**
 * Who writes a stay. `local`: an API write, refused when a night it needs is taken (also the
 * pending hold of an API write on a PMS listing, before the relay). `pms`: the PMS has the
 * booking (synced, or it accepted the relayed write): never refused, overlaps flagged.
 */
export type WriteKind = 'local' | 'pms';

type Stay = Pick<ReservationRecord, 'status' | 'checkIn' | 'checkOut'>;

export function holdsNights(r: Pick<ReservationRecord, 'status'>): boolean {
  return (OCCUPYING_STATUSES as readonly string[]).includes(r.status);
}

/** Every night of a stay: checkIn up to the day before checkOut (empty when checkOut <= checkIn). */
export function stayNights(checkIn: string, checkOut: string): string[] {
  const n = nightsBetween(checkIn, checkOut);
  return Array.from({ length: Math.max(n, 0) }, (_, i) => addDays(checkIn, i));
}

/** The nights a stay holds as it stands (none once cancelled). */
export function claimedNights(r: Stay): string[] {
  return holdsNights(r) ? stayNights(r.checkIn, r.checkOut) : [];
}

/** What a write of a stay claims: the nights it will hold, and the nights no other stay may hold. */
export interface StayClaim {
  /** The nights the stay holds (its documents in booked_nights). */
  nights: string[];
  /** The nights that must be free of other stays for the write to go on (`nights` and any around them the rule asks for). */
  mustBeFree: string[];
}

/**
 * The claim of a stay written by `kind`, under the workspace's settings (PUT
 * /admin/v1/workspaces/{id}/settings, docs/reservations.md). Nights of `mustBeFree` beyond
 * `nights` are checked, not held: writes that check such nights are serialised per listing
 * (store/night-store.ts, guardListing), so two of them never both find the other's nights free.
 */
export function stayClaim(r: Stay, kind: WriteKind, settings: WorkspaceSettings): StayClaim {
  const nights = claimedNights(r);
  // bufferNights: the night before check-in and the night of check-out must be free too. A
  // PMS's booking is a fact the PMS already made: it needs nothing beyond its own nights.
  if (settings.bufferNights && kind === 'local' && nights.length > 0) return { nights, mustBeFree: [addDays(r.checkIn, -1), ...nights, r.checkOut] };
  return { nights, mustBeFree: nights };
}

/** Whether a claim checks nights it does not hold (then its write is serialised per listing). */
export function checksBeyondOwnNights(claim: StayClaim): boolean {
  const own = new Set(claim.nights);
  return claim.mustBeFree.some((n) => !own.has(n));
}

/** Whether a change of a stay changes the nights it holds (new dates, another listing, a status that holds or frees them). */
export function changesNights(current: Pick<ReservationRecord, 'status' | 'checkIn' | 'checkOut' | 'propertyId'>, next: typeof current): boolean {
  return (
    current.checkIn !== next.checkIn ||
    current.checkOut !== next.checkOut ||
    current.propertyId !== next.propertyId ||
    holdsNights(current) !== holdsNights(next)
  );
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

/** Who is asking, and when: the write's own reservation id, its Idempotency-Key ('' without one), the service's clock. */
export interface WriteContext {
  self: string;
  key: string;
  now: Date;
}

/**
 * The decision of a local write: throws 409 dates_unavailable naming every night of the claim
 * that is held (live) by another stay or write in `booked`, or, among the nights it will hold,
 * closed on `calendar`; 409
 * idempotency_in_progress instead when a live pending hold is this same request's (a retry that
 * arrived while the first attempt waits for its PMS: dates_unavailable would be recorded as the
 * key's outcome while the first may still succeed).
 */
export function assertStayFree(
  claim: StayClaim,
  calendar: readonly { date: string; available: boolean }[],
  booked: readonly BookedNight[],
  at: WriteContext,
): void {
  const live = liveNights(booked, at.now);
  const running = at.key ? live.find((b) => b.holdUntil != null && b.holdKey === at.key) : undefined;
  if (running?.holdUntil) {
    throw new AppError('idempotency_in_progress', 'A request with this Idempotency-Key is still waiting for its PMS; retry after the time in Retry-After.', {
      retryAfterSeconds: Math.max(1, Math.ceil((running.holdUntil.getTime() - at.now.getTime()) / 1000)),
    });
  }
  // Closed on the calendar counts for the nights the stay holds; the others only need to be free of stays.
  const own = new Set(claim.nights);
  const conflicts = dateConflicts(
    claim.mustBeFree,
    calendar.filter((d) => own.has(d.date)),
    live,
    at.self,
  );
  if (conflicts.length > 0) throw datesUnavailable(conflicts);
}

/** What a write does to the nights of its listing, decided from the nights it found held (holdPlan). */
export interface HoldPlan {
  /** Other writes' pending holds that give way to this one (nights to drop). */
  giveWay: string[];
  /** The nights to take (the claim's nights not held by anyone left). */
  take: string[];
  /** This stay's own pending holds become its stay's nights. */
  confirmOwnPending: boolean;
  /** The other stays holding a night of the claim (PMS bookings only; a local write is refused instead): flagged both ways. */
  overlaps: string[];
}

/**
 * The booking rule applied to the nights a write found held (`held`: every night of
 * `claim.mustBeFree` that someone holds). Pending holds of other writes give way when they
 * lapsed, and always to a PMS booking; a local write is refused when anything else is held
 * (assertStayFree); a PMS booking takes the free nights and overlaps the rest. `pending`: the
 * write takes its nights as a pending hold (it keeps its own pending holds pending).
 */
export function holdPlan(claim: StayClaim, held: readonly BookedNight[], kind: WriteKind, at: WriteContext & { pending: boolean }): HoldPlan {
  const giveWay = held.filter((h) => h.reservationId !== at.self && h.holdUntil != null && (kind === 'pms' || holdLapsed(h, at.now)));
  const standing = held.filter((h) => !giveWay.includes(h));
  const others = standing.filter((h) => h.reservationId !== at.self);
  if (kind === 'local' && others.length > 0) assertStayFree(claim, [], others, at);
  const taken = new Set(standing.map((h) => h.night));
  return {
    giveWay: giveWay.map((h) => h.night),
    take: claim.nights.filter((n) => !taken.has(n)),
    confirmOwnPending: !at.pending && standing.some((h) => h.reservationId === at.self && h.holdUntil != null),
    overlaps: holdersOf(others, at.self),
  };
}

/** The distinct reservations (other than `self`) holding any of these nights. */
export function holdersOf(booked: readonly BookedNight[], self: string): string[] {
  return [...new Set(booked.filter((b) => b.reservationId !== self).map((b) => b.reservationId))].sort();
}

/**
 * Whether a conflict flag between two stays still holds: both hold nights (PENDING or
 * CONFIRMED), on the same listing, with intersecting stays. A `conflictsWith` entry lasts
 * exactly as long as this is true; it decides when flags are cleared, and refuses nothing.
 */
export function conflictFlagHolds(
  a: Pick<ReservationRecord, 'status' | 'propertyId' | 'checkIn' | 'checkOut'>,
  b: Pick<ReservationRecord, 'status' | 'propertyId' | 'checkIn' | 'checkOut'>,
): boolean {
  return holdsNights(a) && holdsNights(b) && a.propertyId === b.propertyId && a.checkIn < b.checkOut && b.checkIn < a.checkOut;
}
