// The API listing of a pms.sync.v1 change, shared by every sync applier of this service.
import { PermanentError, TransientError } from '@vrp/platform/consumer';
import { MalformedChange, type SyncChangeRef } from '../domain/sync-change';
import type { PmsPort } from '../ports/pms';

/**
 * The listing the workspace imported from this PMS under the change's PMS listing id. Not
 * imported yet (the listing service applies the same topic in its own consumer group, maybe
 * later): transient, retried in place. Deleted by the workspace: permanent (a dead letter,
 * replayable once the listing is imported again), as the reservation service does.
 */
export async function listingOfChange(pms: PmsPort, change: SyncChangeRef): Promise<string> {
  if (!change.listingExternalId) throw new MalformedChange(`pms sync change ${change.changeId} (${change.entity}) names no listing`);
  const found = await pms.pmsListing(change.workspaceId, change.provider, change.listingExternalId);
  if (found.listingId) return found.listingId;
  if (found.deleted) {
    throw new PermanentError(
      'listing_deleted',
      `${change.provider} ${change.entity} ${change.externalId} is on listing ${change.provider}/${change.listingExternalId}, which workspace ${change.workspaceId} deleted`,
    );
  }
  throw new TransientError(
    'listing_not_imported',
    `pms sync: no listing of ${change.provider} with id '${change.listingExternalId}' in workspace ${change.workspaceId} yet`,
  );
}
