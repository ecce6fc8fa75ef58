// What every use case of the listing service works with, and the prologue the data use cases
// share. app.ts builds it once; grpc/ and consumers/ pass it to the use-case functions.
import { requireId, requireWorkspace } from '@vrp/platform/paging';
import { validationFailed } from '@vrp/platform/errors';
import { type AppliedRequests } from '@vrp/platform/applied-requests';
import { type DocumentStore } from '@vrp/platform/store';
import { type Outbox } from '@vrp/platform/outbox';
import type { ListingRecord } from '../domain/listing';
import type { BookedNights } from '../ports/bookings';
import type { ContentRelay } from '../ports/pms-content-relay';
import type { DataStore } from '../store/data-store';
import type { ListingStore } from '../store/listing-store';
import type { PmsSyncMarks } from '../store/pms-sync-marks';

export interface ListingDeps {
  store: DocumentStore;
  listings: ListingStore;
  /** Calendar days, content and photos of listings. */
  data: DataStore;
  /** The last PMS change applied to each PMS listing. */
  marks: PmsSyncMarks;
  outbox: Outbox;
  /** Idempotency-Keys stored with the writes (service-side idempotency). */
  applied: AppliedRequests;
  /** Absent in component tests that relay nothing; content is then stored without relaying. */
  contentRelay?: ContentRelay;
  /** The nights reservations hold (reservation service): the calendar shows them as unavailable. */
  bookings: BookedNights;
}

export function assertValid(problems: Record<string, string>): void {
  if (Object.keys(problems).length > 0) throw validationFailed(problems);
}

/** A listing addressed by a call on its data (its id, or a channel id mapped to it). */
export interface ListingRef {
  workspaceId: string;
  listingId: string;
}

/** The common prologue of the data use cases: tenant and id present, listing exists (404), listing active (403). */
export function activeListing(deps: ListingDeps, ref: ListingRef): Promise<ListingRecord> {
  requireWorkspace(ref.workspaceId);
  requireId(ref.listingId, 'listingId');
  return deps.listings.resolveActive(ref.workspaceId, ref.listingId);
}
