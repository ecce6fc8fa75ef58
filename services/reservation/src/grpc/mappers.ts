// Proto -> domain inputs of the RPCs, and domain -> proto answers. The reservation message itself
// is built by publishers/reservation-message.ts, shared with the events.
import { reservation as pb } from '@vrp/contracts';
import type { ReservationQueryInput } from '../domain/reservation';
import type { NewReservationInput, ReservationPatchInput } from '../domain/writes';
import type { StayPrice } from '../domain/pricing';

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
