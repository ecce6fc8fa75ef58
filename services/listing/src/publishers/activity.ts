// Publishes ListingActivityChanged on listing.activity.v1 through the outbox, in the same
// transaction as the status change it describes (the use cases of activity call it).
import { listingEvents, TOPICS } from '@vrp/contracts';
import { newId } from '@vrp/platform/ids';
import type { Outbox } from '@vrp/platform/outbox';
import type { Tx } from '@vrp/platform/store';
import type { ListingRecord } from '../domain/listing';

export type ActivityReason = 'created' | 'owner' | 'account_disconnected' | 'imported_unlisted' | 'deleted';

const REASONS: Record<ActivityReason, listingEvents.ActivityReason> = {
  created: listingEvents.ActivityReason.ACTIVITY_REASON_CREATED,
  owner: listingEvents.ActivityReason.ACTIVITY_REASON_OWNER,
  account_disconnected: listingEvents.ActivityReason.ACTIVITY_REASON_ACCOUNT_DISCONNECTED,
  imported_unlisted: listingEvents.ActivityReason.ACTIVITY_REASON_IMPORTED_UNLISTED,
  deleted: listingEvents.ActivityReason.ACTIVITY_REASON_DELETED,
};

export function activityChanged(listing: ListingRecord, reason: ActivityReason, at: Date): listingEvents.ListingActivityChanged {
  return listingEvents.ListingActivityChanged.create({
    eventId: newId('evt'),
    workspaceId: listing.workspaceId,
    listingId: listing.id,
    listingName: listing.name,
    active: listing.status === 'active',
    reason: REASONS[reason],
    version: listing.activityVersion,
    occurredAt: at,
    channelIds: listing.channels.map((c) => c.externalId),
    deleted: reason === 'deleted',
  });
}

export async function recordActivity(outbox: Outbox, tx: Tx, events: listingEvents.ListingActivityChanged[]): Promise<void> {
  await outbox.add(
    tx,
    events.map((e) => ({
      topic: TOPICS.listingActivity.name,
      key: e.listingId,
      value: listingEvents.ListingActivityChanged.encode(e).finish(),
      headers: { 'event-id': e.eventId, 'event-type': 'ListingActivityChanged', 'workspace-id': e.workspaceId },
    })),
  );
}
