// The API's JSON of a reservation (docs/reservations.md) and of a quote, from the reservation service's
// proto messages. Responses and webhook payloads both use these, so they look the same; the
// types are the schemas' (./schemas/reservation.ts). And the other way: a create's body as the
// reservation service's message.
import type { z } from 'zod';
import { reservation as pb } from '@vrp/contracts';
import type { breakdownSchema, createReservationBody, quoteSchema, reservationSchema } from './schemas/reservation';
import type { ReservationSource, ReservationStatus } from './vocabulary';

export type ApiBreakdown = z.infer<typeof breakdownSchema>;
export type ApiMoneyLine = ApiBreakdown['fees'][number];
export type ApiReservation = z.infer<typeof reservationSchema>;
export type ApiQuote = z.infer<typeof quoteSchema>;

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
    // The reservation service sends only members of these sets (its records are validated by them).
    status: r.status as ReservationStatus,
    source: r.source as ReservationSource,
    confirmationCode: r.confirmationCode,
    checkIn: r.checkIn,
    checkOut: r.checkOut,
    checkInTime: orNull(r.checkInTime),
    checkOutTime: orNull(r.checkOutTime),
    primaryGuest: {
      firstName: g?.firstName ?? '',
      lastName: g?.lastName ?? '',
      email: orNull(g?.email ?? ''),
      language: orNull(g?.language ?? ''),
      phone: orNull(g?.phone ?? ''),
    },
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

/** The reservation service's NewReservation of a create's body (`createReservationBody`). */
export function toNewReservation(body: z.output<typeof createReservationBody>): pb.NewReservation {
  return pb.NewReservation.create({
    propertyId: body.propertyId,
    checkIn: body.checkIn,
    checkOut: body.checkOut,
    primaryGuest: {
      firstName: body.primaryGuest.firstName,
      lastName: body.primaryGuest.lastName ?? '',
      email: body.primaryGuest.email ?? '',
      phone: body.primaryGuest.phone ?? '',
    },
    ...(body.occupancy ? { occupancy: body.occupancy } : {}),
    ...(body.financials?.totalPrice !== undefined ? { totalPrice: body.financials.totalPrice } : {}),
    currency: body.financials?.currency ?? '',
    source: body.source ?? '',
    platform: body.platform ?? '',
    unitId: body.unitId ?? '',
    tentativeHold: body.tentativeHold ?? false,
    groupId: body.groupId ?? '',
    roomTypeId: body.roomTypeId ?? '',
    ...(body.notes ? { notes: { host: body.notes.host ?? '', guest: body.notes.guest ?? '' } } : {}),
    customFields: body.customFields ?? {},
  });
}
