// Activity use cases (docs/api.md, "Listing activity"): owner toggles, deletion and account
// disconnection. Each runs in one transaction that changes the listings, the plan's active count
// and the outbox together, so either everything happens or nothing does.
import { preconditionFailed } from '@vrp/platform/errors';
import { requireWorkspace } from '@vrp/platform/paging';
import { type RequestKey } from '@vrp/platform/applied-requests';
import { planToggle, type ListingRecord } from '../domain/listing';
import { activityChanged, recordActivity, type ActivityReason } from '../publishers/activity';
import { type ListingDeps } from './deps';

/** What an owner toggle answers: the ids it changed and those it left as they were. */
export interface ActivityOutcomeIds {
  active: boolean;
  updated: string[];
  unchanged: string[];
}

export const activityOutcomeIds = (o: { active: boolean; updated: ListingRecord[]; unchanged: ListingRecord[] }): ActivityOutcomeIds => ({
  active: o.active,
  updated: o.updated.map((l) => l.id),
  unchanged: o.unchanged.map((l) => l.id),
});

export interface SetActiveInput {
  workspaceId: string;
  ids: string[];
  active: boolean;
  reason?: ActivityReason;
  /** If-Match of a toggle of one listing (0: none). */
  expectedVersion?: number;
  /** Stored with the change when given (absent: keys are not stored). */
  key?: RequestKey | null;
}

/** All or nothing: an unknown id is not_found, a full plan is listings_limit_exceeded. */
export async function setActive(deps: ListingDeps, input: SetActiveInput) {
  const { store, listings, outbox, applied } = deps;
  const { workspaceId, ids, active, reason = 'owner', expectedVersion = 0, key = null } = input;
  const outcome = await store.transaction(async (tx) => {
    const resolved = await listings.resolveAll(workspaceId, ids, tx);
    // If-Match (one listing): checked in the transaction, against the listing as it is now.
    const one = resolved[0];
    if (expectedVersion && one && one.version !== expectedVersion) throw preconditionFailed('Listing', one.id, expectedVersion, one.version);
    const plan = planToggle(resolved, active);
    if (active) await listings.reserveActiveSlots(workspaceId, plan.toChange.length, tx);
    else await listings.releaseActiveSlots(workspaceId, plan.toChange.length, tx);
    const changed: ListingRecord[] = [];
    for (const l of plan.toChange) changed.push(await listings.setStatus(l, active ? 'active' : 'inactive', tx));
    const now = new Date();
    await recordActivity(
      outbox,
      tx,
      changed.map((l) => activityChanged(l, reason, now)),
    );
    const outcome = { active, updated: changed, unchanged: plan.unchanged };
    if (key) await applied.remember(key, JSON.stringify(activityOutcomeIds(outcome)), tx);
    return outcome;
  });
  outbox.flushSoon();
  return outcome;
}

export async function deleteListing(deps: ListingDeps, workspaceId: string, id: string): Promise<ListingRecord> {
  requireWorkspace(workspaceId);
  const { store, listings, outbox } = deps;
  const deleted = await store.transaction(async (tx) => {
    const listing = await listings.resolve(workspaceId, id, tx);
    if (listing.status === 'active') await listings.releaseActiveSlots(workspaceId, 1, tx);
    await listings.remove(listing, tx);
    const gone = { ...listing, activityVersion: listing.activityVersion + 1 };
    await recordActivity(outbox, tx, [activityChanged(gone, 'deleted', new Date())]);
    return listing;
  });
  outbox.flushSoon();
  return deleted;
}

/** The account of a PMS was disconnected: every active listing it manages becomes inactive. */
export async function deactivatePmsAccount(deps: ListingDeps, workspaceId: string, pmsProvider: string, pmsExternalIds: string[]): Promise<ListingRecord[]> {
  const { store, listings, outbox } = deps;
  const changed = await store.transaction(async (tx) => {
    const active = await listings.activeOfPmsAccount(workspaceId, pmsProvider, pmsExternalIds, tx);
    await listings.releaseActiveSlots(workspaceId, active.length, tx);
    const out: ListingRecord[] = [];
    for (const l of active) out.push(await listings.setStatus(l, 'inactive', tx));
    const now = new Date();
    await recordActivity(
      outbox,
      tx,
      out.map((l) => activityChanged(l, 'account_disconnected', now)),
    );
    return out;
  });
  outbox.flushSoon();
  return changed;
}
