// The catalog of webhook event types lives in @vrp/api-model (the gateway documents each type's
// payload in the OpenAPI document from it); this module holds the subscription rules.
import { EVENT_TYPES, MAX_SUBSCRIPTION_EVENT_TYPES, type EventType } from '@vrp/api-model';

export { EVENT_TYPES, type EventType };

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
  if (types.length > MAX_SUBSCRIPTION_EVENT_TYPES) errors.eventTypes = `must name at most ${MAX_SUBSCRIPTION_EVENT_TYPES} event types`;
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
