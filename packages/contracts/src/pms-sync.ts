// pms.sync.v1 (proto/vrp/pms/v1/sync.proto): one PmsSyncChange per change of a PMS's feed, its
// entity in the `entity_change` oneof (ts-proto flattens a oneof into optional fields: exactly
// one of listing, reservation, guest, message, review, request, inquiry is set, and `entity`
// names it). The pms-adapter normalizes what each PMS returns into these messages, so the
// consuming services never see a PMS's own format. The names below are the generated types.
import type { PmsSyncChange, SyncGuest, SyncListing, SyncMessage, SyncRequest, SyncReservation, SyncReview } from './gen/vrp/pms/v1/sync';

export type ListingSyncPayload = SyncListing;
export type ReservationSyncPayload = SyncReservation;
export type GuestSyncPayload = SyncGuest;
export type MessageSyncPayload = SyncMessage;
export type ReviewSyncPayload = SyncReview;
/** A booking request (entity `request`) or a pre-booking inquiry (entity `inquiry`). */
export type RequestSyncPayload = SyncRequest;

/** The entities of pms.sync.v1: the values of `entity` and the members of the oneof. */
export const SYNC_ENTITIES = ['listing', 'reservation', 'guest', 'message', 'review', 'request', 'inquiry'] as const;
export type SyncEntity = (typeof SYNC_ENTITIES)[number];

export type GuestSideSyncEntity = 'guest' | 'message' | 'review' | 'request' | 'inquiry';

/** The payload type of each entity. */
export interface SyncPayloads {
  listing: SyncListing;
  reservation: SyncReservation;
  guest: SyncGuest;
  message: SyncMessage;
  review: SyncReview;
  request: SyncRequest;
  inquiry: SyncRequest;
}

/** A change with its entity's payload, when `entity` names a member of the oneof that is set. */
export function syncPayloadOf<E extends SyncEntity>(change: PmsSyncChange, entity: E): SyncPayloads[E] | undefined {
  if (change.entity !== entity) return undefined;
  return change[entity] as SyncPayloads[E] | undefined;
}
