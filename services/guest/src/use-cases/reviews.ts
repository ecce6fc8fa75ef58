// Reviews: reads (404 before 403, collections leave out inactive listings) and the host's one
// reply, refused from the capability matrix before anything is sent (spec 7.2), else relayed to
// the review's PMS, then stored with its event in one transaction.
import { MAX_REVIEW_REPLY_LENGTH } from '@vrp/api-model';
import { AppError, validationFailed } from '@vrp/platform/errors';
import type { PageWindow } from '@vrp/platform/paging';
import type { RequestKey } from '@vrp/platform/applied-requests';
import { assertPmsCan, type ReviewRecord } from '../domain/messaging';
import { reviewEvent } from '../events/publishers';
import { listingScope, publishSoon, type GuestDeps } from './deps';

export class Reviews {
  constructor(private readonly deps: GuestDeps) {}

  async list(workspaceId: string, f: { listingId: string }, window: PageWindow) {
    return this.deps.messaging.reviewPage(await listingScope(this.deps.access, workspaceId, f.listingId), window);
  }

  async get(workspaceId: string, id: string): Promise<ReviewRecord> {
    const r = await this.deps.messaging.review(workspaceId, id);
    this.deps.access.assertActive(workspaceId, r.listingId);
    return r;
  }

  /** A key already applied answers the review as it is; nothing is relayed or stored again. */
  reply(workspaceId: string, id: string, body: string, key: RequestKey | null = null): Promise<ReviewRecord> {
    return this.deps.applied.once(
      key,
      () => this.replyOnce(workspaceId, id, body, key),
      (reviewId) => this.deps.messaging.review(workspaceId, reviewId),
    );
  }

  private async replyOnce(workspaceId: string, id: string, body: string, key: RequestKey | null): Promise<ReviewRecord> {
    const review = await this.get(workspaceId, id);
    if (!body.trim()) throw validationFailed({ body: 'is required' });
    if (body.length > MAX_REVIEW_REPLY_LENGTH) throw validationFailed({ body: `must be at most ${MAX_REVIEW_REPLY_LENGTH} characters` });
    if (review.reply) throw new AppError('conflict', 'This review already has a reply; a review can be replied to once.');
    assertPmsCan(review.provider, ['review.reply']);
    if (review.provider) {
      const listing = await this.deps.pms.listing(workspaceId, review.listingId);
      await this.deps.pms.relay({
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
    const saved = await this.deps.store.transaction(async (tx) => {
      const out = await this.deps.messaging.upsertReview({ ...review, reply: { body, repliedAt: now }, updatedAt: now }, tx);
      await this.deps.applied.remember(key, out.id, tx);
      await this.deps.outbox.add(tx, [reviewEvent(out, 'updated', now)]);
      return out;
    });
    publishSoon(this.deps.outbox);
    return saved;
  }
}
