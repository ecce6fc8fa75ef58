// The calendar of a listing: availability and prices by day, with the nights its reservations hold;
// batches of availability changes over several listings, all or nothing.
import { listing as pb } from '@vrp/contracts';
import { listingInactive } from '@vrp/platform/errors';
import { requestKey } from '@vrp/platform/applied-requests';
import { requireId, requireWorkspace } from '@vrp/platform/paging';
import { availabilityRequestProblems, changesOf, rangeProblems, withBookings, type AvailabilityOutcome, type ListingCalendar } from '../domain/calendar';
import { assertValid, dataContext, type DataContext, type ListingDataDeps } from './data-context';

export function calendarUseCases(deps: ListingDataDeps, ctx: DataContext = dataContext(deps)) {
  const { listings, store, bookings, applied } = deps;
  const { data } = ctx;

  return {
    async getCalendar(req: pb.GetCalendarRequest): Promise<ListingCalendar> {
      requireWorkspace(req.workspaceId);
      requireId(req.listingId, 'listingId');
      assertValid(rangeProblems(req.from, req.to));
      const listing = await listings.resolveActive(req.workspaceId, req.listingId);
      const days = await data.calendar(listing, req.from, req.to);
      if (req.calendarOnly) return { listingId: listing.id, currency: listing.currency, days };
      const booked = await bookings.list(req.workspaceId, listing.id, req.from, req.to);
      return { listingId: listing.id, currency: listing.currency, days: withBookings(days, booked) };
    },

    async updateAvailability(req: pb.UpdateAvailabilityRequest): Promise<AvailabilityOutcome> {
      requireWorkspace(req.workspaceId);
      assertValid(availabilityRequestProblems(req.updates));
      // A key already applied answers the first outcome, and the batch is not written again
      // (a later change of the same days is not overwritten by a late retry).
      const key = requestKey('listing.updateAvailability', req);
      const write = () =>
        // Resolution, the activity check and the writes share one transaction, so a listing
        // deactivated meanwhile cannot receive half of the batch.
        store.transaction(async (tx) => {
          // Every listing is resolved before anything is judged: unknown ids are a 404 naming
          // them all, and only then is activity checked (404 before 403).
          const resolved = await listings.resolveAll(
            req.workspaceId,
            req.updates.map((u) => u.listingId),
            tx,
          );
          const inactive = new Map<string, { id: string; name: string }>();
          for (const l of resolved) if (l.status === 'inactive') inactive.set(l.id, { id: l.id, name: l.name });
          // Spec 7.1 rule 1: one error naming every inactive listing, and nothing written.
          if (inactive.size > 0) throw listingInactive([...inactive.values()]);

          const listingIds: string[] = [];
          const written = new Set<string>();
          for (const [i, u] of req.updates.entries()) {
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
    },
  };
}
