// Publishes ReservationEvent on reservation.events.v1 through the outbox, in the same
// transaction as the change it describes. Key = listing id: one listing's events stay in order.
import { reservationEvents, TOPICS } from '@vrp/contracts';
import { newId } from '@vrp/platform/ids';
import type { Outbox } from '@vrp/platform/outbox';
import type { Tx } from '@vrp/platform/store';
import type { ReservationRecord } from '../domain/reservation';
import { toProtoReservation } from './reservation-message';

export type ReservationChange = 'created' | 'updated' | 'cancelled';

const TYPES: Record<ReservationChange, reservationEvents.ReservationEventType> = {
  created: reservationEvents.ReservationEventType.RESERVATION_EVENT_TYPE_CREATED,
  updated: reservationEvents.ReservationEventType.RESERVATION_EVENT_TYPE_UPDATED,
  cancelled: reservationEvents.ReservationEventType.RESERVATION_EVENT_TYPE_CANCELLED,
};

export async function recordReservationEvent(outbox: Outbox, tx: Tx, change: ReservationChange, r: ReservationRecord, at: Date): Promise<void> {
  const event = reservationEvents.ReservationEvent.create({
    eventId: newId('evt'),
    workspaceId: r.workspaceId,
    listingId: r.propertyId,
    type: TYPES[change],
    occurredAt: at,
    reservation: toProtoReservation(r, at),
  });
  await outbox.add(tx, [
    {
      topic: TOPICS.reservationEvents.name,
      key: r.propertyId,
      value: reservationEvents.ReservationEvent.encode(event).finish(),
      headers: { 'event-id': event.eventId, 'event-type': `reservation.${change}`, 'workspace-id': r.workspaceId },
    },
  ]);
}
