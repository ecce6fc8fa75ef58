// What the guest service consumes: reservation events (a reservation's primary guest becomes or
// matches a profile, the reservation is linked to it with its listing, and its conversation is
// opened) and pms.sync.v1 (guest, message, review, request and inquiry changes of a PMS). Both
// apply idempotently: a redelivered message changes nothing. Both subscribe through the consumer
// runner: a malformed change (MalformedChange, an invalid document) is a dead letter at once;
// store trouble is retried in place and dead-lettered past the retry budget.
import { checkPmsInput } from '@vrp/api-model';
import { reservationEvents, TOPICS, pmsSync, syncPayloadOf } from '@vrp/contracts';
import { PermanentError, pmsSyncConsumer, type ConsumerRunner } from '@vrp/platform/consumer';
import type { Subscription } from '@vrp/platform/bus';
import { MalformedChange } from '../domain/sync-change';
import { applyPmsGuest } from '../use-cases/apply-pms-guest';
import { applyPmsMessage } from '../use-cases/apply-pms-message';
import { applyPmsRequest } from '../use-cases/apply-pms-request';
import { applyPmsReview } from '../use-cases/apply-pms-review';
import { applyReservation } from '../use-cases/apply-reservation';
import type { GuestDeps } from '../use-cases/deps';

export const RESERVATION_GROUP = 'guest-reservation-events';
export const SYNC_GROUP = 'guest-pms-sync';

/** The pms.sync.v1 entities this service applies; others belong to other services. */
export const GUEST_SIDE_ENTITIES = ['guest', 'message', 'review', 'request', 'inquiry'] as const;

export async function startConsumers(consumers: ConsumerRunner, deps: GuestDeps): Promise<Subscription[]> {
  const reservations = await consumers.subscribe({
    groupId: RESERVATION_GROUP,
    topics: [TOPICS.reservationEvents],
    fromBeginning: true,
    decode: (bytes) => reservationEvents.ReservationEvent.decode(bytes),
    describe: (event) => ({ workspaceId: event.workspaceId, listingId: event.listingId }),
    handle: async (event) => {
      const r = event.reservation;
      if (!r?.id || !event.workspaceId) throw new PermanentError('malformed_payload', `reservation event ${event.eventId} has no reservation or workspace`);
      await applyReservation(deps, event.workspaceId, { ...r, propertyId: r.propertyId || event.listingId });
    },
  });

  /** The change's entity, from the oneof member its `entity` names; a change without it is malformed. */
  const applySync = async (change: pmsSync.PmsSyncChange): Promise<void> => {
    const missing = () => new MalformedChange(`pms sync change ${change.changeId} (${change.entity}) carries no ${change.entity}`);
    switch (change.entity) {
      case 'guest': {
        const p = syncPayloadOf(change, 'guest');
        if (!p) throw missing();
        return applyPmsGuest(deps, change, p);
      }
      case 'message': {
        const p = syncPayloadOf(change, 'message');
        if (!p) throw missing();
        return applyPmsMessage(deps, change, p);
      }
      case 'review': {
        const p = syncPayloadOf(change, 'review');
        if (!p) throw missing();
        return applyPmsReview(deps, change, p);
      }
      case 'request':
      case 'inquiry': {
        const p = syncPayloadOf(change, change.entity);
        if (!p) throw missing();
        return applyPmsRequest(deps, change, change.entity, p);
      }
    }
  };

  const sync = await consumers.subscribe(
    // Held to the API's vocabulary and limits: harmless differences normalised, nonsense refused.
    pmsSyncConsumer(
      SYNC_GROUP,
      (entity) => (GUEST_SIDE_ENTITIES as readonly string[]).includes(entity),
      (change) => applySync(checkPmsInput(change)),
    ),
  );

  await Promise.all([reservations.ready, sync.ready]);
  return [reservations, sync];
}
