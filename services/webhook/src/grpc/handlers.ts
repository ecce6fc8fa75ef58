// gRPC handlers of WebhookService: validate the request, run the use case, map the result.
import { webhook as pb } from '@vrp/contracts';
import { pageInfo, pageWindow, requestKey, requireId, requireWorkspace, service, type ServiceRegistration } from '@vrp/platform';
import { EVENT_TYPES } from '../domain/event-types';
import type { Webhooks } from '../use-cases/subscriptions';
import { fromProtoMode, toProtoDelivery, toProtoSubscription } from './mappers';

export function webhookHandlers(deps: { webhooks: Webhooks }): ServiceRegistration {
  const { webhooks } = deps;

  return service(pb.WebhookServiceService, {
    async createSubscription(req) {
      requireWorkspace(req.workspaceId);
      const { subscription, secret } = await webhooks.create(req.workspaceId, fromProtoMode(req.mode), {
        url: req.url,
        description: req.description,
        eventTypes: req.eventTypes,
        enabled: req.enabled,
      }, requestKey('webhook.createSubscription', req));
      return { subscription: toProtoSubscription(subscription), secret };
    },
    async listSubscriptions(req) {
      requireWorkspace(req.workspaceId);
      const window = pageWindow(req.page);
      const { subscriptions, total } = await webhooks.page(req.workspaceId, window);
      return { subscriptions: subscriptions.map(toProtoSubscription), page: pageInfo(window, subscriptions.length, total) };
    },
    async getSubscription(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      return { subscription: toProtoSubscription(await webhooks.get(req.workspaceId, req.id)) };
    },
    async updateSubscription(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      const subscription = await webhooks.update(req.workspaceId, req.id, fromProtoMode(req.mode), {
        url: req.url,
        description: req.description,
        eventTypes: req.setEventTypes ? req.eventTypes : undefined,
        enabled: req.enabled,
      }, requestKey('webhook.updateSubscription', req));
      return { subscription: toProtoSubscription(subscription) };
    },
    async deleteSubscription(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      await webhooks.delete(req.workspaceId, req.id);
      return { id: req.id };
    },
    async rotateSubscriptionSecret(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      const { subscription, secret } = await webhooks.rotateSecret(req.workspaceId, req.id, req.gracePeriodSeconds, requestKey('webhook.rotateSubscriptionSecret', req));
      return { subscription: toProtoSubscription(subscription), secret };
    },
    async listDeliveries(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.subscriptionId, 'subscriptionId');
      const window = pageWindow(req.page);
      const { deliveries, total } = await webhooks.deliveriesPage(req.workspaceId, req.subscriptionId, req.status, window);
      return { deliveries: deliveries.map(toProtoDelivery), page: pageInfo(window, deliveries.length, total) };
    },
    async replayDelivery(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.subscriptionId, 'subscriptionId');
      requireId(req.deliveryId, 'deliveryId');
      return { delivery: toProtoDelivery(await webhooks.replay(req.workspaceId, req.subscriptionId, req.deliveryId, requestKey('webhook.replayDelivery', req))) };
    },
    async listEventTypes() {
      return { eventTypes: Object.entries(EVENT_TYPES).map(([type, description]) => ({ type, description })) };
    },
  });
}
