// gRPC handlers of GuestService: decode the request, run one use case, encode the result.
import { guest as pb } from '@vrp/contracts';
import { listResponse, requireId, requireWorkspace } from '@vrp/platform/paging';
import { requestKey } from '@vrp/platform/applied-requests';
import { service, type ServiceRegistration } from '@vrp/platform/grpc';
import type { Conversations } from '../use-cases/conversations';
import type { GuestProfiles } from '../use-cases/guests';
import type { Requests } from '../use-cases/requests';
import type { Reviews } from '../use-cases/reviews';
import { fromProtoAttachment, toProtoConversation, toProtoGuest, toProtoMessage, toProtoRequest, toProtoReview } from './mappers';

export function guestHandlers(deps: { profiles: GuestProfiles; conversations: Conversations; reviews: Reviews; requests: Requests }): ServiceRegistration {
  const { profiles, conversations, reviews, requests } = deps;

  return service(pb.GuestServiceService, {
    async listGuests(req) {
      requireWorkspace(req.workspaceId);
      return listResponse('guests', req.page, (window) => profiles.list(req.workspaceId, req.search, window), toProtoGuest);
    },

    async getGuest(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      return { guest: toProtoGuest(await profiles.get(req.workspaceId, req.id)) };
    },

    async createGuest(req) {
      requireWorkspace(req.workspaceId);
      const created = await profiles.create(
        req.workspaceId,
        {
          firstName: req.firstName,
          lastName: req.lastName,
          language: req.language,
          provider: req.provider,
          email: req.email,
          phone: req.phone,
        },
        requestKey('guest.createGuest', req),
      );
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
      const filter = { listingId: req.listingId, reservationId: req.reservationId, guestId: req.guestId };
      return listResponse('conversations', req.page, (window) => conversations.list(req.workspaceId, filter, window), toProtoConversation);
    },

    async getConversation(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      return { conversation: toProtoConversation(await conversations.get(req.workspaceId, req.id)) };
    },

    async listMessages(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.conversationId, 'conversationId');
      return listResponse('messages', req.page, (window) => conversations.listMessages(req.workspaceId, req.conversationId, window), toProtoMessage);
    },

    async sendMessage(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.conversationId, 'conversationId');
      const sent = await conversations.send(
        req.workspaceId,
        req.conversationId,
        {
          body: req.body,
          attachments: req.attachments.map(fromProtoAttachment),
          idempotencyKey: req.idempotencyKey,
        },
        requestKey('guest.sendMessage', req),
      );
      return { message: toProtoMessage(sent) };
    },

    async listReviews(req) {
      requireWorkspace(req.workspaceId);
      return listResponse('reviews', req.page, (window) => reviews.list(req.workspaceId, { listingId: req.listingId }, window), toProtoReview);
    },

    async getReview(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      return { review: toProtoReview(await reviews.get(req.workspaceId, req.id)) };
    },

    async replyToReview(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      return { review: toProtoReview(await reviews.reply(req.workspaceId, req.id, req.body, requestKey('guest.replyToReview', req))) };
    },

    async listRequests(req) {
      requireWorkspace(req.workspaceId);
      const filter = { listingId: req.listingId, status: req.status, kind: req.kind };
      return listResponse('requests', req.page, (window) => requests.list(req.workspaceId, filter, window), toProtoRequest);
    },

    async getRequest(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      return { request: toProtoRequest(await requests.get(req.workspaceId, req.id)) };
    },

    async answerRequest(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      return { request: toProtoRequest(await requests.answer(req.workspaceId, req.id, req.decision, req.message, requestKey('guest.answerRequest', req))) };
    },

    async preApproveInquiry(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      return {
        request: toProtoRequest(
          await requests.preApprove(req.workspaceId, req.id, req.blockInstantBooking, req.message, requestKey('guest.preApproveInquiry', req)),
        ),
      };
    },
  });
}
