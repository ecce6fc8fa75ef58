// Schemas of the Events API (GET /v1/events, GET /v1/events/{id}): the event objects are the
// webhook delivery bodies (webhook.ts, `webhookEventSchemas`), listed newest first with cursors.
import { z } from 'zod';
import { EVENT_TYPES, type EventType } from '../webhook-events';
import { component, idInput, idParam, pageQuery } from './common';
import { webhookEventSchemas } from './webhook';

const EVENT_TYPE_NAMES = Object.keys(EVENT_TYPES) as [EventType, ...EventType[]];
const eventTypeQuery = z.enum(EVENT_TYPE_NAMES, { error: `must be an event type: ${EVENT_TYPE_NAMES.join(', ')}` });

/** An event as GET /v1/events returns it: the body of its webhook deliveries, byte for byte. */
export const eventSchema = component(
  'Event',
  'An event: the very object a webhook delivery of it carries (same id, same bytes). Its `data.object` is the resource as the API returned it when the event happened.',
  z.union([...new Set(Object.values(webhookEventSchemas))] as [z.ZodType, z.ZodType, ...z.ZodType[]]),
);

export const cursorPaginationSchema = component(
  'CursorPagination',
  'Cursor pagination of a list response: pass the id of the last record as `starting_after` for the next page (or of the first as `ending_before` for the previous one).',
  z.object({
    limit: z.number().int().min(1),
    hasMore: z.boolean().describe('True when more records follow in the direction of the request (older ones; newer ones with `ending_before`).'),
  }),
);

const createdBound = (description: string) =>
  z.iso.datetime({ offset: true, error: 'must be an ISO 8601 timestamp, e.g. 2025-01-31T00:00:00Z' }).optional().describe(description);

export const listEventsQuery = z.strictObject({
  limit: pageQuery.limit,
  starting_after: idInput.optional().describe('An event id from a previous page: the page of events older than it.'),
  ending_before: idInput.optional().describe('An event id from a previous page: the page of events newer than it (still newest first).'),
  type: z
    .union([eventTypeQuery, z.array(eventTypeQuery).min(1).max(EVENT_TYPE_NAMES.length)])
    .optional()
    .describe('Only events of this type; repeat the parameter for several (`type=reservation.created&type=reservation.cancelled`).'),
  'created[gte]': createdBound('Only events created at or after this time.'),
  'created[lt]': createdBound('Only events created strictly before this time.'),
  listing_id: idInput.optional().describe('Only events of this listing (or channel id mapped to it); an inactive listing answers 403 listing_inactive.'),
});

export const eventIdParams = z.strictObject({ id: idParam('An event id (`evt_…`), as in the `Vrp-Event-Id` header of its deliveries.') });

export const eventPageSchema = z.object({ data: z.array(eventSchema), pagination: cursorPaginationSchema });
