// Reviews: reads (404 before 403, collections leave out inactive listings) and the host's one
// reply, refused from the capability matrix before anything is sent (docs/api.md, "Writes that a
// PMS cannot perform"), else relayed to the review's PMS, then stored with its event in one transaction.
import { MAX_REVIEW_REPLY_LENGTH } from '@vrp/api-model';
import { AppError, validationFailed } from '@vrp/platform/errors';
import type { PageWindow } from '@vrp/platform/paging';
import type { RequestKey } from '@vrp/platform/applied-requests';
import { assertPmsCan, type ReviewRecord } from '../domain/messaging';
import { reviewEvent } from '../publishers/events';
import { listingScope, type GuestDeps } from './deps';

export async function listReviews(deps: GuestDeps, workspaceId: string, f: { listingId: string }, window: PageWindow) {
  return deps.messaging.reviewPage(await listingScope(deps.access, workspaceId, f.listingId), window);
}

export async function getReview(deps: GuestDeps, workspaceId: string, id: string): Promise<ReviewRecord> {
  const r = await deps.messaging.review(workspaceId, id);
  deps.access.assertActive(workspaceId, r.listingId);
  return r;
}

/** A key already applied answers the review as it is; nothing is relayed or stored again. */
export function replyToReview(deps: GuestDeps, workspaceId: string, id: string, body: string, key: RequestKey | null = null): Promise<ReviewRecord> {
  return deps.applied.once(
    key,
    () => replyOnce(deps, workspaceId, id, body, key),
    (reviewId) => deps.messaging.review(workspaceId, reviewId),
  );
}

async function replyOnce(deps: GuestDeps, workspaceId: string, id: string, body: string, key: RequestKey | null): Promise<ReviewRecord> {
  const review = await getReview(deps, workspaceId, id);
  if (!body.trim()) throw validationFailed({ body: 'is required' });
  if (body.length > MAX_REVIEW_REPLY_LENGTH) throw validationFailed({ body: `must be at most ${MAX_REVIEW_REPLY_LENGTH} characters` });
  if (review.reply) throw new AppError('conflict', 'This review already has a reply; a review can be replied to once.');
  assertPmsCan(review.provider, ['review.reply']);
  if (review.provider) {
    const listing = await deps.pms.listing(workspaceId, review.listingId);
    await deps.pms.relay({
      workspaceId,
      provider: review.provider,
      operation: 'review.reply',
      listingExternalId: listing.externalId,
      entityExternalId: review.externalId,
      payload: { body },
      idempotencyKey: `${review.id}:reply`,
    });
  }
  const now = new Date();
  const saved = await deps.store.transaction(async (tx) => {
    const out = await deps.messaging.upsertReview({ ...review, reply: { body, repliedAt: now }, updatedAt: now }, tx);
    await deps.applied.remember(key, out.id, tx);
    await deps.outbox.add(tx, [reviewEvent(out, 'updated', now)]);
    return out;
  });
  deps.outbox.flushSoon();
  return saved;
}
