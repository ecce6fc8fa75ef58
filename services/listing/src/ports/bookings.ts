// What the listing service needs from the reservation service: the nights reservations hold,
// so that the calendar shows them. The reservation service owns them (its `booked_nights`,
// written in the same transaction as each reservation); this is a read with a deadline.
import { reservation as reservationPb } from '@vrp/contracts';
import type { Upstream } from '@vrp/platform/grpc';

export interface BookedNights {
  /** Nights of a listing held by PENDING or CONFIRMED reservations in from..to (inclusive). */
  list(workspaceId: string, listingId: string, from: string, to: string): Promise<{ date: string; reservationId: string }[]>;
}

export function grpcBookedNights(upstream: Upstream<reservationPb.ReservationServiceClient>): BookedNights {
  return {
    async list(workspaceId, listingId, from, to) {
      const res = await upstream.call('listBookedNights', { workspaceId, listingId, from, to });
      return res.nights.map((n) => ({ date: n.date, reservationId: n.reservationId }));
    },
  };
}
