// Domain <-> proto for the reservation service.
import { reservation as pb } from '@vrp/contracts';
import { effectiveStatus, todayUtc, type ReservationQueryInput, type ReservationRecord } from '../domain/reservation';
import type { NewReservationInput, ReservationPatchInput } from '../domain/writes';
import type { StayPrice } from '../domain/pricing';

/**
 * The reservation as readers see it at `now` (POST_STAY once the stay has ended). A create
 * answers with the status it stored (spec 3.1: create responses show CONFIRMED, even for a stay
 * recorded after the fact), so `asStored` skips the derivation.
 */
export function toProtoReservation(r: ReservationRecord, now: Date = new Date(), asStored = false): pb.Reservation {
  const { breakdown } = r.financials;
  return pb.Reservation.create({
    id: r.id,
    workspaceId: r.workspaceId,
    propertyId: r.propertyId,
    roomTypeId: r.roomTypeId,
    status: asStored ? r.status : effectiveStatus(r, todayUtc(now)),
    source: r.source,
    confirmationCode: r.confirmationCode,
    checkIn: r.checkIn,
    checkOut: r.checkOut,
    primaryGuest: { ...r.primaryGuest },
    occupancy: { ...r.occupancy },
    financials: {
      totalPrice: r.financials.totalPrice,
      currency: r.financials.currency,
      paymentStatus: r.financials.paymentStatus,
      breakdown: {
        basePrice: breakdown.basePrice,
        cleaningFee: breakdown.cleaningFee,
        fees: breakdown.fees.map((f) => ({ type: f.type, amount: f.amount })),
        taxes: breakdown.taxes.map((t) => ({ type: t.type, amount: t.amount, rate: t.rate })),
        discounts: breakdown.discounts.map((d) => ({ type: d.type, amount: d.amount })),
      },
    },
    bookedAt: r.bookedAt,
    updatedAt: r.updatedAt,
    guestId: r.guestId,
    notes: { host: r.notes.host, guest: r.notes.guest },
    customFields: { ...r.customFields },
    checkInTime: r.checkInTime,
    checkOutTime: r.checkOutTime,
    platform: r.platform,
    unitId: r.unitId,
    tentativeHold: r.tentativeHold,
    groupId: r.groupId,
    pmsProvider: r.pmsProvider,
    pmsExternalId: r.pmsExternalId,
    version: r.version,
    conflictsWith: [...r.conflictsWith],
  });
}

export function queryInputFromProto(req: pb.ListReservationsRequest): ReservationQueryInput {
  return {
    status: req.status,
    propertyId: req.propertyId,
    checkInAfter: req.checkInAfter,
    checkInBefore: req.checkInBefore,
    source: req.source,
    updatedSince: req.updatedSince,
  };
}

export function newReservationFromProto(n: pb.NewReservation | undefined): NewReservationInput {
  return {
    propertyId: n?.propertyId ?? '',
    checkIn: n?.checkIn ?? '',
    checkOut: n?.checkOut ?? '',
    primaryGuest: {
      firstName: n?.primaryGuest?.firstName ?? '',
      lastName: n?.primaryGuest?.lastName ?? '',
      email: n?.primaryGuest?.email ?? '',
      phone: n?.primaryGuest?.phone ?? '',
    },
    ...(n?.occupancy ? { occupancy: { ...n.occupancy } } : {}),
    ...(n?.totalPrice !== undefined ? { totalPrice: n.totalPrice } : {}),
    currency: n?.currency ?? '',
    source: n?.source ?? '',
    platform: n?.platform ?? '',
    unitId: n?.unitId ?? '',
    tentativeHold: n?.tentativeHold ?? false,
    groupId: n?.groupId ?? '',
    roomTypeId: n?.roomTypeId ?? '',
    ...(n?.notes ? { notes: { ...n.notes } } : {}),
    customFields: { ...(n?.customFields ?? {}) },
  };
}

export function patchFromProto(req: pb.UpdateReservationRequest): ReservationPatchInput {
  const patch: ReservationPatchInput = { customFields: { ...req.customFields } };
  if (req.status !== undefined) patch.status = req.status;
  if (req.checkIn !== undefined) patch.checkIn = req.checkIn;
  if (req.checkOut !== undefined) patch.checkOut = req.checkOut;
  if (req.propertyId !== undefined) patch.propertyId = req.propertyId;
  if (req.checkInTime !== undefined) patch.checkInTime = req.checkInTime;
  if (req.checkOutTime !== undefined) patch.checkOutTime = req.checkOutTime;
  if (req.notes) {
    patch.notes = {};
    if (req.notes.host !== undefined) patch.notes.host = req.notes.host;
    if (req.notes.guest !== undefined) patch.notes.guest = req.notes.guest;
  }
  return patch;
}

export function toProtoQuote(q: { propertyId: string; checkIn: string; checkOut: string; nights: number; currency: string; price: StayPrice }): pb.Quote {
  return pb.Quote.create({
    propertyId: q.propertyId,
    checkIn: q.checkIn,
    checkOut: q.checkOut,
    nights: q.nights,
    currency: q.currency,
    totalPrice: q.price.totalPrice,
    breakdown: {
      basePrice: q.price.breakdown.basePrice,
      cleaningFee: q.price.breakdown.cleaningFee,
      fees: q.price.breakdown.fees,
      taxes: q.price.breakdown.taxes,
      discounts: q.price.breakdown.discounts,
    },
    available: q.price.available,
    unavailableDates: q.price.unavailableDates,
  });
}
