// The catalog of webhook event types. A type is `<resource>.<change>`; its payload's
// `data.object` is the resource exactly as the API returns it. Adding a type is not breaking;
// renaming or removing one is.

export const EVENT_TYPES = {
  'listing.created': 'A listing was created or imported (active, or inactive when imported while unlisted).',
  'listing.activated': 'A listing became active (owner toggle). Delivery of its other events resumes from this moment, with no backlog.',
  'listing.deactivated': 'A listing became inactive (owner toggle, account disconnected, imported while unlisted). The last event delivered for it until it is activated again.',
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
} as const satisfies Record<string, string>;

export type EventType = keyof typeof EVENT_TYPES;

export function isEventType(type: string): type is EventType {
  return Object.prototype.hasOwnProperty.call(EVENT_TYPES, type);
}

export const ACTIVITY_EVENT_TYPES: readonly string[] = ['listing.created', 'listing.activated', 'listing.deactivated', 'listing.deleted'];

/**
 * Events that announce a listing's own activity change. They are about the transition itself,
 * so they are delivered even though the listing is inactive right after a deactivation:
 * a receiver learns why the listing's other events stop.
 */
export function isActivityEvent(type: string): boolean {
  return ACTIVITY_EVENT_TYPES.includes(type);
}

/**
 * The event types a subscription asks for, deduplicated. `*` (or an empty list) means every
 * type; returns the field errors for unknown names.
 */
export function normalizeEventTypes(types: readonly string[]): { types: EventType[]; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const out = new Set<EventType>();
  if (types.includes('*')) return { types: [], errors };
  types.forEach((t, i) => {
    if (isEventType(t)) out.add(t);
    else errors[`eventTypes[${i}]`] = `unknown event type '${t}'; see GET /v1/webhook-event-types`;
  });
  return { types: [...out], errors };
}

/** Whether a subscription with these event types receives an event of `type`. */
export function subscribesTo(eventTypes: readonly string[], type: string): boolean {
  return eventTypes.length === 0 || eventTypes.includes(type);
}
