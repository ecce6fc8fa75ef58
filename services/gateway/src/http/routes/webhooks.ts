// Webhooks: subscriptions, the delivery log, replay and the event catalog, relayed to the
// webhook service. The key's mode travels with writes: live mode enforces https and public
// addresses there. The webhook service decides not_found (404) before listing_inactive (403).
import { z } from 'zod';
import { webhook as pb } from '@vrp/contracts';
import type { Upstream } from '@vrp/platform/grpc';
import type { ApiKeyPrincipal } from '../../domain/api-key-record';
import { toPagination } from '../mappers';
import { idempotencyKeyOf } from '../middleware/idempotency';
import { created, defineRoute, ok, type Route } from '../route';
import {
  createWebhookBody,
  pageQuery,
  deliveryPageSchema,
  deliveryParams,
  listDeliveriesQuery,
  rotateSecretBody,
  toApiDelivery,
  toApiSubscription,
  updateWebhookBody,
  webhookDeliverySchema,
  webhookEventTypeSchema,
  webhookIdParams,
  webhookPageSchema,
  webhookSubscriptionSchema,
  webhookSubscriptionWithSecretSchema,
  deletedSchema,
} from '@vrp/api-model';

const modeOf = (p: ApiKeyPrincipal) => (p.mode === 'live' ? pb.KeyMode.KEY_MODE_LIVE : pb.KeyMode.KEY_MODE_TEST);

export function webhookRoutes(upstream: Upstream<pb.WebhookServiceClient>): Route[] {
  const one = z.object({ data: webhookSubscriptionSchema });
  const withSecret = z.object({ data: webhookSubscriptionWithSecretSchema });
  return [
    defineRoute({
      method: 'post',
      path: '/v1/webhooks',
      operationId: 'createWebhook',
      summary: 'Create a webhook subscription',
      description:
        'Deliveries are signed with the returned `secret` (shown only here). Live keys require an https URL whose host resolves only to public addresses (no loopback, private, link-local or unique-local targets); test keys may also use http and, where the deployment allows it, loopback receivers. See docs/webhooks.md.',
      tags: ['Webhooks'],
      auth: 'api_key',
      body: createWebhookBody,
      responses: { 201: withSecret },
      errors: ['validation_failed'],
      async handler({ body, principal, req }) {
        const res = await upstream.call(
          'createSubscription',
          pb.CreateSubscriptionRequest.create({
            workspaceId: principal.workspaceId,
            mode: modeOf(principal),
            url: body.url,
            eventTypes: body.eventTypes ?? [],
            enabled: body.enabled,
            description: body.description ?? '',
            idempotencyKey: idempotencyKeyOf(req),
          }),
        );
        return created({ data: { ...toApiSubscription(res.subscription), secret: res.secret } });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhooks',
      operationId: 'listWebhooks',
      summary: 'List webhook subscriptions',
      description: 'Oldest first.',
      tags: ['Webhooks'],
      auth: 'api_key',
      query: z.strictObject({ ...pageQuery }),
      responses: { 200: webhookPageSchema },
      async handler({ query, principal }) {
        const res = await upstream.call('listSubscriptions', { workspaceId: principal.workspaceId, page: { limit: query.limit, offset: query.offset } });
        return ok({ data: res.subscriptions.map(toApiSubscription), pagination: toPagination(res.page, query, res.subscriptions.length) });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhooks/:id',
      operationId: 'getWebhook',
      summary: 'Get a webhook subscription',
      description: 'Includes `disabledReason` when the service disabled the endpoint after persistent failures.',
      tags: ['Webhooks'],
      auth: 'api_key',
      params: webhookIdParams,
      responses: { 200: one },
      errors: ['not_found'],
      async handler({ params, principal }) {
        return ok({ data: toApiSubscription((await upstream.call('getSubscription', { workspaceId: principal.workspaceId, id: params.id })).subscription) });
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/webhooks/:id',
      operationId: 'updateWebhook',
      summary: 'Update a webhook subscription',
      description:
        'Changes the URL, event types, description or enabled flag. `{"enabled": true}` re-enables an endpoint the service disabled. A live subscription keeps the live URL rules.',
      tags: ['Webhooks'],
      auth: 'api_key',
      params: webhookIdParams,
      body: updateWebhookBody,
      responses: { 200: one },
      errors: ['not_found', 'validation_failed'],
      async handler({ params, body, principal, req }) {
        const res = await upstream.call(
          'updateSubscription',
          pb.UpdateSubscriptionRequest.create({
            workspaceId: principal.workspaceId,
            id: params.id,
            mode: modeOf(principal),
            url: body.url,
            description: body.description,
            eventTypes: body.eventTypes ?? [],
            setEventTypes: body.eventTypes !== undefined,
            enabled: body.enabled,
            idempotencyKey: idempotencyKeyOf(req),
          }),
        );
        return ok({ data: toApiSubscription(res.subscription) });
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/webhooks/:id',
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook subscription',
      description: 'Pending deliveries and retries of the subscription are dropped.',
      tags: ['Webhooks'],
      auth: 'api_key',
      params: webhookIdParams,
      responses: { 200: z.object({ data: deletedSchema }) },
      errors: ['not_found'],
      async handler({ params, principal }) {
        const res = await upstream.call('deleteSubscription', { workspaceId: principal.workspaceId, id: params.id });
        return ok({ data: { id: res.id || params.id, deleted: true as const } });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/webhooks/:id/rotate-secret',
      operationId: 'rotateWebhookSecret',
      summary: 'Rotate the signing secret',
      description:
        'Returns the new secret (shown only here). During the grace period (default 24 h) every delivery carries two `v1` signatures, one per secret, so receivers can switch without failing a delivery.',
      tags: ['Webhooks'],
      auth: 'api_key',
      params: webhookIdParams,
      body: rotateSecretBody,
      responses: { 200: withSecret },
      errors: ['not_found', 'validation_failed'],
      async handler({ params, body, principal, req }) {
        const res = await upstream.call('rotateSubscriptionSecret', {
          workspaceId: principal.workspaceId,
          id: params.id,
          gracePeriodSeconds: body.gracePeriodSeconds ?? 0,
          idempotencyKey: idempotencyKeyOf(req),
        });
        return ok({ data: { ...toApiSubscription(res.subscription), secret: res.secret } });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhooks/:id/deliveries',
      operationId: 'listWebhookDeliveries',
      summary: 'List the deliveries of a subscription',
      description: 'The delivery log, newest first: status, attempts, last response code and time, next retry.',
      tags: ['Webhooks'],
      auth: 'api_key',
      params: webhookIdParams,
      query: listDeliveriesQuery,
      responses: { 200: deliveryPageSchema },
      errors: ['not_found'],
      async handler({ params, query, principal }) {
        const res = await upstream.call(
          'listDeliveries',
          pb.ListDeliveriesRequest.create({
            workspaceId: principal.workspaceId,
            subscriptionId: params.id,
            status: query.status ?? '',
            page: { limit: query.limit, offset: query.offset },
          }),
        );
        return ok({ data: res.deliveries.map(toApiDelivery), pagination: toPagination(res.page, query, res.deliveries.length) });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/webhooks/:id/deliveries/:deliveryId/replay',
      operationId: 'replayWebhookDelivery',
      summary: 'Replay a delivery',
      description:
        'Sends the delivery’s event again, as a new delivery with the same event id and body. A listing that is inactive now answers 403 listing_inactive (activate it first); a disabled subscription answers 409 conflict.',
      tags: ['Webhooks'],
      auth: 'api_key',
      params: deliveryParams,
      responses: { 202: z.object({ data: webhookDeliverySchema }) },
      errors: ['not_found', 'listing_inactive', 'conflict'],
      async handler({ params, principal, req }) {
        const res = await upstream.call('replayDelivery', {
          workspaceId: principal.workspaceId,
          subscriptionId: params.id,
          deliveryId: params.deliveryId,
          idempotencyKey: idempotencyKeyOf(req),
        });
        return { status: 202 as const, body: { data: toApiDelivery(res.delivery) } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhook-event-types',
      operationId: 'listWebhookEventTypes',
      summary: 'List the webhook event types',
      description: 'The catalog of event types; `data.object` of each event is the resource as the API returns it.',
      tags: ['Webhooks'],
      auth: 'api_key',
      responses: { 200: z.object({ data: z.array(webhookEventTypeSchema) }) },
      async handler() {
        const res = await upstream.call('listEventTypes', {});
        return ok({ data: res.eventTypes.map((e) => ({ type: e.type, description: e.description })) });
      },
    }),
  ];
}
