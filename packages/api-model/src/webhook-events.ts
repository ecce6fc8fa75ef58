// The catalog of webhook event types. A type is `<resource>.<change>`; its payload's
// `data.object` is the resource exactly as the API returns it. Adding a type is not breaking;
// renaming or removing one is.

export const EVENT_TYPES = {
  'listing.created': 'A listing was created or imported (active, or inactive when imported while unlisted).',
  'listing.activated': 'A listing became active (owner toggle). Delivery of its other events resumes from this moment, with no backlog.',
  'listing.deactivated':
    'A listing became inactive (owner toggle, account disconnected, imported while unlisted). The last event delivered for it until it is activated again.',
  'listing.deleted': 'A listing was deleted.',
  'reservation.created': 'A reservation was created (through the API or by a PMS sync).',
  'reservation.updated': 'A reservation changed (dates, status, notes, custom fields...).',
  'reservation.cancelled': 'A reservation was cancelled.',
  'guest.created': 'A guest profile was created.',
  'guest.updated': 'A guest profile changed.',
  'message.received': 'A message from a guest arrived.',
  'message.sent': 'A message to a guest was sent through the API.',
  'review.created': 'A review was published.',
  'review.updated': 'A review changed or was replied to.',
  'request.created': 'A booking request or an inquiry arrived (from a PMS or channel).',
  'request.updated': 'A booking request was accepted or declined, an inquiry pre-approved, or either expired.',
} as const satisfies Record<string, string>;

export type EventType = keyof typeof EVENT_TYPES;

/** The resource an event type carries in `data.object`: the part of the type before the dot. */
export type EventResource = 'listing' | 'reservation' | 'guest' | 'message' | 'review' | 'request';

export function resourceOfEventType(type: EventType): EventResource {
  return type.slice(0, type.indexOf('.')) as EventResource;
}
