// gRPC handlers of GuestService: decode the request, run one use case, encode the result.
import { guest as pb } from '@vrp/contracts';
import { listResponse, requireId, requireWorkspace } from '@vrp/platform/paging';
import { requestKey } from '@vrp/platform/applied-requests';
import { service, type ServiceRegistration } from '@vrp/platform/grpc';
import { getConversation, listConversations, listMessages, sendMessage } from '../use-cases/conversations';
import type { GuestDeps } from '../use-cases/deps';
import { createGuest, getGuest, listGuests, updateGuest } from '../use-cases/guests';
import { answerRequest, getRequest, listRequests, preApproveInquiry } from '../use-cases/requests';
import { getReview, listReviews, replyToReview } from '../use-cases/reviews';
import { fromProtoAttachment, toProtoConversation, toProtoGuest, toProtoMessage, toProtoRequest, toProtoReview } from './mappers';

export function guestHandlers(deps: GuestDeps): ServiceRegistration {
  return service(pb.GuestServiceService, {
    async listGuests(req) {
      requireWorkspace(req.workspaceId);
      return listResponse('guests', req.page, (window) => listGuests(deps, req.workspaceId, req.search, window), toProtoGuest);
    },

    async getGuest(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      return { guest: toProtoGuest(await getGuest(deps, req.workspaceId, req.id)) };
    },

    async createGuest(req) {
      requireWorkspace(req.workspaceId);
      const created = await createGuest(
        deps,
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
      const updated = await updateGuest(
        deps,
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
      return listResponse('conversations', req.page, (window) => listConversations(deps, req.workspaceId, filter, window), toProtoConversation);
    },

    async getConversation(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      return { conversation: toProtoConversation(await getConversation(deps, req.workspaceId, req.id)) };
    },

    async listMessages(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.conversationId, 'conversationId');
      return listResponse('messages', req.page, (window) => listMessages(deps, req.workspaceId, req.conversationId, window), toProtoMessage);
    },

    async sendMessage(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.conversationId, 'conversationId');
      const sent = await sendMessage(
        deps,
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
      return listResponse('reviews', req.page, (window) => listReviews(deps, req.workspaceId, { listingId: req.listingId }, window), toProtoReview);
    },

    async getReview(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      return { review: toProtoReview(await getReview(deps, req.workspaceId, req.id)) };
    },

    async replyToReview(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      return { review: toProtoReview(await replyToReview(deps, req.workspaceId, req.id, req.body, requestKey('guest.replyToReview', req))) };
    },

    async listRequests(req) {
      requireWorkspace(req.workspaceId);
      const filter = { listingId: req.listingId, status: req.status, kind: req.kind };
      return listResponse('requests', req.page, (window) => listRequests(deps, req.workspaceId, filter, window), toProtoRequest);
    },

    async getRequest(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      return { request: toProtoRequest(await getRequest(deps, req.workspaceId, req.id)) };
    },

    async answerRequest(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      return { request: toProtoRequest(await answerRequest(deps, req.workspaceId, req.id, req.decision, req.message, requestKey('guest.answerRequest', req))) };
    },

    async preApproveInquiry(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.id);
      return {
        request: toProtoRequest(
          await preApproveInquiry(deps, req.workspaceId, req.id, req.blockInstantBooking, req.message, requestKey('guest.preApproveInquiry', req)),
        ),
      };
    },
  });
}
