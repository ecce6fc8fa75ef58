// The API's JSON of a reservation (spec 2.1) and of a quote, from the reservation service's
// proto messages. Responses and webhook payloads both use these, so they look the same.
import type { reservation as pb } from '@vrp/contracts';

export interface ApiMoneyLine {
  type: string;
  amount: number;
}

export interface ApiBreakdown {
  basePrice: number;
  cleaningFee: number;
  fees: ApiMoneyLine[];
  /** `rate` is a fraction (0.1 = 10 %). */
  taxes: (ApiMoneyLine & { rate: number })[];
  discounts: ApiMoneyLine[];
}

export interface ApiReservation {
  id: string;
  propertyId: string;
  roomTypeId: string | null;
  status: string;
  source: string;
  confirmationCode: string;
  checkIn: string;
  checkOut: string;
  /** HH:MM local time; null = the listing's own check-in / check-out time. */
  checkInTime: string | null;
  checkOutTime: string | null;
  primaryGuest: { firstName: string; lastName: string; email: string; language: string; phone: string };
  occupancy: { adults: number; children: number; infants: number; pets: number };
  financials: { totalPrice: number; currency: string; paymentStatus: string; breakdown: ApiBreakdown };
  notes: { host: string; guest: string };
  customFields: Record<string, string>;
  /** "owner" for an owner block, null for a guest stay. */
  platform: string | null;
  unitId: string | null;
  tentativeHold: boolean;
  groupId: string | null;
  /** The PMS managing the reservation, null when none. */
  pms: { provider: string; externalId: string } | null;
  bookedAt: string;
  updatedAt: string;
  /** Incremented by every change; the `ETag` of single-record responses is `"<version>"`. */
  version: number;
  /** Set when a PMS booking and a local one hold overlapping nights (both are kept); null otherwise. */
  conflict: { reservationIds: string[] } | null;
}

export interface ApiQuote {
  propertyId: string;
  checkIn: string;
  checkOut: string;
  nights: number;
  currency: string;
  totalPrice: number;
  breakdown: ApiBreakdown;
  available: boolean;
  unavailableDates: string[];
}

const orNull = (v: string): string | null => (v === '' ? null : v);
const iso = (d: Date | undefined): string => (d ?? new Date(0)).toISOString();

export function toApiBreakdown(b: pb.Breakdown | undefined): ApiBreakdown {
  return {
    basePrice: b?.basePrice ?? 0,
    cleaningFee: b?.cleaningFee ?? 0,
    fees: (b?.fees ?? []).map((f) => ({ type: f.type, amount: f.amount })),
    taxes: (b?.taxes ?? []).map((t) => ({ type: t.type, amount: t.amount, rate: t.rate })),
    discounts: (b?.discounts ?? []).map((d) => ({ type: d.type, amount: d.amount })),
  };
}

export function toApiReservation(r: pb.Reservation): ApiReservation {
  const g = r.primaryGuest;
  const o = r.occupancy;
  const f = r.financials;
  return {
    id: r.id,
    propertyId: r.propertyId,
    roomTypeId: orNull(r.roomTypeId),
    status: r.status,
    source: r.source,
    confirmationCode: r.confirmationCode,
    checkIn: r.checkIn,
    checkOut: r.checkOut,
    checkInTime: orNull(r.checkInTime),
    checkOutTime: orNull(r.checkOutTime),
    primaryGuest: { firstName: g?.firstName ?? '', lastName: g?.lastName ?? '', email: g?.email ?? '', language: g?.language ?? '', phone: g?.phone ?? '' },
    occupancy: { adults: o?.adults ?? 0, children: o?.children ?? 0, infants: o?.infants ?? 0, pets: o?.pets ?? 0 },
    financials: { totalPrice: f?.totalPrice ?? 0, currency: f?.currency ?? '', paymentStatus: f?.paymentStatus ?? '', breakdown: toApiBreakdown(f?.breakdown) },
    notes: { host: r.notes?.host ?? '', guest: r.notes?.guest ?? '' },
    customFields: { ...r.customFields },
    platform: orNull(r.platform),
    unitId: orNull(r.unitId),
    tentativeHold: r.tentativeHold,
    groupId: orNull(r.groupId),
    pms: r.pmsProvider ? { provider: r.pmsProvider, externalId: r.pmsExternalId } : null,
    bookedAt: iso(r.bookedAt),
    updatedAt: iso(r.updatedAt),
    version: r.version,
    conflict: r.conflictsWith.length > 0 ? { reservationIds: [...r.conflictsWith] } : null,
  };
}

export function toApiQuote(q: pb.Quote): ApiQuote {
  return {
    propertyId: q.propertyId,
    checkIn: q.checkIn,
    checkOut: q.checkOut,
    nights: q.nights,
    currency: q.currency,
    totalPrice: q.totalPrice,
    breakdown: toApiBreakdown(q.breakdown),
    available: q.available,
    unavailableDates: [...q.unavailableDates],
  };
}
