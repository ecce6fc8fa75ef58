// The rules of reservation writes: what a create or a change must contain, and which writes of
// the PMS capability matrix it amounts to, so that a write a listing's PMS cannot perform is
// refused (422 pms_write_unsupported, docs/api.md) before anything is sent to a PMS. No I/O here.
import {
  CURRENCY_PATTERN,
  CUSTOM_FIELD_KEY_PATTERN,
  MAX_CUSTOM_FIELD_KEY_LENGTH,
  MAX_CUSTOM_FIELD_VALUE_LENGTH,
  MAX_CUSTOM_FIELDS,
  MAX_NIGHTS,
  MAX_NOTE_LENGTH,
  MAX_PRIMARY_GUEST_NAME_LENGTH,
  MAX_PRIMARY_GUEST_PHONE_LENGTH,
  TIME_PATTERN,
} from '@vrp/api-model';
import { assertSupported, CREATE_REQUIRES_TOTAL_PRICE, type PmsWrite } from '@vrp/pms-matrix';
import { validationFailed } from '@vrp/platform/errors';
import {
  PLATFORMS,
  RESERVATION_SOURCES,
  WRITABLE_STATUSES,
  isIsoDate,
  isOneOf,
  nightsBetween,
  type Notes,
  type Occupancy,
  type Platform,
  type ReservationRecord,
  type ReservationSource,
  type WritableStatus,
} from './reservation';

// The limits and patterns are the API's vocabulary (@vrp/api-model), which the gateway checks too.
export { MAX_CUSTOM_FIELDS, MAX_NIGHTS, MAX_NOTE_LENGTH };

type Problems = Record<string, string>;

export interface NewReservationInput {
  propertyId: string;
  checkIn: string;
  checkOut: string;
  primaryGuest: { firstName: string; lastName: string; email: string; phone: string };
  occupancy?: Occupancy;
  totalPrice?: number;
  currency: string;
  source: string;
  platform: string;
  unitId: string;
  tentativeHold: boolean;
  groupId: string;
  roomTypeId: string;
  notes?: Partial<Notes>;
  customFields: Record<string, string>;
}

export interface NewReservation extends Omit<NewReservationInput, 'source' | 'platform' | 'occupancy' | 'notes'> {
  source: ReservationSource;
  platform: '' | Platform;
  occupancy: Occupancy;
  notes: Notes;
}

function stayProblems(checkIn: string, checkOut: string, problems: Problems): void {
  if (!checkIn) problems.checkIn = 'is required (YYYY-MM-DD)';
  else if (!isIsoDate(checkIn)) problems.checkIn = 'must be a real calendar date as YYYY-MM-DD';
  if (!checkOut) problems.checkOut = 'is required (YYYY-MM-DD)';
  else if (!isIsoDate(checkOut)) problems.checkOut = 'must be a real calendar date as YYYY-MM-DD';
  if (problems.checkIn || problems.checkOut) return;
  const nights = nightsBetween(checkIn, checkOut);
  if (nights < 1) problems.checkOut = 'must be after checkIn';
  else if (nights > MAX_NIGHTS) problems.checkOut = `must be at most ${MAX_NIGHTS} nights after checkIn`;
}

function customFieldProblems(fields: Record<string, string>, problems: Problems): void {
  const keys = Object.keys(fields);
  if (keys.length > MAX_CUSTOM_FIELDS) problems.customFields = `may hold at most ${MAX_CUSTOM_FIELDS} keys`;
  for (const key of keys) {
    if (key.length === 0 || key.length > MAX_CUSTOM_FIELD_KEY_LENGTH || !CUSTOM_FIELD_KEY_PATTERN.test(key)) {
      problems[`customFields.${key}`] = `keys must be 1..${MAX_CUSTOM_FIELD_KEY_LENGTH} characters, without "." or a leading "$"`;
    } else if (typeof fields[key] !== 'string' || fields[key].length > MAX_CUSTOM_FIELD_VALUE_LENGTH) {
      problems[`customFields.${key}`] = `must be a string of at most ${MAX_CUSTOM_FIELD_VALUE_LENGTH} characters`;
    }
  }
}

function noteProblems(notes: Partial<Notes> | undefined, problems: Problems): void {
  for (const field of ['host', 'guest'] as const) {
    if ((notes?.[field]?.length ?? 0) > MAX_NOTE_LENGTH) problems[`notes.${field}`] = `must be at most ${MAX_NOTE_LENGTH} characters`;
  }
}

/** Validates a create, naming every bad field as the API body names it. */
export function parseNewReservation(input: NewReservationInput): NewReservation {
  const problems: Problems = {};
  if (!input.propertyId) problems.propertyId = 'is required';
  stayProblems(input.checkIn, input.checkOut, problems);
  if (!input.primaryGuest.firstName.trim()) problems['primaryGuest.firstName'] = 'is required';
  for (const field of ['firstName', 'lastName'] as const) {
    if (input.primaryGuest[field].trim().length > MAX_PRIMARY_GUEST_NAME_LENGTH)
      problems[`primaryGuest.${field}`] = `must be at most ${MAX_PRIMARY_GUEST_NAME_LENGTH} characters`;
  }
  if (input.primaryGuest.phone.length > MAX_PRIMARY_GUEST_PHONE_LENGTH)
    problems['primaryGuest.phone'] = `must be at most ${MAX_PRIMARY_GUEST_PHONE_LENGTH} characters`;
  const occupancy = input.occupancy ?? { adults: 1, children: 0, infants: 0, pets: 0 };
  for (const field of ['adults', 'children', 'infants', 'pets'] as const) {
    const n = occupancy[field];
    if (!Number.isInteger(n) || n < 0) problems[`occupancy.${field}`] = 'must be a non-negative integer';
  }
  if (input.totalPrice !== undefined && !(Number.isFinite(input.totalPrice) && input.totalPrice >= 0)) {
    problems['financials.totalPrice'] = 'must be a number >= 0';
  }
  if (input.currency && !CURRENCY_PATTERN.test(input.currency)) problems['financials.currency'] = 'must be an ISO 4217 code such as EUR';
  const source = input.source || 'DIRECT';
  if (!isOneOf(RESERVATION_SOURCES, source)) problems.source = `must be one of ${RESERVATION_SOURCES.join(', ')}`;
  if (input.platform && !isOneOf(PLATFORMS, input.platform)) problems.platform = `must be one of ${PLATFORMS.join(', ')} when given`;
  noteProblems(input.notes, problems);
  customFieldProblems(input.customFields, problems);
  if (Object.keys(problems).length > 0) throw validationFailed(problems);
  return {
    ...input,
    primaryGuest: { ...input.primaryGuest, firstName: input.primaryGuest.firstName.trim() },
    occupancy,
    source: source as ReservationSource,
    platform: input.platform as '' | Platform,
    notes: { host: input.notes?.host ?? '', guest: input.notes?.guest ?? '' },
  };
}

/** The matrix writes a create amounts to: the create itself plus each restricted kind of booking. */
export function createWrites(r: NewReservation): PmsWrite[] {
  const writes: PmsWrite[] = ['reservation.create'];
  if (r.platform === 'owner') writes.push('reservation.owner_block');
  if (r.unitId) writes.push('reservation.unit_id');
  if (r.tentativeHold) writes.push('reservation.tentative_hold');
  if (r.groupId) writes.push('reservation.group_booking');
  if (r.totalPrice !== undefined) writes.push('reservation.custom_price');
  if (r.notes.host || r.notes.guest) writes.push('reservation.notes');
  return writes;
}

/**
 * Refuses a create the listing's PMS cannot perform (`provider`: '' for a listing without a PMS,
 * which can do everything): 422 for each restricted kind of booking, and 400 when the PMS needs a
 * total price and none was given.
 */
export function assertCreateSupported(provider: string, r: NewReservation): void {
  for (const write of createWrites(r)) assertSupported(provider, write);
  if (provider && CREATE_REQUIRES_TOTAL_PRICE.includes(provider as never) && r.totalPrice === undefined) {
    throw validationFailed({ 'financials.totalPrice': `is required on listings managed by ${provider}` });
  }
}

/** The fields of a change; `S` is the status as sent (`string`) or as checked (`WritableStatus`). */
interface PatchFields<S extends string> {
  status?: S;
  checkIn?: string;
  checkOut?: string;
  notes?: Partial<Notes>;
  /** Merged: an empty value removes the key. */
  customFields: Record<string, string>;
  propertyId?: string;
  checkInTime?: string;
  checkOutTime?: string;
}

/** A change as the caller sent it, before parsePatch checks it. */
export type ReservationPatchInput = PatchFields<string>;

/** A checked change. */
export type ReservationPatch = PatchFields<WritableStatus>;

/** The custom fields after a patch is merged in: an empty value removes the key. */
function mergedCustomFields(current: Record<string, string>, patch: Record<string, string>): Record<string, string> {
  const merged = { ...current };
  for (const [k, v] of Object.entries(patch)) {
    if (v === '') delete merged[k];
    else merged[k] = v;
  }
  return merged;
}

/**
 * Validates a PATCH against the reservation it changes: the new dates must still make a stay,
 * and the custom fields after the merge must stay within MAX_CUSTOM_FIELDS keys.
 */
export function parsePatch(input: ReservationPatchInput, current: Pick<ReservationRecord, 'checkIn' | 'checkOut' | 'customFields'>): ReservationPatch {
  const problems: Problems = {};
  if (input.status !== undefined && !isOneOf(WRITABLE_STATUSES, input.status)) {
    problems.status = `must be one of ${WRITABLE_STATUSES.join(', ')} (POST_STAY follows from the dates and cannot be set)`;
  }
  if (input.checkIn !== undefined || input.checkOut !== undefined) {
    const dateProblems: Problems = {};
    stayProblems(input.checkIn ?? current.checkIn, input.checkOut ?? current.checkOut, dateProblems);
    // Name the field the caller sent when the other one is the stored value.
    for (const [field, message] of Object.entries(dateProblems)) {
      const sent = field === 'checkIn' ? input.checkIn !== undefined : input.checkOut !== undefined;
      problems[sent ? field : input.checkIn !== undefined ? 'checkIn' : 'checkOut'] = message;
    }
  }
  if (input.propertyId !== undefined && !input.propertyId) problems.propertyId = 'must not be empty';
  for (const field of ['checkInTime', 'checkOutTime'] as const) {
    const v = input[field];
    if (v !== undefined && !TIME_PATTERN.test(v)) problems[field] = 'must be a time as HH:MM (24 h)';
  }
  noteProblems(input.notes, problems);
  customFieldProblems(input.customFields, problems);
  const merged = Object.keys(mergedCustomFields(current.customFields, input.customFields)).length;
  if (!problems.customFields && merged > MAX_CUSTOM_FIELDS) {
    problems.customFields = `may hold at most ${MAX_CUSTOM_FIELDS} keys (the reservation would hold ${merged}); remove keys with an empty value`;
  }
  if (Object.keys(problems).length > 0) throw validationFailed(problems);
  return { ...input, status: input.status as WritableStatus | undefined };
}

/** What a patch really changes on this reservation (sending the current value changes nothing). */
export function patchChanges(p: ReservationPatch, r: ReservationRecord, targetPropertyId: string) {
  return {
    status: p.status !== undefined && p.status !== r.status,
    dates: (p.checkIn !== undefined && p.checkIn !== r.checkIn) || (p.checkOut !== undefined && p.checkOut !== r.checkOut),
    times: (p.checkInTime !== undefined && p.checkInTime !== r.checkInTime) || (p.checkOutTime !== undefined && p.checkOutTime !== r.checkOutTime),
    listing: targetPropertyId !== r.propertyId,
    notes:
      p.notes !== undefined &&
      ((p.notes.host !== undefined && p.notes.host !== r.notes.host) || (p.notes.guest !== undefined && p.notes.guest !== r.notes.guest)),
    customFields: Object.entries(p.customFields).some(([k, v]) => (r.customFields[k] ?? '') !== v),
  };
}

export type PatchChanges = ReturnType<typeof patchChanges>;

/** The matrix writes a change amounts to. Cancelling through PATCH is a cancel. */
export function patchWrites(p: ReservationPatch, changes: PatchChanges): PmsWrite[] {
  const writes: PmsWrite[] = [];
  if (changes.status) writes.push(p.status === 'CANCELLED' ? 'reservation.cancel' : 'reservation.modify');
  if (changes.dates) writes.push('reservation.modify', 'reservation.change_dates');
  if (changes.times) writes.push('reservation.change_times');
  if (changes.listing) writes.push('reservation.move_listing');
  if (changes.notes) writes.push('reservation.notes');
  if (changes.customFields) writes.push('reservation.modify');
  return [...new Set(writes)];
}

/**
 * Refuses a change the PMS of the stay's listing (`provider`) cannot perform; moving a stay onto
 * a PMS listing (`targetProvider`) would create it in that PMS: the same refusal.
 */
export function assertChangeSupported(provider: string, targetProvider: string, writes: readonly PmsWrite[], changes: PatchChanges): void {
  for (const write of writes) assertSupported(provider, write);
  if (changes.listing) assertSupported(targetProvider, 'reservation.move_listing');
}

/** The operation relayed for a change: a pure cancel is a cancel, anything else a modify. */
export function relayOperation(writes: PmsWrite[]): PmsWrite {
  return writes.length === 1 && writes[0] === 'reservation.cancel' ? 'reservation.cancel' : 'reservation.modify';
}

/** The record after a patch (the caller has validated and resolved the target listing). */
export function applyPatch(r: ReservationRecord, p: ReservationPatch, propertyId: string, now: Date): ReservationRecord {
  const customFields = mergedCustomFields(r.customFields, p.customFields);
  return {
    ...r,
    propertyId,
    status: p.status ?? r.status,
    checkIn: p.checkIn ?? r.checkIn,
    checkOut: p.checkOut ?? r.checkOut,
    checkInTime: p.checkInTime ?? r.checkInTime,
    checkOutTime: p.checkOutTime ?? r.checkOutTime,
    notes: { host: p.notes?.host ?? r.notes.host, guest: p.notes?.guest ?? r.notes.guest },
    customFields,
    updatedAt: now,
  };
}
