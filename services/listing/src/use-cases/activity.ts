// Activity use cases of spec 3.2: owner toggles, deletion and account disconnection. Each runs
// in one transaction that changes the listings, the plan's active count and the outbox
// together, so either everything happens or nothing does.
import { preconditionFailed } from '@vrp/platform/errors';
import type { AppliedRequests, RequestKey } from '@vrp/platform/applied-requests';
import type { DocumentStore } from '@vrp/platform/store';
import type { Outbox } from '@vrp/platform/outbox';
import { planToggle, type ListingRecord } from '../domain/listing';
import { activityChanged, recordActivity, type ActivityReason } from '../events/activity-publisher';
import type { ListingStore } from '../store/listing-store';

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

export class ListingActivity {
  constructor(
    private readonly store: DocumentStore,
    private readonly listings: ListingStore,
    private readonly outbox: Outbox,
    /** Where an owner toggle's Idempotency-Key is stored with it (absent: keys are not stored). */
    private readonly applied?: AppliedRequests,
  ) {}

  /** All or nothing: an unknown id is not_found, a full plan is listings_limit_exceeded. */
  async setActive(workspaceId: string, ids: string[], active: boolean, reason: ActivityReason = 'owner', expectedVersion = 0, key: RequestKey | null = null) {
    const outcome = await this.store.transaction(async (tx) => {
      const resolved = await this.listings.resolveAll(workspaceId, ids, tx);
      // If-Match (one listing): checked in the transaction, against the listing as it is now.
      const one = resolved[0];
      if (expectedVersion && one && one.version !== expectedVersion) throw preconditionFailed('Listing', one.id, expectedVersion, one.version);
      const plan = planToggle(resolved, active);
      if (active) await this.listings.reserveActiveSlots(workspaceId, plan.toChange.length, tx);
      else await this.listings.releaseActiveSlots(workspaceId, plan.toChange.length, tx);
      const changed: ListingRecord[] = [];
      for (const l of plan.toChange) changed.push(await this.listings.setStatus(l, active ? 'active' : 'inactive', tx));
      const now = new Date();
      await recordActivity(
        this.outbox,
        tx,
        changed.map((l) => activityChanged(l, reason, now)),
      );
      const outcome = { active, updated: changed, unchanged: plan.unchanged };
      if (key) await this.applied?.remember(key, JSON.stringify(activityOutcomeIds(outcome)), tx);
      return outcome;
    });
    this.publishSoon();
    return outcome;
  }

  async delete(workspaceId: string, id: string): Promise<ListingRecord> {
    const deleted = await this.store.transaction(async (tx) => {
      const listing = await this.listings.resolve(workspaceId, id, tx);
      if (listing.status === 'active') await this.listings.releaseActiveSlots(workspaceId, 1, tx);
      await this.listings.remove(listing, tx);
      const gone = { ...listing, activityVersion: listing.activityVersion + 1 };
      await recordActivity(this.outbox, tx, [activityChanged(gone, 'deleted', new Date())]);
      return listing;
    });
    this.publishSoon();
    return deleted;
  }

  /** The account of a PMS was disconnected: every active listing it manages becomes inactive. */
  async deactivatePmsAccount(workspaceId: string, pmsProvider: string, pmsExternalIds: string[]): Promise<ListingRecord[]> {
    const changed = await this.store.transaction(async (tx) => {
      const listings = await this.listings.activeOfPmsAccount(workspaceId, pmsProvider, pmsExternalIds, tx);
      await this.listings.releaseActiveSlots(workspaceId, listings.length, tx);
      const out: ListingRecord[] = [];
      for (const l of listings) out.push(await this.listings.setStatus(l, 'inactive', tx));
      const now = new Date();
      await recordActivity(
        this.outbox,
        tx,
        out.map((l) => activityChanged(l, 'account_disconnected', now)),
      );
      return out;
    });
    this.publishSoon();
    return changed;
  }

  /** Publish right after the commit; the relay's timer retries if this fails. */
  private publishSoon(): void {
    void this.outbox.flush().catch(() => undefined);
  }
}
