// The Events API: the events the webhooks deliver, to pull (list and retrieve), read from the
// webhook service, which stores each event's delivery body once. The body is passed through as
// stored, so an event here and a delivery of it are the same bytes. Rules (docs/api.md, "Listings are
// active or inactive") are the webhook service's: not_found before listing_inactive.
import { z } from 'zod';
import { webhook as pb } from '@vrp/contracts';
import type { Upstream } from '@vrp/platform/grpc';
import { eventIdParams, eventPageSchema, eventSchema, listEventsQuery, type EventType } from '@vrp/api-model';
import { defineRoute, ok, type Route } from '../route';

/** The stored body, parsed: re-serialized it gives the same bytes (it was made by JSON.stringify). */
const bodyOf = (e: pb.StoredEvent | undefined): z.input<typeof eventSchema> => JSON.parse(e?.bodyJson ?? 'null') as z.input<typeof eventSchema>;

const typesOf = (type: EventType | EventType[] | undefined): EventType[] => (type === undefined ? [] : Array.isArray(type) ? type : [type]);

export function eventRoutes(upstream: Upstream<pb.WebhookServiceClient>): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/events',
      operationId: 'listEvents',
      summary: 'List events',
      description:
        'The events of the last 30 days (the retention is configurable), newest first: the same objects, ids and bytes as the webhook deliveries, whether or not a subscription received them. Events of a listing that is inactive now are left out; filtering by one answers 403 listing_inactive. Test keys see test-mode events, live keys live ones. An event is listed within seconds of `createdAt` (see docs/events.md, "Ordering and completeness").',
      tags: ['Events'],
      auth: 'api_key',
      query: listEventsQuery,
      responses: { 200: eventPageSchema },
      errors: ['not_found', 'listing_inactive'],
      async handler({ query, principal }) {
        const res = await upstream.call(
          'listEvents',
          pb.ListEventsRequest.create({
            workspaceId: principal.workspaceId,
            types: typesOf(query.type),
            createdGte: query['created[gte]'] ? new Date(query['created[gte]']) : undefined,
            createdLt: query['created[lt]'] ? new Date(query['created[lt]']) : undefined,
            listingId: query.listing_id ?? '',
            startingAfter: query.starting_after ?? '',
            endingBefore: query.ending_before ?? '',
            limit: query.limit,
          }),
        );
        return ok({ data: res.events.map(bodyOf), pagination: { limit: query.limit, hasMore: res.hasMore } });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/events/:id',
      operationId: 'getEvent',
      summary: 'Retrieve an event',
      description:
        'One event within its retention: the object its webhook deliveries carry. An event of a listing that is inactive now answers 403 listing_inactive, as a replay of it does.',
      tags: ['Events'],
      auth: 'api_key',
      params: eventIdParams,
      responses: { 200: z.object({ data: eventSchema }) },
      errors: ['not_found', 'listing_inactive'],
      async handler({ params, principal }) {
        const res = await upstream.call('getEvent', { workspaceId: principal.workspaceId, id: params.id });
        return ok({ data: bodyOf(res.event) });
      },
    }),
  ];
}
