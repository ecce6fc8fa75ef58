// What every reservation use case is given: the engines, the stores, the other services as ports,
// and the service's clock. Built once in app.ts.
import type { ListingActivityCache } from '@vrp/activity-cache';
import type { AppliedRequests } from '@vrp/platform/applied-requests';
import type { DocumentStore } from '@vrp/platform/store';
import type { Logger } from '@vrp/platform/logging';
import type { Outbox } from '@vrp/platform/outbox';
import type { PmsRelay } from '@vrp/pms-relay';
import type { ListingDirectory } from '../ports/listings';
import type { NightStore } from '../store/night-store';
import type { SettingsStore } from '../store/settings-store';
import type { ReservationStore } from '../store/reservation-store';

export interface ReservationDeps {
  store: DocumentStore;
  reservations: ReservationStore;
  nights: NightStore;
  /** The workspaces' settings, which the booking rule reads. */
  settings: SettingsStore;
  outbox: Outbox;
  listings: ListingDirectory;
  relay: PmsRelay;
  activity: ListingActivityCache;
  logger: Logger;
  /** Idempotency-Keys stored with the writes (service-side idempotency). */
  applied: AppliedRequests;
  /** The service's clock: POST_STAY, pending holds and timestamps are decided against it. */
  clock: () => Date;
}
