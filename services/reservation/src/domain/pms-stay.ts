// A reservation as a PMS reports it (pms.sync.v1) and the record it becomes here. The PMS is the
// source of truth for its own bookings: a change newer than the stored one applies whatever the
// nights (the booking rule flags overlaps, domain/booking.ts); an older or equal one changes
// nothing. No I/O here.
import { money } from './pricing';
import { isOneOf, RESERVATION_SOURCES, type ReservationRecord, type WritableStatus } from './reservation';

/** A PMS's reservation, checked against the API's rules (the consumer refuses anything less). */
export interface PmsStay {
  externalId: string;
  listingExternalId: string;
  status: WritableStatus;
  source: string;
  checkIn: string;
  checkOut: string;
  guest: { firstName: string; lastName?: string; email?: string; phone?: string; language?: string };
  occupancy: ReservationRecord['occupancy'];
  /** The whole price as the PMS reports it; absent: unchanged (or 0 on a new stay). */
  totalPrice?: number;
  currency?: string;
  /** When the PMS last changed it: older changes are ignored. */
  updatedAt: Date;
}

/** One change of a PMS's reservation, as the consumer hands it to the use case. */
export interface PmsStayChange {
  workspaceId: string;
  provider: string;
  changeId: string;
  /** The PMS listing of the change (the stay's own, when it names one, wins). */
  listingExternalId: string;
  stay: PmsStay;
}

/** Whether a change is no newer than what is stored (a replay or an older change): nothing to do. */
export function isStale(existing: Pick<ReservationRecord, 'pmsUpdatedAt'> | null, stay: Pick<PmsStay, 'updatedAt'>): boolean {
  return !!existing?.pmsUpdatedAt && existing.pmsUpdatedAt.getTime() >= stay.updatedAt.getTime();
}

/** The fields a PMS's change sets on the record (of a new stay or over the stored one). */
export function syncedFields(stay: PmsStay, existing: ReservationRecord | null, listing: { id: string; currency: string }, now: Date) {
  const total = money(stay.totalPrice ?? existing?.financials.totalPrice ?? 0);
  return {
    propertyId: listing.id,
    status: stay.status,
    source: isOneOf(RESERVATION_SOURCES, stay.source) ? stay.source : (existing?.source ?? 'DIRECT'),
    checkIn: stay.checkIn,
    checkOut: stay.checkOut,
    primaryGuest: {
      firstName: stay.guest.firstName,
      lastName: stay.guest.lastName ?? '',
      email: stay.guest.email ?? '',
      phone: stay.guest.phone ?? '',
      language: stay.guest.language ?? '',
    },
    occupancy: { ...stay.occupancy },
    financials:
      stay.totalPrice === undefined && existing
        ? existing.financials
        : // A PMS reports the total only: it is the whole price, with no lines to split it into.
          {
            totalPrice: total,
            currency: stay.currency ?? listing.currency,
            paymentStatus: existing?.financials.paymentStatus ?? 'UNPAID',
            breakdown: { basePrice: total, cleaningFee: 0, fees: [], taxes: [], discounts: [] },
          },
    updatedAt: now,
    pmsUpdatedAt: stay.updatedAt,
  } satisfies Partial<ReservationRecord>;
}
