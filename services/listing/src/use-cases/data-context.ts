// What the use cases of a listing's data share: their dependencies, the content relay port and
// the common prologue of every call (tenant and id present, 404 before 403).
import { requireId, requireWorkspace } from '@vrp/platform/paging';
import { validationFailed } from '@vrp/platform/errors';
import type { BookedNights } from '../ports/bookings';
import type { SectionValues } from '../domain/content';
import type { ListingRecord } from '../domain/listing';
import { DataStore } from '../store/data-store';
import type { ListingUseCaseDeps } from './listings';

/**
 * Hands content sections to the PMS that manages a listing (ports/pms-content-relay.ts, over
 * the one PMS relay client @vrp/pms-relay). Called only with sections the capability matrix says the PMS can store, and
 * before anything is stored here: if it throws, nothing is stored and the error propagates.
 */
export interface ContentRelay {
  apply(listing: ListingRecord, sections: SectionValues): Promise<void>;
}

export interface ListingDataDeps extends ListingUseCaseDeps {
  /** Absent in component tests that relay nothing; content is then stored without relaying. */
  contentRelay?: ContentRelay;
  /** The nights reservations hold (reservation service): the calendar shows them as unavailable. */
  bookings: BookedNights;
}

export function assertValid(problems: Record<string, string>): void {
  if (Object.keys(problems).length > 0) throw validationFailed(problems);
}

/** What the data use cases share: the data store and the common prologue. */
export interface DataContext {
  data: DataStore;
  /** The common prologue: tenant and id present, listing exists (404), listing active (403). */
  activeListing(req: { workspaceId: string; listingId: string }): Promise<ListingRecord>;
}

export function dataContext(deps: ListingDataDeps): DataContext {
  return {
    data: new DataStore(deps.store),
    async activeListing(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.listingId, 'listingId');
      return deps.listings.resolveActive(req.workspaceId, req.listingId);
    },
  };
}
