// Reservation records for benchmarks that fill a reservation store directly (no API, no events).
import { newReservationRecord, type ReservationRecord } from '../../services/reservation/src/domain/reservation';

const SOURCES = ['CHANNEL_A', 'CHANNEL_B', 'CHANNEL_C', 'DIRECT'] as const;
const STATUSES = ['CONFIRMED', 'CONFIRMED', 'PENDING', 'CANCELLED'] as const;

function benchDay(offset: number): string {
  return new Date(Date.UTC(2024, 0, 1) + offset * 86_400_000).toISOString().slice(0, 10);
}

/** The i-th reservation of a benchmark workspace: stays spread over 1,000 days, mixed statuses and sources. */
export function benchReservation(i: number, workspaceId: string, propertyId: string): ReservationRecord {
  return newReservationRecord({
    id: `res_bench${String(i).padStart(7, '0')}`,
    workspaceId,
    propertyId,
    status: STATUSES[i % STATUSES.length]!,
    source: SOURCES[i % SOURCES.length]!,
    confirmationCode: `B${String(i).padStart(7, '0')}`,
    checkIn: benchDay(i % 1000),
    checkOut: benchDay((i % 1000) + 3),
    primaryGuest: { firstName: 'Guest', lastName: String(i), email: '', language: '', phone: '' },
    occupancy: { adults: 2, children: 0, infants: 0, pets: 0 },
    financials: {
      totalPrice: 300,
      currency: 'EUR',
      paymentStatus: 'UNPAID',
      breakdown: { basePrice: 300, cleaningFee: 0, fees: [], taxes: [], discounts: [] },
    },
    bookedAt: new Date(Date.UTC(2023, 0, 1) + i * 1000),
    updatedAt: new Date(Date.UTC(2023, 0, 1) + i * 1000),
  });
}
