// Zod schemas of the webhook endpoints: subscriptions, the delivery log and the event catalog.
// They validate input and generate the OpenAPI reference (see docs/webhooks.md).
import { z } from 'zod';
import { EVENT_TYPES, resourceOfEventType, type EventResource, type EventType } from '../webhook-events';
import {
  DEFAULT_ROTATION_GRACE_SECONDS,
  DELIVERY_DROP_REASONS,
  DELIVERY_STATUSES,
  MAX_EVENT_TYPE_LENGTH,
  MAX_ROTATION_GRACE_SECONDS,
  MAX_SUBSCRIPTION_EVENT_TYPES,
  MAX_WEBHOOK_DESCRIPTION_LENGTH,
  MAX_WEBHOOK_URL_LENGTH,
  MODES,
} from '../vocabulary';
import { component, idParam, isoDateTime, notANumber, pageQuery, paginationSchema } from './common';
import { guestSchema, messageSchema, reservationRequestSchema, reviewSchema } from './guest';
import { inactiveListingRowSchema, listingSchema } from './listing';
import { reservationSchema } from './reservation';

const eventTypesInput = z
  .array(
    z
      .string()
      .min(1)
      .max(MAX_EVENT_TYPE_LENGTH)
      .meta({ enum: ['*', ...Object.keys(EVENT_TYPES)] }),
  )
  .max(MAX_SUBSCRIPTION_EVENT_TYPES)
  .describe('Event types to receive (see GET /v1/webhook-event-types); `["*"]` or an empty list means every type.');

export const webhookModeSchema = z
  .enum(MODES)
  .describe('Mode of the API key that created the subscription. Live mode requires https and a publicly reachable host.');

export const webhookSubscriptionSchema = component(
  'WebhookSubscription',
  'Where events are delivered. The signing secret is never returned except on create and rotation.',
  z.object({
    id: z.string(),
    url: z.string().describe('The endpoint receiving POSTs.'),
    description: z.string(),
    eventTypes: z.array(z.string()).describe('Event types delivered; empty means every type.'),
    enabled: z.boolean().describe('False when disabled by you or by the service (see disabledReason).'),
    mode: webhookModeSchema,
    disabledReason: z.string().nullable().describe('Set when the service disabled the endpoint after persistent failures: why, and what to do.'),
    disabledAt: isoDateTime.nullable(),
    previousSecretExpiresAt: isoDateTime.nullable().describe('After a rotation: until then, deliveries also carry a signature made with the previous secret.'),
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
  }),
);

export const webhookSubscriptionWithSecretSchema = component(
  'WebhookSubscriptionWithSecret',
  'A subscription with its signing secret, shown only in this response.',
  webhookSubscriptionSchema.extend({ secret: z.string().describe('The signing secret (`whsec_…`). Store it now: it cannot be shown again.') }),
);

export const webhookDeliverySchema = component(
  'WebhookDelivery',
  'One event sent to one subscription, with the outcome of its last attempt.',
  z.object({
    id: z.string().describe('Also sent as the Vrp-Delivery-Id header.'),
    subscriptionId: z.string(),
    eventId: z.string().describe('The event id (Vrp-Event-Id header and `id` of the body); de-duplicate on it.'),
    eventType: z.string(),
    listingId: z.string().nullable(),
    status: z
      .enum(DELIVERY_STATUSES)
      .describe(
        'pending: waiting for its first attempt or a retry; failed: every attempt of the schedule failed; dropped: not sent (listing inactive, subscription disabled or deleted).',
      ),
    attempts: z.number().int().min(0),
    nextAttemptAt: isoDateTime.nullable(),
    lastAttemptAt: isoDateTime.nullable(),
    responseStatus: z.number().int().nullable().describe('HTTP status of the last response; null when none was received.'),
    responseBody: z.string().nullable().describe('The first 1 KiB of the last response body.'),
    responseTimeMs: z.number().int().nullable(),
    lastError: z.string().nullable().describe('Transport error of the last attempt (timeout, refused address, circuit open).'),
    droppedReason: z.enum(DELIVERY_DROP_REASONS).nullable(),
    replayOf: z.string().nullable().describe('The delivery this one replays.'),
    createdAt: isoDateTime,
    completedAt: isoDateTime.nullable(),
  }),
);

export const webhookEventTypeSchema = component('WebhookEventType', 'An event type of the catalog.', z.object({ type: z.string(), description: z.string() }));

export const createWebhookBody = z.strictObject({
  url: z
    .string()
    .min(1)
    .max(MAX_WEBHOOK_URL_LENGTH)
    .meta({ pattern: '^https?://', description: 'https URL (http and loopback receivers are accepted in test mode where the deployment allows it).' }),
  eventTypes: eventTypesInput.optional(),
  enabled: z.boolean().optional().describe('Default true.'),
  description: z.string().max(MAX_WEBHOOK_DESCRIPTION_LENGTH).optional(),
});

export const updateWebhookBody = z.strictObject({
  url: z.string().min(1).max(MAX_WEBHOOK_URL_LENGTH).meta({ pattern: '^https?://' }).optional(),
  eventTypes: eventTypesInput.optional(),
  enabled: z.boolean().optional().describe('true re-enables an endpoint the service disabled (clears disabledReason).'),
  description: z.string().max(MAX_WEBHOOK_DESCRIPTION_LENGTH).optional(),
});

export const rotateSecretBody = z.strictObject({
  gracePeriodSeconds: z
    .number({ error: notANumber })
    .int({ error: 'must be an integer' })
    .min(1)
    .max(MAX_ROTATION_GRACE_SECONDS)
    .optional()
    .describe(
      `Seconds the previous secret keeps signing deliveries, 1..${MAX_ROTATION_GRACE_SECONDS} (default ${DEFAULT_ROTATION_GRACE_SECONDS} = ${DEFAULT_ROTATION_GRACE_SECONDS / 3600} h).`,
    ),
});

export const listDeliveriesQuery = z.strictObject({
  status: z.enum(DELIVERY_STATUSES).optional().describe('Only deliveries in this status.'),
  ...pageQuery,
});

export const webhookIdParams = z.strictObject({ id: idParam('A webhook subscription id.') });
export const deliveryParams = z.strictObject({ id: idParam('A webhook subscription id.'), deliveryId: idParam('A delivery id of that subscription.') });

export const webhookPageSchema = z.object({ data: z.array(webhookSubscriptionSchema), pagination: paginationSchema });
export const deliveryPageSchema = z.object({ data: z.array(webhookDeliverySchema), pagination: paginationSchema });

// ---- event payloads (the OpenAPI document's `webhooks`) ----

const deletedListingSchema = z.object({ id: z.string(), name: z.string(), deleted: z.literal(true) });

/** What `data.object` holds, per resource: the resource exactly as the API returns it. */
const EVENT_OBJECTS: Record<EventResource, { schema: z.ZodType; note: string }> = {
  listing: {
    schema: z.union([listingSchema, inactiveListingRowSchema, deletedListingSchema]),
    note: 'the listing as GET /v1/listings/{id} returns it, without capabilities; an inactive listing as its list row (id, name, status, channels); a deleted one as {id, name, deleted: true}',
  },
  reservation: { schema: reservationSchema, note: 'the reservation as GET /v1/reservations/{id} returns it' },
  guest: { schema: guestSchema, note: 'the guest as GET /v1/guests/{id} returns it' },
  message: { schema: messageSchema, note: 'the message as the conversation messages list returns it' },
  review: { schema: reviewSchema, note: 'the review as GET /v1/reviews/{id} returns it' },
  request: { schema: reservationRequestSchema, note: 'the booking request or inquiry as GET /v1/requests/{id} returns it' },
};

/** The OpenAPI component of a resource's event body: `ListingEvent`, `ReservationEvent`... */
const componentIdOf = (resource: EventResource): string => `${resource.charAt(0).toUpperCase()}${resource.slice(1)}Event`;

function eventSchemaOf(resource: EventResource): z.ZodType {
  const types = (Object.keys(EVENT_TYPES) as EventType[]).filter((t) => resourceOfEventType(t) === resource);
  return component(
    componentIdOf(resource),
    `The body of a ${types.map((t) => `\`${t}\``).join(', ')} delivery.`,
    z.object({
      id: z.string().describe('Event id (`evt_…`), also the Vrp-Event-Id header; the same in every retry and replay: de-duplicate on it.'),
      type: z.enum(types as [EventType, ...EventType[]]),
      apiVersion: z.literal('v1'),
      createdAt: isoDateTime.describe('When the change happened.'),
      workspaceId: z.string(),
      livemode: z.boolean().describe('false for events of test-mode data (delivered only to subscriptions made with a test key), true for live data.'),
      listingId: z.string().nullable().describe('The listing the event is about; null for guest events.'),
      data: z.object({ object: EVENT_OBJECTS[resource].schema.describe(`The resource: ${EVENT_OBJECTS[resource].note}.`) }),
    }),
  );
}

/** The body schema of each event type, keyed by type (all types of a resource share one). */
export const webhookEventSchemas: Record<EventType, z.ZodType> = (() => {
  const byResource = new Map<EventResource, z.ZodType>();
  const out = {} as Record<EventType, z.ZodType>;
  for (const type of Object.keys(EVENT_TYPES) as EventType[]) {
    const resource = resourceOfEventType(type);
    if (!byResource.has(resource)) byResource.set(resource, eventSchemaOf(resource));
    out[type] = byResource.get(resource)!;
  }
  return out;
})();
