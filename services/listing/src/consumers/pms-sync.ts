// Consumer of pms.sync.v1 for the listing service: decodes each change, keeps the listing changes,
// checks them against the API's vocabulary and limits, and hands them to the use case
// (use-cases/pms-sync.ts). Failures: an unreadable payload or a channel id taken by another
// listing are permanent (dead letters); store trouble is transient (retried in place by the
// runner).
import { checkPmsInput } from '@vrp/api-model';
import { PermanentError, pmsSyncConsumer, type ConsumerRunner } from '@vrp/platform/consumer';
import { type Subscription } from '@vrp/platform/bus';
import type { ListingDeps } from '../use-cases/deps';
import { applyPmsListing } from '../use-cases/pms-sync';

export const PMS_SYNC_GROUP = 'listing.pms-sync';

/** Subscribes the listing service to pms.sync.v1; resolves once the subscription is ready. */
export async function startPmsSyncConsumer(consumers: ConsumerRunner, deps: ListingDeps): Promise<Subscription> {
  const subscription = await consumers.subscribe(
    // Other entities are for the reservation and guest services.
    pmsSyncConsumer(
      PMS_SYNC_GROUP,
      (entity) => entity === 'listing',
      async (synced) => {
        const change = checkPmsInput(synced);
        if (!change.listing) throw new PermanentError('malformed_payload', `pms.sync.v1 listing change ${change.changeId} carries no listing`);
        await applyPmsListing(deps, {
          workspaceId: change.workspaceId,
          provider: change.provider,
          changeId: change.changeId,
          occurredAt: change.occurredAt,
          listing: change.listing,
        });
      },
    ),
  );
  await subscription.ready;
  return subscription;
}
