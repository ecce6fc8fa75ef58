// What the guest service consumes: reservation events (a reservation's primary guest becomes or
// matches a profile, the reservation is linked to it with its listing, and its conversation is
// opened) and pms.sync.v1 (guest, message, review, request and inquiry changes of a PMS). Both
// apply idempotently: a redelivered message changes nothing. A handler that throws leaves the
// offset uncommitted, so the bus delivers the message again (at-least-once).
import { reservationEvents, TOPICS, pmsSync, type GuestSyncPayload, type MessageSyncPayload, type RequestSyncPayload, type ReviewSyncPayload } from '@vrp/contracts';
import { DocumentValidationError, type DocumentStore, type EventBus, type Logger, type Subscription } from '@vrp/platform';
import type { GuestProfiles } from '../guests';
import { MalformedChange, type Messaging } from '../messaging';

export const RESERVATION_GROUP = 'guest-reservation-events';
export const SYNC_GROUP = 'guest-pms-sync';

/** The pms.sync.v1 entities this service applies; others belong to other services. */
export const GUEST_SIDE_ENTITIES = ['guest', 'message', 'review', 'request', 'inquiry'] as const;

export async function startConsumers(deps: { store: DocumentStore; bus: EventBus; logger: Logger; profiles: GuestProfiles; messaging: Messaging }): Promise<Subscription[]> {
  const { bus, store, profiles, messaging, logger } = deps;
  await bus.ensureTopics([TOPICS.reservationEvents, TOPICS.pmsSync]);

  const reservations = await bus.subscribe({
    groupId: RESERVATION_GROUP,
    topics: [TOPICS.reservationEvents.name],
    fromBeginning: true,
    handler: async (message) => {
      const event = reservationEvents.ReservationEvent.decode(message.value);
      const r = event.reservation;
      if (!r?.id || !event.workspaceId) {
        logger.warn({ eventId: event.eventId }, 'reservation event without a reservation skipped');
        return;
      }
      const reservation = { ...r, propertyId: r.propertyId || event.listingId };
      await store.transaction(async (tx) => {
        const { guest } = await profiles.applyReservation(event.workspaceId, reservation, tx);
        await messaging.openForReservation(event.workspaceId, reservation, guest.id, tx);
      });
      profiles.publishSoon();
    },
  });

  const applySync = async (change: pmsSync.PmsSyncChange, payload: unknown): Promise<void> => {
    if (typeof payload !== 'object' || payload === null) throw new MalformedChange('payload is not an object');
    switch (change.entity) {
      case 'guest':
        return profiles.applySync(change, payload as GuestSyncPayload);
      case 'message':
        return messaging.applyMessageSync(change, payload as MessageSyncPayload);
      case 'review':
        return messaging.applyReviewSync(change, payload as ReviewSyncPayload);
      case 'request':
      case 'inquiry':
        return messaging.applyRequestSync(change, change.entity, payload as RequestSyncPayload);
    }
  };

  const sync = await bus.subscribe({
    groupId: SYNC_GROUP,
    topics: [TOPICS.pmsSync.name],
    fromBeginning: true,
    handler: async (message) => {
      const change = pmsSync.PmsSyncChange.decode(message.value);
      if (!(GUEST_SIDE_ENTITIES as readonly string[]).includes(change.entity)) return;
      let payload: unknown;
      try {
        payload = JSON.parse(change.payloadJson);
      } catch {
        // A payload that can never be parsed would block the partition forever if thrown.
        logger.error({ changeId: change.changeId, entity: change.entity }, 'sync change with malformed payload skipped');
        return;
      }
      try {
        await applySync(change, payload);
      } catch (err) {
        // Retrying a change that can never be stored would block its partition forever.
        if (!(err instanceof MalformedChange || err instanceof DocumentValidationError)) throw err;
        logger.error({ err, changeId: change.changeId, entity: change.entity }, 'sync change that cannot be applied skipped');
      }
    },
  });

  await Promise.all([reservations.ready, sync.ready]);
  return [reservations, sync];
}
