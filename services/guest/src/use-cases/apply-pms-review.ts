// entity=review of pms.sync.v1: a review as its PMS last changed it (older changes are ignored).
import type { ReviewSyncPayload } from '@vrp/contracts';
import { newId } from '@vrp/platform/ids';
import { date, MalformedChange, type SyncChangeRef } from '../domain/sync-change';
import { reviewEvent } from '../publishers/events';
import { type GuestDeps } from './deps';
import { listingOfChange } from './sync-listing';

export async function applyPmsReview(deps: GuestDeps, change: SyncChangeRef, p: ReviewSyncPayload): Promise<void> {
  if (!p.externalId) throw new MalformedChange(`review change ${change.changeId} needs externalId`);
  if (!Number.isInteger(p.rating) || p.rating < 1 || p.rating > 5)
    throw new MalformedChange(`review change ${change.changeId}: rating ${p.rating} is not 1..5`);
  const listingId = await listingOfChange(deps.pms, change);
  const { workspaceId, provider } = change;
  const sourceUpdatedAt = date(p.updatedAt, 'updatedAt');
  const wrote = await deps.store.transaction(async (tx) => {
    const known = await deps.messaging.reviewByExternalId(workspaceId, provider, p.externalId, tx);
    if (known && known.sourceUpdatedAt >= sourceUpdatedAt) return false;
    const now = new Date();
    const review = await deps.messaging.upsertReview(
      {
        id: known?.id ?? newId('rev'),
        workspaceId,
        listingId,
        reservationId: known?.reservationId ?? '',
        guestId: known?.guestId ?? '',
        guestName: p.guestName ?? known?.guestName ?? '',
        rating: p.rating,
        body: p.body,
        channel: p.channel ?? '',
        provider,
        externalId: p.externalId,
        // A reply made here stays until the PMS reports its own.
        reply: p.reply ? { body: p.reply.body, repliedAt: date(p.reply.repliedAt, 'reply.repliedAt') } : (known?.reply ?? null),
        submittedAt: date(p.submittedAt, 'submittedAt'),
        sourceUpdatedAt,
        createdAt: known?.createdAt ?? now,
        updatedAt: now,
      },
      tx,
    );
    await deps.outbox.add(tx, [reviewEvent(review, known ? 'updated' : 'created', now)]);
    return true;
  });
  if (wrote) deps.outbox.flushSoon();
}
