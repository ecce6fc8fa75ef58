// Wiring of the listing service: store and bus engines in, gRPC + ops servers out.
import { reservation, TOPICS } from '@vrp/contracts';
import { AppliedRequests } from '@vrp/platform/applied-requests';
import { createUpstream } from '@vrp/platform/grpc';
import { startServiceBase, type RunningService, type ServiceDeps } from '@vrp/platform/service';
import { connectPmsRelay } from '@vrp/pms-relay';
import { startPmsSyncConsumer } from './consumers/pms-sync';
import { listingService } from './grpc/handlers';
import { grpcBookedNights, type BookedNights } from './ports/bookings';
import { pmsContentRelay, type ContentRelay } from './ports/pms-content-relay';
import { DataStore } from './store/data-store';
import { ListingStore } from './store/listing-store';
import { PmsSyncMarks } from './store/pms-sync-marks';
import type { ListingDeps } from './use-cases/deps';

export interface ListingServiceDeps extends ServiceDeps {
  /** Where content of PMS listings is relayed; default: the pms-adapter at addresses.pmsAdapter. */
  contentRelay?: ContentRelay;
  /** Where the calendar reads booked nights; default: the reservation service at addresses.reservation. */
  bookings?: BookedNights;
}

export async function startListingService(given: ListingServiceDeps): Promise<RunningService> {
  const { deps, outbox, consumers, serve } = await startServiceBase('listing', given, { topics: [TOPICS.listingActivity] });
  // Content of a PMS listing goes to its PMS first (the one PMS relay client: the pms-adapter's RelayWrite).
  const pmsRelay = deps.contentRelay ? null : connectPmsRelay(deps.addresses.pmsAdapter);
  const reservationUpstream = deps.bookings
    ? null
    : createUpstream(reservation.ReservationServiceClient, { name: 'reservation', address: deps.addresses.reservation });
  const useCases: ListingDeps = {
    store: deps.store,
    listings: new ListingStore(deps.store),
    data: new DataStore(deps.store),
    marks: new PmsSyncMarks(deps.store),
    outbox,
    applied: new AppliedRequests(deps.store),
    contentRelay: deps.contentRelay ?? pmsContentRelay(pmsRelay!),
    bookings: deps.bookings ?? grpcBookedNights(reservationUpstream!),
  };
  // Imports and PMS-side changes of listings (pms.sync.v1).
  const pmsSync = await startPmsSyncConsumer(consumers, useCases);
  return serve({
    services: [listingService(useCases)],
    onStop: async () => {
      await pmsSync.stop();
      await outbox.stop();
      pmsRelay?.close();
      reservationUpstream?.close();
    },
  });
}
