// Test helpers: domain events and activity changes as the other services publish them.
import { listingEvents, reservation as resPb, reservationEvents, TOPICS } from '@vrp/contracts';
import { newId } from '@vrp/platform/ids';
import type { MemoryEventBus } from '@vrp/engines/bus';

/** Publishes a reservation event and waits until every consumer has handled it. */
export async function publishReservationEvent(
  bus: MemoryEventBus,
  opts: { workspaceId: string; listingId: string; occurredAt: Date; type?: reservationEvents.ReservationEventType },
): Promise<{ event: reservationEvents.ReservationEvent; value: Uint8Array }> {
  const sent = await sendReservationEvent(bus, opts);
  await bus.whenIdle();
  return sent;
}

/**
 * Publishes a reservation event, without waiting for the consumers. `key`: the message key, by
 * default the listing id (as the reservation service keys them).
 */
export async function sendReservationEvent(
  bus: MemoryEventBus,
  opts: { workspaceId: string; listingId: string; occurredAt: Date; type?: reservationEvents.ReservationEventType; key?: string },
): Promise<{ event: reservationEvents.ReservationEvent; value: Uint8Array }> {
  const { workspaceId, listingId } = opts;
  const event = reservationEvents.ReservationEvent.create({
    eventId: newId('evt'),
    workspaceId,
    listingId,
    type: opts.type ?? reservationEvents.ReservationEventType.RESERVATION_EVENT_TYPE_CREATED,
    occurredAt: opts.occurredAt,
    reservation: resPb.Reservation.create({
      id: newId('res'),
      workspaceId,
      propertyId: listingId,
      status: 'CONFIRMED',
      checkIn: '2030-01-01',
      checkOut: '2030-01-03',
      confirmationCode: 'ABC123',
    }),
  });
  const value = reservationEvents.ReservationEvent.encode(event).finish();
  await bus.publish(TOPICS.reservationEvents.name, [{ key: opts.key ?? listingId, value }]);
  return { event, value };
}

/** Publishes a listing activity change (reason: owner) and waits until every consumer has handled it. */
export async function publishActivity(
  bus: MemoryEventBus,
  opts: { workspaceId: string; listingId: string; active: boolean; version: number; occurredAt: Date },
): Promise<void> {
  const event = listingEvents.ListingActivityChanged.create({
    eventId: newId('evt'),
    workspaceId: opts.workspaceId,
    listingId: opts.listingId,
    listingName: `Listing ${opts.listingId}`,
    active: opts.active,
    reason: listingEvents.ActivityReason.ACTIVITY_REASON_OWNER,
    version: opts.version,
    occurredAt: opts.occurredAt,
  });
  await bus.publish(TOPICS.listingActivity.name, [{ key: opts.listingId, value: listingEvents.ListingActivityChanged.encode(event).finish() }]);
  await bus.whenIdle();
}
