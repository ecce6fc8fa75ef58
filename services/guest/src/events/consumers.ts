// What the guest service consumes: reservation events (a reservation's primary guest becomes or
// matches a profile, the reservation is linked to it with its listing, and its conversation is
// opened) and pms.sync.v1 (guest, message, review, request and inquiry changes of a PMS). Both
// apply idempotently: a redelivered message changes nothing. Both subscribe through the consumer
// runner: a malformed change (MalformedChange, an invalid document) is a dead letter at once;
// store trouble is retried in place and dead-lettered past the retry budget.
import { reservationEvents, TOPICS, pmsSync, syncPayloadOf } from '@vrp/contracts';
import { PermanentError, type ConsumerRunner, type DocumentStore, type Logger, type Subscription } from '@vrp/platform';
import type { GuestProfiles } from '../use-cases/guests';
import { MalformedChange, type Messaging } from '../use-cases/conversations';

export const RESERVATION_GROUP = 'guest-reservation-events';
export const SYNC_GROUP = 'guest-pms-sync';

/** The pms.sync.v1 entities this service applies; others belong to other services. */
export const GUEST_SIDE_ENTITIES = ['guest', 'message', 'review', 'request', 'inquiry'] as const;

export async function startConsumers(deps: { store: DocumentStore; consumers: ConsumerRunner; logger: Logger; profiles: GuestProfiles; messaging: Messaging }): Promise<Subscription[]> {
  const { consumers, store, profiles, messaging } = deps;

  const reservations = await consumers.subscribe({
    groupId: RESERVATION_GROUP,
    topics: [TOPICS.reservationEvents],
    fromBeginning: true,
    decode: (bytes) => reservationEvents.ReservationEvent.decode(bytes),
    describe: (event) => ({ workspaceId: event.workspaceId, listingId: event.listingId }),
    handle: async (event) => {
      const r = event.reservation;
      if (!r?.id || !event.workspaceId) throw new PermanentError('malformed_payload', `reservation event ${event.eventId} has no reservation or workspace`);
      const reservation = { ...r, propertyId: r.propertyId || event.listingId };
      await store.transaction(async (tx) => {
        const { guest } = await profiles.applyReservation(event.workspaceId, reservation, tx);
        await messaging.openForReservation(event.workspaceId, reservation, guest.id, tx);
      });
      profiles.publishSoon();
    },
  });

  /** The change's entity, from the oneof member its `entity` names; a change without it is malformed. */
  const applySync = async (change: pmsSync.PmsSyncChange): Promise<void> => {
    const missing = () => new MalformedChange(`pms sync change ${change.changeId} (${change.entity}) carries no ${change.entity}`);
    switch (change.entity) {
      case 'guest': {
        const p = syncPayloadOf(change, 'guest');
        if (!p) throw missing();
        return profiles.applySync(change, p);
      }
      case 'message': {
        const p = syncPayloadOf(change, 'message');
        if (!p) throw missing();
        return messaging.applyMessageSync(change, p);
      }
      case 'review': {
        const p = syncPayloadOf(change, 'review');
        if (!p) throw missing();
        return messaging.applyReviewSync(change, p);
      }
      case 'request':
      case 'inquiry': {
        const p = syncPayloadOf(change, change.entity);
        if (!p) throw missing();
        return messaging.applyRequestSync(change, change.entity, p);
      }
    }
  };

  const sync = await consumers.subscribe({
    groupId: SYNC_GROUP,
    topics: [TOPICS.pmsSync],
    fromBeginning: true,
    decode: (bytes) => pmsSync.PmsSyncChange.decode(bytes),
    describe: (change) => ({ workspaceId: change.workspaceId }),
    handle: async (change) => {
      if (!(GUEST_SIDE_ENTITIES as readonly string[]).includes(change.entity)) return;
      await applySync(change);
    },
  });

  await Promise.all([reservations.ready, sync.ready]);
  return [reservations, sync];
}
