// Domain events of the other services (protobuf, from the bus) -> webhook events: the type
// from the catalog, the listing it is about, and `data.object`, the resource rendered by
// @vrp/api-model exactly as the API returns it.
import { toApiGuest, toApiMessage, toApiReservation, toApiReservationRequest, toApiReview, toApiListing, toInactiveListingRow } from '@vrp/api-model';
import { guestEvents, listingEvents, reservationEvents, TOPICS } from '@vrp/contracts';
import type { EventType } from '../domain/event-types';
import type { IncomingEvent } from '../domain/webhook-event';
import type { ListingLookup } from '../ports/listings';

const RESERVATION_TYPES: Partial<Record<reservationEvents.ReservationEventType, EventType>> = {
  [reservationEvents.ReservationEventType.RESERVATION_EVENT_TYPE_CREATED]: 'reservation.created',
  [reservationEvents.ReservationEventType.RESERVATION_EVENT_TYPE_UPDATED]: 'reservation.updated',
  [reservationEvents.ReservationEventType.RESERVATION_EVENT_TYPE_CANCELLED]: 'reservation.cancelled',
};
const GUEST_TYPES: Partial<Record<guestEvents.GuestEventType, EventType>> = {
  [guestEvents.GuestEventType.GUEST_EVENT_TYPE_CREATED]: 'guest.created',
  [guestEvents.GuestEventType.GUEST_EVENT_TYPE_UPDATED]: 'guest.updated',
};
const MESSAGE_TYPES: Partial<Record<guestEvents.MessageEventType, EventType>> = {
  [guestEvents.MessageEventType.MESSAGE_EVENT_TYPE_RECEIVED]: 'message.received',
  [guestEvents.MessageEventType.MESSAGE_EVENT_TYPE_SENT]: 'message.sent',
};
const REVIEW_TYPES: Partial<Record<guestEvents.ReviewEventType, EventType>> = {
  [guestEvents.ReviewEventType.REVIEW_EVENT_TYPE_CREATED]: 'review.created',
  [guestEvents.ReviewEventType.REVIEW_EVENT_TYPE_UPDATED]: 'review.updated',
};

const REQUEST_TYPES: Partial<Record<guestEvents.RequestEventType, EventType>> = {
  [guestEvents.RequestEventType.REQUEST_EVENT_TYPE_CREATED]: 'request.created',
  [guestEvents.RequestEventType.REQUEST_EVENT_TYPE_UPDATED]: 'request.updated',
};

export const SOURCE_TOPICS = [
  TOPICS.listingActivity,
  TOPICS.reservationEvents,
  TOPICS.guestEvents,
  TOPICS.messageEvents,
  TOPICS.reviewEvents,
  TOPICS.requestEvents,
];

const when = (d: Date | undefined) => d ?? new Date();

/** An event of one listing's data (reservations, messages, reviews, requests): ordered per listing. */
function ofListing(
  e: { eventId: string; workspaceId: string; listingId: string; occurredAt?: Date | undefined },
  type: EventType | undefined,
  object: object,
): IncomingEvent | null {
  if (!type) return null;
  return {
    id: e.eventId,
    workspaceId: e.workspaceId,
    type,
    listingId: e.listingId,
    listingIds: [],
    orderKey: e.listingId,
    occurredAt: when(e.occurredAt),
    object,
  };
}

function activityType(e: listingEvents.ListingActivityChanged): EventType {
  if (e.deleted) return 'listing.deleted';
  const reason = listingEvents.ActivityReason;
  if (e.reason === reason.ACTIVITY_REASON_CREATED || e.reason === reason.ACTIVITY_REASON_IMPORTED_UNLISTED) return 'listing.created';
  return e.active ? 'listing.activated' : 'listing.deactivated';
}

async function renderActivity(e: listingEvents.ListingActivityChanged, listings: ListingLookup): Promise<unknown> {
  const minimal = { id: e.listingId, name: e.listingName, status: e.active ? 'active' : 'inactive', channels: [] };
  if (e.deleted) return { id: e.listingId, name: e.listingName, deleted: true };
  const found = await listings.get(e.workspaceId, e.listingId);
  if (!found) return minimal;
  // The state the event announces, even if the listing changed again since.
  return e.active ? toApiListing(found) : toInactiveListingRow(found);
}

/** The payload decoder of each source topic: a message none of them can read is malformed. */
export const SOURCE_DECODERS: Readonly<Record<string, (value: Uint8Array) => { workspaceId: string; listingId?: string }>> = {
  [TOPICS.listingActivity.name]: (v) => listingEvents.ListingActivityChanged.decode(v),
  [TOPICS.reservationEvents.name]: (v) => reservationEvents.ReservationEvent.decode(v),
  [TOPICS.guestEvents.name]: (v) => guestEvents.GuestEvent.decode(v),
  [TOPICS.messageEvents.name]: (v) => guestEvents.MessageEvent.decode(v),
  [TOPICS.reviewEvents.name]: (v) => guestEvents.ReviewEvent.decode(v),
  [TOPICS.requestEvents.name]: (v) => guestEvents.RequestEvent.decode(v),
};

/** Decodes one bus message; null for a type this service does not deliver. */
export async function toIncomingEvent(topic: string, value: Uint8Array, listings: ListingLookup): Promise<IncomingEvent | null> {
  switch (topic) {
    case TOPICS.listingActivity.name: {
      const e = listingEvents.ListingActivityChanged.decode(value);
      return {
        id: e.eventId,
        workspaceId: e.workspaceId,
        type: activityType(e),
        listingId: e.listingId,
        listingIds: [],
        orderKey: e.listingId,
        occurredAt: when(e.occurredAt),
        object: await renderActivity(e, listings),
        activity: e,
      };
    }
    case TOPICS.reservationEvents.name: {
      const e = reservationEvents.ReservationEvent.decode(value);
      return e.reservation ? ofListing(e, RESERVATION_TYPES[e.type], toApiReservation(e.reservation)) : null;
    }
    case TOPICS.guestEvents.name: {
      const e = guestEvents.GuestEvent.decode(value);
      const type = GUEST_TYPES[e.type];
      if (!type || !e.guest) return null;
      return {
        id: e.eventId,
        workspaceId: e.workspaceId,
        type,
        listingId: null,
        listingIds: e.listingIds,
        orderKey: `guest:${e.guest.id}`,
        occurredAt: when(e.occurredAt),
        object: toApiGuest(e.guest),
      };
    }
    case TOPICS.messageEvents.name: {
      const e = guestEvents.MessageEvent.decode(value);
      return e.message ? ofListing(e, MESSAGE_TYPES[e.type], toApiMessage(e.message)) : null;
    }
    case TOPICS.reviewEvents.name: {
      const e = guestEvents.ReviewEvent.decode(value);
      return e.review ? ofListing(e, REVIEW_TYPES[e.type], toApiReview(e.review)) : null;
    }
    case TOPICS.requestEvents.name: {
      const e = guestEvents.RequestEvent.decode(value);
      return e.request ? ofListing(e, REQUEST_TYPES[e.type], toApiReservationRequest(e.request)) : null;
    }
    default:
      return null;
  }
}
