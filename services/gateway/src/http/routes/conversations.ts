// Conversations and messages, and reservation requests and inquiries (the guest conversations
// that come before a booking): relayed to the guest service. Data of inactive listings is left
// out of collections; direct reads, writes and filters on an inactive listing are 403. Writes
// the PMS cannot perform are refused (422, nothing sent) by the guest service from the capability
// matrix; the descriptions name the PMSs with refusedOn(), from the same matrix.
import { z } from 'zod';
import {
  answerRequestBody,
  conversationPageSchema,
  conversationSchema,
  idParam,
  listConversationsQuery,
  listRequestsQuery,
  messagePageSchema,
  messageSchema,
  pageQuery,
  preApproveBody,
  requestPageSchema,
  reservationRequestSchema,
  sendMessageBody,
  toApiConversation,
  toApiMessage,
  toApiReservationRequest,
} from '@vrp/api-model';
import { refusedOn } from '@vrp/pms-matrix';
import { guest as pb } from '@vrp/contracts';
import type { Upstream } from '@vrp/platform/grpc';
import { idempotencyKeyOf } from '../middleware/idempotency';
import { toPagination } from '../mappers';
import { created, defineRoute, ok, type Route } from '../route';

const conversationParams = z.strictObject({ id: idParam('A conversation id.') });
const requestParams = z.strictObject({ id: idParam('A reservation request or inquiry id.') });
const oneRequest = z.object({ data: reservationRequestSchema });

function requestOf(res: { request?: pb.ReservationRequest | undefined }): z.input<typeof reservationRequestSchema> {
  if (!res.request) throw new Error('guest service answered without a request');
  return toApiReservationRequest(res.request);
}

export function conversationRoutes(upstream: Upstream<pb.GuestServiceClient>): Route[] {
  const answer = (decision: 'accept' | 'decline') =>
    defineRoute({
      method: 'post',
      path: `/v1/requests/:id/${decision}`,
      operationId: `${decision}Request`,
      summary: `${decision === 'accept' ? 'Accept' : 'Decline'} a reservation request`,
      description:
        'Only a pending request (`kind: request`) can be answered (409 conflict otherwise). Relayed through the PMS that relayed the request; ' +
        `${refusedOn('request.answer')} cannot answer requests: 422 pms_write_unsupported, nothing sent.`,
      tags: ['Requests'],
      auth: 'api_key',
      params: requestParams,
      body: answerRequestBody,
      responses: { 200: oneRequest },
      errors: ['not_found', 'listing_inactive', 'pms_write_unsupported', 'conflict', 'pms_unavailable'],
      async handler({ params, body, principal, req }) {
        const res = await upstream.call('answerRequest', {
          workspaceId: principal.workspaceId,
          id: params.id,
          decision,
          message: body?.message ?? '',
          idempotencyKey: idempotencyKeyOf(req),
        });
        return ok({ data: requestOf(res) });
      },
    });

  return [
    defineRoute({
      method: 'get',
      path: '/v1/conversations',
      operationId: 'listConversations',
      summary: 'List conversations',
      description:
        'Newest first. Conversations of inactive listings are left out; filtering by a listing the workspace does not have answers 404 not_found, by an inactive one 403 listing_inactive.',
      tags: ['Conversations'],
      auth: 'api_key',
      query: listConversationsQuery,
      responses: { 200: conversationPageSchema },
      errors: ['not_found', 'listing_inactive'],
      async handler({ query, principal }) {
        const res = await upstream.call(
          'listConversations',
          pb.ListConversationsRequest.create({
            workspaceId: principal.workspaceId,
            listingId: query.property_id ?? '',
            reservationId: query.reservation_id ?? '',
            guestId: query.guest_id ?? '',
            page: { limit: query.limit, offset: query.offset },
          }),
        );
        return ok({ data: res.conversations.map(toApiConversation), pagination: toPagination(res.page, query, res.conversations.length) });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/conversations/:id',
      operationId: 'getConversation',
      summary: 'Get a conversation',
      tags: ['Conversations'],
      auth: 'api_key',
      params: conversationParams,
      responses: { 200: z.object({ data: conversationSchema }) },
      errors: ['not_found', 'listing_inactive'],
      async handler({ params, principal }) {
        const { conversation } = await upstream.call('getConversation', { workspaceId: principal.workspaceId, id: params.id });
        if (!conversation) throw new Error('guest service answered without a conversation');
        return ok({ data: toApiConversation(conversation) });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/conversations/:id/messages',
      operationId: 'listMessages',
      summary: 'List the messages of a conversation',
      description: 'Oldest first (reading order).',
      tags: ['Conversations'],
      auth: 'api_key',
      params: conversationParams,
      query: z.strictObject({ ...pageQuery }),
      responses: { 200: messagePageSchema },
      errors: ['not_found', 'listing_inactive'],
      async handler({ params, query, principal }) {
        const res = await upstream.call('listMessages', {
          workspaceId: principal.workspaceId,
          conversationId: params.id,
          page: { limit: query.limit, offset: query.offset },
        });
        return ok({ data: res.messages.map(toApiMessage), pagination: toPagination(res.page, query, res.messages.length) });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/conversations/:id/messages',
      operationId: 'sendMessage',
      summary: 'Send a message to the guest',
      description:
        'Relayed through the listing’s PMS when it has one. Attachments are refused on listings managed in ' +
        `${refusedOn('message.attachments')} (422 pms_write_unsupported, nothing sent). Send \`Idempotency-Key\` to retry safely.`,
      tags: ['Conversations'],
      auth: 'api_key',
      params: conversationParams,
      body: sendMessageBody,
      responses: { 201: z.object({ data: messageSchema }) },
      errors: ['not_found', 'listing_inactive', 'pms_write_unsupported', 'pms_unavailable'],
      async handler({ params, body, principal, req }) {
        const { message } = await upstream.call(
          'sendMessage',
          pb.SendMessageRequest.create({
            workspaceId: principal.workspaceId,
            conversationId: params.id,
            body: body.body,
            attachments: body.attachments.map((a) => ({ url: a.url, name: a.name ?? '', contentType: a.contentType ?? '' })),
            idempotencyKey: idempotencyKeyOf(req),
          }),
        );
        if (!message) throw new Error('guest service answered without a message');
        return created({ data: toApiMessage(message) });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/requests',
      operationId: 'listRequests',
      summary: 'List reservation requests and inquiries',
      description:
        'Newest first. Requests of inactive listings are left out; filtering by a listing the workspace does not have answers 404 not_found, by an inactive one 403 listing_inactive.',
      tags: ['Requests'],
      auth: 'api_key',
      query: listRequestsQuery,
      responses: { 200: requestPageSchema },
      errors: ['not_found', 'listing_inactive'],
      async handler({ query, principal }) {
        const res = await upstream.call(
          'listRequests',
          pb.ListRequestsRequest.create({
            workspaceId: principal.workspaceId,
            listingId: query.property_id ?? '',
            status: query.status ?? '',
            kind: query.kind ?? '',
            page: { limit: query.limit, offset: query.offset },
          }),
        );
        return ok({ data: res.requests.map(toApiReservationRequest), pagination: toPagination(res.page, query, res.requests.length) });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/requests/:id',
      operationId: 'getRequest',
      summary: 'Get a reservation request or inquiry',
      tags: ['Requests'],
      auth: 'api_key',
      params: requestParams,
      responses: { 200: oneRequest },
      errors: ['not_found', 'listing_inactive'],
      async handler({ params, principal }) {
        return ok({ data: requestOf(await upstream.call('getRequest', { workspaceId: principal.workspaceId, id: params.id })) });
      },
    }),
    answer('accept'),
    answer('decline'),
    defineRoute({
      method: 'post',
      path: '/v1/requests/:id/pre-approve',
      operationId: 'preApproveInquiry',
      summary: 'Pre-approve an inquiry',
      description:
        'Only a pending inquiry (`kind: inquiry`) can be pre-approved (409 conflict otherwise). Refused (422 pms_write_unsupported, nothing sent) when relayed by ' +
        `${refusedOn('inquiry.pre_approve')}, and with \`blockInstantBooking: true\` on ${refusedOn('inquiry.block_instant_booking')}.`,
      tags: ['Requests'],
      auth: 'api_key',
      params: requestParams,
      body: preApproveBody,
      responses: { 200: oneRequest },
      errors: ['not_found', 'listing_inactive', 'pms_write_unsupported', 'conflict', 'pms_unavailable'],
      async handler({ params, body, principal, req }) {
        const res = await upstream.call('preApproveInquiry', {
          workspaceId: principal.workspaceId,
          id: params.id,
          blockInstantBooking: body?.blockInstantBooking ?? false,
          message: body?.message ?? '',
          idempotencyKey: idempotencyKeyOf(req),
        });
        return ok({ data: requestOf(res) });
      },
    }),
  ];
}
