// The calendar of a listing: availability and prices by day, with the nights its reservations hold;
// batches of availability changes over several listings, all or nothing.
import { listingInactive } from '@vrp/platform/errors';
import { requireId, requireWorkspace } from '@vrp/platform/paging';
import { type RequestKey } from '@vrp/platform/applied-requests';
import {
  availabilityRequestProblems,
  changesOf,
  rangeProblems,
  withBookings,
  type AvailabilityOutcome,
  type AvailabilityUpdateInput,
  type CalendarDay,
  type ListingCalendar,
} from '../domain/calendar';
import type { ListingRecord } from '../domain/listing';
import { assertValid, type ListingDeps, type ListingRef } from './deps';

export interface CalendarQuery extends ListingRef {
  from: string;
  to: string;
  /** Days only, without the nights reservations hold (no call to the reservation service). */
  calendarOnly: boolean;
}

export async function getCalendar(deps: ListingDeps, q: CalendarQuery): Promise<ListingCalendar> {
  requireWorkspace(q.workspaceId);
  requireId(q.listingId, 'listingId');
  assertValid(rangeProblems(q.from, q.to));
  const listing = await deps.listings.resolveActive(q.workspaceId, q.listingId);
  const days = await deps.data.calendar(listing, q.from, q.to);
  if (q.calendarOnly) return { listingId: listing.id, currency: listing.currency, days };
  const booked = await deps.bookings.list(q.workspaceId, listing.id, q.from, q.to);
  return { listingId: listing.id, currency: listing.currency, days: withBookings(days, booked) };
}

export interface StayQuery {
  workspaceId: string;
  /** Listing id or mapped channel id. */
  id: string;
  /** The stay's first and last night (inclusive). */
  from: string;
  to: string;
}

/**
 * A listing, active or not (a write decides activity itself), with its calendar's own days over
 * a stay: a reservation write's listing and prices in one call. 404 when it is not in the workspace.
 */
export async function resolveStay(deps: ListingDeps, q: StayQuery): Promise<{ listing: ListingRecord; days: CalendarDay[] }> {
  requireWorkspace(q.workspaceId);
  requireId(q.id, 'id');
  assertValid(rangeProblems(q.from, q.to));
  const listing = await deps.listings.resolve(q.workspaceId, q.id);
  return { listing, days: await deps.data.calendar(listing, q.from, q.to) };
}

/**
 * A key already applied answers the first outcome, and the batch is not written again (a later
 * change of the same days is not overwritten by a late retry).
 */
export async function updateAvailability(
  deps: ListingDeps,
  workspaceId: string,
  updates: AvailabilityUpdateInput[],
  key: RequestKey | null,
): Promise<AvailabilityOutcome> {
  const { store, listings, data, applied } = deps;
  requireWorkspace(workspaceId);
  assertValid(availabilityRequestProblems(updates));
  const write = () =>
    // Resolution, the activity check and the writes share one transaction, so a listing
    // deactivated meanwhile cannot receive half of the batch.
    store.transaction(async (tx) => {
      // Every listing is resolved before anything is judged: unknown ids are a 404 naming
      // them all, and only then is activity checked (404 before 403).
      const resolved = await listings.resolveAll(
        workspaceId,
        updates.map((u) => u.listingId),
        tx,
      );
      const inactive = new Map<string, { id: string; name: string }>();
      for (const l of resolved) if (l.status === 'inactive') inactive.set(l.id, { id: l.id, name: l.name });
      // One error naming every inactive listing, and nothing written (docs/api.md, "Listings are
      // active or inactive").
      if (inactive.size > 0) throw listingInactive([...inactive.values()]);

      const listingIds: string[] = [];
      const written = new Set<string>();
      for (const [i, u] of updates.entries()) {
        const listing = resolved[i];
        if (!listing) throw new Error(`updateAvailability: update ${i} has no resolved listing`);
        for (const date of await data.writeDays(listing, u.from, u.to, changesOf(u), tx)) written.add(`${listing.id}:${date}`);
        if (!listingIds.includes(listing.id)) listingIds.push(listing.id);
      }
      // A day named by two overlapping updates is one day written.
      const outcome: AvailabilityOutcome = { listingIds, daysUpdated: written.size };
      await applied.remember(key, JSON.stringify(outcome), tx);
      return outcome;
    });
  return applied.once(key, write, async (result) => JSON.parse(result) as AvailabilityOutcome);
}
