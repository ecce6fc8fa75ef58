// Reviews: relayed to the guest service. Reviews of inactive listings are left out of the
// collection; a direct read, a reply or a filter on an inactive listing is 403. A reply is
// refused (422, nothing sent) when the review's PMS cannot reply (the capability matrix decides).
import { z } from 'zod';
import { idParam, listReviewsQuery, reviewPageSchema, reviewReplyBody, reviewSchema, toApiReview } from '@vrp/api-model';
import { refusedOn } from '@vrp/pms-matrix';
import { guest as pb } from '@vrp/contracts';
import type { Upstream } from '@vrp/platform/grpc';
import { toPagination } from '../mappers';
import { idempotencyKeyOf } from '../middleware/idempotency';
import { defineRoute, ok, type Route } from '../route';

const reviewParams = z.strictObject({ id: idParam('A review id.') });
const one = z.object({ data: reviewSchema });

function reviewOf(res: { review?: pb.Review | undefined }): z.input<typeof reviewSchema> {
  if (!res.review) throw new Error('guest service answered without a review');
  return toApiReview(res.review);
}

export function reviewRoutes(upstream: Upstream<pb.GuestServiceClient>): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/reviews',
      operationId: 'listReviews',
      summary: 'List reviews',
      description:
        'Newest first. Reviews of inactive listings are left out; filtering by a listing the workspace does not have answers 404 not_found, by an inactive one 403 listing_inactive.',
      tags: ['Reviews'],
      auth: 'api_key',
      query: listReviewsQuery,
      responses: { 200: reviewPageSchema },
      errors: ['not_found', 'listing_inactive'],
      async handler({ query, principal }) {
        const res = await upstream.call(
          'listReviews',
          pb.ListReviewsRequest.create({
            workspaceId: principal.workspaceId,
            listingId: query.property_id ?? '',
            page: { limit: query.limit, offset: query.offset },
          }),
        );
        return ok({ data: res.reviews.map(toApiReview), pagination: toPagination(res.page, query, res.reviews.length) });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/reviews/:id',
      operationId: 'getReview',
      summary: 'Get a review',
      tags: ['Reviews'],
      auth: 'api_key',
      params: reviewParams,
      responses: { 200: one },
      errors: ['not_found', 'listing_inactive'],
      async handler({ params, principal }) {
        return ok({ data: reviewOf(await upstream.call('getReview', { workspaceId: principal.workspaceId, id: params.id })) });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/reviews/:id/reply',
      operationId: 'replyToReview',
      summary: 'Reply to a review',
      description:
        'Publishes the host’s reply through the PMS the review came from. A review can be replied to once (409 conflict after). ' +
        `${refusedOn('review.reply')} cannot reply to reviews: 422 pms_write_unsupported, nothing sent.`,
      tags: ['Reviews'],
      auth: 'api_key',
      params: reviewParams,
      body: reviewReplyBody,
      responses: { 200: one },
      errors: ['not_found', 'listing_inactive', 'pms_write_unsupported', 'conflict', 'pms_unavailable'],
      async handler({ params, body, principal, req }) {
        return ok({
          data: reviewOf(
            await upstream.call('replyToReview', { workspaceId: principal.workspaceId, id: params.id, body: body.body, idempotencyKey: idempotencyKeyOf(req) }),
          ),
        });
      },
    }),
  ];
}
