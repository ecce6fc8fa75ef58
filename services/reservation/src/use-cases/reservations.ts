// Reservation use cases. Order of decisions on every request: the input is valid (400), the
// reservation and listing exist in the workspace (404), the listing is active (403), the PMS
// can perform the write (422, decided from the capability matrix before anything is sent).
// A write on a PMS listing is relayed first and stored only after the PMS accepted it, so a
// PMS failure leaves nothing half written; the stored change and its event share one
// transaction (outbox), so no event is lost.
//
// One file per flow: queries.ts (reads, quote, booked nights), create.ts, change.ts (PATCH and
// cancel), sync-apply.ts (pms.sync.v1), with what they share in context.ts; the night rules of
// every write are in hold-nights.ts. This facade is what grpc/ and events/ call.
import type { pmsSync } from '@vrp/contracts';
import type { PageWindow } from '@vrp/platform/paging';
import type { RequestKey } from '@vrp/platform/applied-requests';
import type { ReservationQueryInput, ReservationRecord } from '../domain/reservation';
import type { NewReservationInput, ReservationPatchInput } from '../domain/writes';
import { ChangeReservation } from './change';
import type { ReservationDeps } from './context';
import { CreateReservation } from './create';
import { ReservationQueries, type QuoteResult } from './queries';
import { ApplyPmsReservation } from './sync-apply';

export type { ReservationDeps } from './context';
export type { QuoteResult } from './queries';

export class Reservations {
  /** The service's clock: POST_STAY is decided against it. */
  readonly now: () => Date;
  private readonly queries: ReservationQueries;
  private readonly creates: CreateReservation;
  private readonly changes: ChangeReservation;
  private readonly sync: ApplyPmsReservation;

  constructor(deps: ReservationDeps) {
    this.queries = new ReservationQueries(deps);
    this.creates = new CreateReservation(deps);
    this.changes = new ChangeReservation(deps);
    this.sync = new ApplyPmsReservation(deps);
    this.now = this.queries.now;
  }

  list(workspaceId: string, query: ReservationQueryInput, window: PageWindow) {
    return this.queries.list(workspaceId, query, window);
  }

  get(workspaceId: string, id: string): Promise<ReservationRecord> {
    return this.queries.get(workspaceId, id);
  }

  create(workspaceId: string, input: NewReservationInput, key: RequestKey | null): Promise<ReservationRecord> {
    return this.creates.create(workspaceId, input, key);
  }

  update(workspaceId: string, id: string, input: ReservationPatchInput, key: RequestKey | null, expectedVersion = 0): Promise<ReservationRecord> {
    return this.changes.update(workspaceId, id, input, key, expectedVersion);
  }

  cancel(workspaceId: string, id: string, key: RequestKey | null, expectedVersion = 0): Promise<ReservationRecord> {
    return this.changes.cancel(workspaceId, id, key, expectedVersion);
  }

  quote(workspaceId: string, propertyId: string, checkIn: string, checkOut: string): Promise<QuoteResult> {
    return this.queries.quote(workspaceId, propertyId, checkIn, checkOut);
  }

  bookedNights(workspaceId: string, listingId: string, from: string, to: string) {
    return this.queries.bookedNights(workspaceId, listingId, from, to);
  }

  applySync(change: pmsSync.PmsSyncChange): Promise<'applied' | 'ignored'> {
    return this.sync.applySync(change);
  }
}
