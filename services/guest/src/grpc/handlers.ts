// gRPC handlers of GuestService: validate the request, run the use case, map the result.
import { guest as pb } from '@vrp/contracts';
import { pageInfo, pageWindow, requestKey, requireId, requireWorkspace, service, validationFailed, type ServiceRegistration } from '@vrp/platform';
import { REQUEST_STATUSES, type Decision } from '../domain/messaging';
import type { GuestProfiles } from '../use-cases/guests';
import type { Messaging } from '../use-cases/conversations';
import { fromProtoAttachment, toProtoConversation, toProtoGuest, toProtoMessage, toProtoRequest, toProtoReview } from './mappers';

const DECISIONS: readonly Decision[] = ['accept', 'decline'];

export function guestHandlers(deps: { profiles: GuestProfiles; messaging: Messaging }): ServiceRegistration {
  const { profiles, messaging } = deps;

  return service(pb.GuestServiceService, {
    async listGuests(req) {
      requireWorkspace(req.workspaceId);
      const window = pageWindow(req.page);
      const { items, total } = await profiles.list(req.workspaceId, req.search, window);
      return { guests: items.map(toProtoGuest), page: pageInfo(window, items.length, total) };
    },

    async getGuest(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      return { guest: toProtoGuest(await profiles.get(req.workspaceId, req.id)) };
    },

    async createGuest(req) {
      requireWorkspace(req.workspaceId);
      const created = await profiles.create(req.workspaceId, {
        firstName: req.firstName,
        lastName: req.lastName,
        language: req.language,
        provider: req.provider,
        email: req.email,
        phone: req.phone,
      }, requestKey('guest.createGuest', req));
      return { guest: toProtoGuest(created) };
    },

    async updateGuest(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      const updated = await profiles.update(
        req.workspaceId,
        req.id,
        {
          ...(req.firstName !== undefined ? { firstName: req.firstName } : {}),
          ...(req.lastName !== undefined ? { lastName: req.lastName } : {}),
          ...(req.language !== undefined ? { language: req.language } : {}),
        },
        req.expectedVersion,
        requestKey('guest.updateGuest', req),
      );
      return { guest: toProtoGuest(updated) };
    },

    async listConversations(req) {
      requireWorkspace(req.workspaceId);
      const window = pageWindow(req.page);
      const { items, total } = await messaging.listConversations(req.workspaceId, { listingId: req.listingId, reservationId: req.reservationId, guestId: req.guestId }, window);
      return { conversations: items.map(toProtoConversation), page: pageInfo(window, items.length, total) };
    },

    async getConversation(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      return { conversation: toProtoConversation(await messaging.conversation(req.workspaceId, req.id)) };
    },

    async listMessages(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.conversationId, 'conversationId');
      const window = pageWindow(req.page);
      const { items, total } = await messaging.listMessages(req.workspaceId, req.conversationId, window);
      return { messages: items.map(toProtoMessage), page: pageInfo(window, items.length, total) };
    },

    async sendMessage(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.conversationId, 'conversationId');
      const sent = await messaging.send(req.workspaceId, req.conversationId, {
        body: req.body,
        attachments: req.attachments.map(fromProtoAttachment),
        idempotencyKey: req.idempotencyKey,
      }, requestKey('guest.sendMessage', req));
      return { message: toProtoMessage(sent) };
    },

    async listReviews(req) {
      requireWorkspace(req.workspaceId);
      const window = pageWindow(req.page);
      const { items, total } = await messaging.listReviews(req.workspaceId, { listingId: req.listingId }, window);
      return { reviews: items.map(toProtoReview), page: pageInfo(window, items.length, total) };
    },

    async getReview(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      return { review: toProtoReview(await messaging.review(req.workspaceId, req.id)) };
    },

    async replyToReview(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      return { review: toProtoReview(await messaging.reply(req.workspaceId, req.id, req.body, requestKey('guest.replyToReview', req))) };
    },

    async listRequests(req) {
      requireWorkspace(req.workspaceId);
      if (req.status && !(REQUEST_STATUSES as readonly string[]).includes(req.status)) throw validationFailed({ status: `must be one of ${REQUEST_STATUSES.join(', ')}` });
      if (req.kind && req.kind !== 'request' && req.kind !== 'inquiry') throw validationFailed({ kind: 'must be request or inquiry' });
      const window = pageWindow(req.page);
      const { items, total } = await messaging.listRequests(req.workspaceId, { listingId: req.listingId, status: req.status, kind: req.kind }, window);
      return { requests: items.map(toProtoRequest), page: pageInfo(window, items.length, total) };
    },

    async getRequest(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      return { request: toProtoRequest(await messaging.request(req.workspaceId, req.id)) };
    },

    async answerRequest(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      if (!(DECISIONS as readonly string[]).includes(req.decision)) throw validationFailed({ decision: 'must be accept or decline' });
      return { request: toProtoRequest(await messaging.answer(req.workspaceId, req.id, req.decision as Decision, req.message, requestKey('guest.answerRequest', req))) };
    },

    async preApproveInquiry(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      return { request: toProtoRequest(await messaging.preApprove(req.workspaceId, req.id, req.blockInstantBooking, req.message, requestKey('guest.preApproveInquiry', req))) };
    },
  });
}
