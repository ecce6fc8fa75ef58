// gRPC handlers of WebhookService: decode the request, run one use case, encode the result.
import { webhook as pb } from '@vrp/contracts';
import { listResponse, requireId, requireWorkspace, type PageWindow } from '@vrp/platform/paging';
import { requestKey } from '@vrp/platform/applied-requests';
import { service, type ServiceRegistration } from '@vrp/platform/grpc';
import { EVENT_TYPES } from '../domain/event-types';
import { deliveryPage, replayDelivery } from '../use-cases/deliveries';
import type { WebhookDeps } from '../use-cases/deps';
import type { Events } from '../use-cases/events';
import {
  createSubscription,
  deleteSubscription,
  getSubscription,
  rotateSubscriptionSecret,
  subscriptionPage,
  updateSubscription,
} from '../use-cases/subscriptions';
import { fromProtoMode, toProtoDelivery, toProtoEvent, toProtoSubscription } from './mappers';

export function webhookHandlers(deps: WebhookDeps, events: Events): ServiceRegistration {
  return service(pb.WebhookServiceService, {
    async createSubscription(req) {
      requireWorkspace(req.workspaceId);
      const { subscription, secret } = await createSubscription(
        deps,
        req.workspaceId,
        fromProtoMode(req.mode),
        {
          url: req.url,
          description: req.description,
          eventTypes: req.eventTypes,
          enabled: req.enabled,
        },
        requestKey('webhook.createSubscription', req),
      );
      return { subscription: toProtoSubscription(subscription), secret };
    },
    async listSubscriptions(req) {
      requireWorkspace(req.workspaceId);
      const load = async (window: PageWindow) => {
        const { subscriptions: items, total } = await subscriptionPage(deps, req.workspaceId, window);
        return { items, total };
      };
      return listResponse('subscriptions', req.page, load, toProtoSubscription);
    },
    async getSubscription(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      return { subscription: toProtoSubscription(await getSubscription(deps, req.workspaceId, req.id)) };
    },
    async updateSubscription(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      const subscription = await updateSubscription(
        deps,
        req.workspaceId,
        req.id,
        fromProtoMode(req.mode),
        {
          url: req.url,
          description: req.description,
          eventTypes: req.setEventTypes ? req.eventTypes : undefined,
          enabled: req.enabled,
        },
        requestKey('webhook.updateSubscription', req),
      );
      return { subscription: toProtoSubscription(subscription) };
    },
    async deleteSubscription(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      await deleteSubscription(deps, req.workspaceId, req.id);
      return { id: req.id };
    },
    async rotateSubscriptionSecret(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      const { subscription, secret } = await rotateSubscriptionSecret(
        deps,
        req.workspaceId,
        req.id,
        req.gracePeriodSeconds,
        requestKey('webhook.rotateSubscriptionSecret', req),
      );
      return { subscription: toProtoSubscription(subscription), secret };
    },
    async listDeliveries(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.subscriptionId, 'subscriptionId');
      const load = async (window: PageWindow) => {
        const { deliveries: items, total } = await deliveryPage(deps, req.workspaceId, req.subscriptionId, req.status, window);
        return { items, total };
      };
      return listResponse('deliveries', req.page, load, toProtoDelivery);
    },
    async replayDelivery(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.subscriptionId, 'subscriptionId');
      requireId(req.deliveryId, 'deliveryId');
      return {
        delivery: toProtoDelivery(await replayDelivery(deps, req.workspaceId, req.subscriptionId, req.deliveryId, requestKey('webhook.replayDelivery', req))),
      };
    },
    async listEvents(req) {
      requireWorkspace(req.workspaceId);
      const { events: page, hasMore } = await events.list(req.workspaceId, {
        types: req.types,
        createdGte: req.createdGte,
        createdLt: req.createdLt,
        listingId: req.listingId,
        startingAfter: req.startingAfter,
        endingBefore: req.endingBefore,
        limit: req.limit,
      });
      return { events: page.map(toProtoEvent), hasMore };
    },
    async getEvent(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      return { event: toProtoEvent(await events.get(req.workspaceId, req.id)) };
    },
    async listEventTypes() {
      return { eventTypes: Object.entries(EVENT_TYPES).map(([type, description]) => ({ type, description })) };
    },
  });
}
