// A reservation record as the proto message of the API (RPC answers) and of reservation.events.v1.
import { reservation as pb } from '@vrp/contracts';
import { effectiveStatus, todayUtc, type ReservationRecord } from '../domain/reservation';

/**
 * The reservation as readers see it at `now` (POST_STAY once the stay has ended). A create
 * answers with the status it stored (create responses show CONFIRMED, docs/api.md, even for a stay
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
