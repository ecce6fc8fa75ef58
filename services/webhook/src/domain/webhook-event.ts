// A webhook event as the service stores and sends it: what a source event becomes
// (consumers/render.ts renders it) and the JSON body every delivery of it carries. No I/O.
import type { listingEvents } from '@vrp/contracts';
import { workspaceOfData } from '@vrp/platform/sandbox';
import type { EventType } from './event-types';

/** A source event ready to be stored: everything but the serialized body. */
export interface IncomingEvent {
  id: string;
  workspaceId: string;
  type: EventType;
  listingId: string | null;
  /** For guest events: the listings of the guest's stays (suppressed when every one is inactive). */
  listingIds: string[];
  orderKey: string;
  occurredAt: Date;
  object: unknown;
  /** Listing activity events also feed the activity cache. */
  activity?: listingEvents.ListingActivityChanged;
}

/**
 * The JSON body of every delivery of an event (serialized once, so every attempt sends the same
 * bytes). Events of a test-mode sandbox name the workspace itself, as the API does: the
 * subscription that receives them is a test-mode one (sandbox data only reaches its own
 * subscriptions), and `livemode` says so in the body too.
 */
export function eventBody(e: IncomingEvent): string {
  const owner = workspaceOfData(e.workspaceId);
  return JSON.stringify({
    id: e.id,
    type: e.type,
    apiVersion: 'v1',
    createdAt: e.occurredAt.toISOString(),
    workspaceId: owner.workspaceId,
    livemode: owner.mode === 'live',
    listingId: e.listingId,
    data: { object: e.object },
  });
}
