// Reservation records (docs/reservations.md) and the rules of the reservation collection's query
// (GET /v1/reservations, docs/api.md).
// No I/O here.
import {
  DATE_PATTERN,
  RESERVATION_PLATFORMS,
  RESERVATION_SOURCES,
  RESERVATION_STATUSES,
  WRITABLE_RESERVATION_STATUSES,
  isOneOf,
  type ReservationSource,
  type ReservationStatus,
  type WritableReservationStatus,
} from '@vrp/api-model';
import { validationFailed } from '@vrp/platform/errors';

// The API's vocabulary (@vrp/api-model) decides the sets; re-exported under the domain's names.
export { RESERVATION_SOURCES, RESERVATION_STATUSES, isOneOf, type ReservationSource, type ReservationStatus };

export interface PrimaryGuest {
  firstName: string;
  lastName: string;
  email: string;
  language: string;
  phone: string;
}

export interface Occupancy {
  adults: number;
  children: number;
  infants: number;
  pets: number;
}

export interface Fee {
  type: string;
  amount: number;
}

export interface Tax {
  type: string;
  amount: number;
  /** Fraction, e.g. 0.1 for 10 %. */
  rate: number;
}

export interface Discount {
  type: string;
  amount: number;
}

export interface Breakdown {
  basePrice: number;
  cleaningFee: number;
  fees: Fee[];
  taxes: Tax[];
  discounts: Discount[];
}

export interface Financials {
  totalPrice: number;
  currency: string;
  paymentStatus: string;
  breakdown: Breakdown;
}

export interface Notes {
  host: string;
  guest: string;
}

/** The create-time kinds of booking that PMSs restrict (docs/api.md, writes that a PMS cannot perform); defaults describe a plain guest stay. */
export const PLATFORMS = RESERVATION_PLATFORMS;
export type Platform = (typeof PLATFORMS)[number];

export interface ReservationRecord {
  id: string;
  workspaceId: string;
  /** The listing the reservation belongs to. */
  propertyId: string;
  roomTypeId: string;
  /** As stored; readers see POST_STAY once the stay has ended (effectiveStatus). */
  status: WritableStatus;
  source: ReservationSource;
  /** Assigned by the service on create; unique within a workspace. */
  confirmationCode: string;
  /** YYYY-MM-DD: the format sorts and compares correctly as a string. */
  checkIn: string;
  checkOut: string;
  primaryGuest: PrimaryGuest;
  /** The guest profile (guest service) this reservation is linked to; empty when none. */
  guestId: string;
  occupancy: Occupancy;
  financials: Financials;
  bookedAt: Date;
  updatedAt: Date;
  /** Written through PATCH and returned in reads. */
  notes: Notes;
  customFields: Record<string, string>;
  /** HH:MM local time of the listing; '' = the listing's own check-in / check-out time. */
  checkInTime: string;
  checkOutTime: string;
  /** 'owner' for an owner block, '' for a guest stay. */
  platform: '' | Platform;
  /** A specific unit of a multi-unit listing; '' when none. */
  unitId: string;
  tentativeHold: boolean;
  /** Shared by the reservations of one group booking; '' when not part of a group. */
  groupId: string;
  /** The PMS managing the listing at booking time and its id of the reservation ('' when none). */
  pmsProvider: string;
  pmsExternalId: string;
  /** When the PMS last changed it (sync); older sync messages are ignored. */
  pmsUpdatedAt: Date | null;
  /** 1 on create, +1 on every change: the API's ETag and If-Match compare it. */
  version: number;
  /** Reservations whose nights overlap this one: only ever set when a PMS booking was applied over a local one. */
  conflictsWith: string[];
  /** The Idempotency-Key of the create that wrote it ('' when none); unique per workspace. */
  idempotencyKey: string;
}

/** What every new reservation is given; every other field starts empty (no notes, times, PMS link or conflicts). */
export type NewReservationFields = Pick<
  ReservationRecord,
  | 'id'
  | 'workspaceId'
  | 'propertyId'
  | 'status'
  | 'source'
  | 'confirmationCode'
  | 'checkIn'
  | 'checkOut'
  | 'primaryGuest'
  | 'occupancy'
  | 'financials'
  | 'bookedAt'
  | 'updatedAt'
> &
  Partial<ReservationRecord>;

/** The one factory of a new reservation record (API create, PMS sync, tests, benchmarks). */
export function newReservationRecord(fields: NewReservationFields): ReservationRecord {
  return {
    roomTypeId: '',
    guestId: '',
    notes: { host: '', guest: '' },
    customFields: {},
    checkInTime: '',
    checkOutTime: '',
    platform: '',
    unitId: '',
    tentativeHold: false,
    groupId: '',
    pmsProvider: '',
    pmsExternalId: '',
    pmsUpdatedAt: null,
    version: 1,
    conflictsWith: [],
    idempotencyKey: '',
    ...fields,
  };
}

/** Statuses a caller may set through PATCH; POST_STAY is derived from the dates. */
export const WRITABLE_STATUSES = WRITABLE_RESERVATION_STATUSES;
export type WritableStatus = WritableReservationStatus;

/**
 * The status a reader sees. POST_STAY means "the stay has ended": a confirmed reservation
 * whose check-out day is today or earlier (UTC calendar date). The stored status stays what was
 * booked, so a date change back into the future makes it CONFIRMED again.
 */
export function effectiveStatus(r: Pick<ReservationRecord, 'status' | 'checkOut'>, today: string): ReservationStatus {
  if (r.status === 'CONFIRMED' && r.checkOut <= today) return 'POST_STAY';
  return r.status;
}

/** Today's calendar date in UTC, YYYY-MM-DD. */
export function todayUtc(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

/** The collection filters of GET /v1/reservations, validated; absent = not filtered. */
export interface ReservationFilters {
  status?: ReservationStatus;
  propertyId?: string;
  /** Inclusive bounds on checkIn, YYYY-MM-DD. */
  checkInAfter?: string;
  checkInBefore?: string;
  source?: ReservationSource;
  /** Exclusive: "only reservations updated after it". */
  updatedSince?: Date;
}

export interface ReservationQueryInput {
  status: string;
  propertyId: string;
  checkInAfter: string;
  checkInBefore: string;
  source: string;
  updatedSince?: Date;
}

const DATE = DATE_PATTERN;
const DAY_MS = 86_400_000;

/** Nights between two valid YYYY-MM-DD dates (negative when checkOut is before checkIn). */
export function nightsBetween(checkIn: string, checkOut: string): number {
  return Math.round((Date.parse(`${checkOut}T00:00:00Z`) - Date.parse(`${checkIn}T00:00:00Z`)) / DAY_MS);
}

/** The date `n` days after a valid YYYY-MM-DD date. */
export function addDays(date: string, n: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

/** A real calendar date in YYYY-MM-DD (rejects 2024-02-30, which would still compare fine). */
export function isIsoDate(value: string): boolean {
  if (!DATE.test(value)) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
}

/**
 * Validates the filters of a list request, naming every bad field at once. Empty strings mean
 * "not given" (proto3 strings have no unset state). Bad fields are named as the query
 * parameters of GET /v1/reservations, since that is what the API caller sent and will have to correct.
 */
export function parseReservationFilters(input: ReservationQueryInput): ReservationFilters {
  const fields: Record<string, string> = {};
  const filters: ReservationFilters = {};
  if (input.status) {
    if (isOneOf(RESERVATION_STATUSES, input.status)) filters.status = input.status;
    else fields.status = `must be one of ${RESERVATION_STATUSES.join(', ')}`;
  }
  if (input.source) {
    if (isOneOf(RESERVATION_SOURCES, input.source)) filters.source = input.source;
    else fields.source = `must be one of ${RESERVATION_SOURCES.join(', ')}`;
  }
  if (input.propertyId) filters.propertyId = input.propertyId;
  if (input.checkInAfter) {
    if (isIsoDate(input.checkInAfter)) filters.checkInAfter = input.checkInAfter;
    else fields.check_in_after = 'must be a date in YYYY-MM-DD format';
  }
  if (input.checkInBefore) {
    if (isIsoDate(input.checkInBefore)) filters.checkInBefore = input.checkInBefore;
    else fields.check_in_before = 'must be a date in YYYY-MM-DD format';
  }
  if (input.updatedSince) {
    if (Number.isNaN(input.updatedSince.getTime())) fields.updated_since = 'must be an ISO 8601 timestamp';
    else filters.updatedSince = input.updatedSince;
  }
  if (Object.keys(fields).length > 0) throw validationFailed(fields);
  return filters;
}
