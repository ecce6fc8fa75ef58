// Wiring of the listing service: store and bus engines in, gRPC + ops servers out.
import { reservation, TOPICS } from '@vrp/contracts';
import { AppliedRequests } from '@vrp/platform/applied-requests';
import { createUpstream } from '@vrp/platform/grpc';
import { startServiceBase, type RunningService, type ServiceDeps } from '@vrp/platform/service';
import { ListingActivity } from './use-cases/activity';
import type { ContentRelay } from './use-cases/listing-data';
import { listingService } from './grpc/handlers';
import { connectPmsRelay } from '@vrp/pms-relay';
import { PmsSyncConsumer } from './events/pms-sync-consumer';
import { ApplyPmsListing } from './use-cases/pms-sync';
import { grpcBookedNights, type BookedNights } from './ports/bookings';
import { pmsContentRelay } from './ports/pms-content-relay';
import { ListingStore } from './store/listing-store';

export interface ListingServiceDeps extends ServiceDeps {
  /** Where content of PMS listings is relayed; default: the pms-adapter at addresses.pmsAdapter. */
  contentRelay?: ContentRelay;
  /** Where the calendar reads booked nights; default: the reservation service at addresses.reservation. */
  bookings?: BookedNights;
}

export async function startListingService(given: ListingServiceDeps): Promise<RunningService> {
  const { deps, outbox, consumers, serve } = await startServiceBase('listing', given, { topics: [TOPICS.listingActivity] });
  const listings = new ListingStore(deps.store);
  const applied = new AppliedRequests(deps.store);
  const activity = new ListingActivity(deps.store, listings, outbox, applied);
  // Content of a PMS listing goes to its PMS first (the one PMS relay client: the pms-adapter's RelayWrite).
  const pmsRelay = deps.contentRelay ? null : connectPmsRelay(deps.addresses.pmsAdapter);
  // Imports and PMS-side changes of listings (pms.sync.v1).
  const pmsSync = new PmsSyncConsumer({ consumers, sync: new ApplyPmsListing({ store: deps.store, listings, outbox }) });
  await pmsSync.start();
  const reservationUpstream = deps.bookings
    ? null
    : createUpstream(reservation.ReservationServiceClient, { name: 'reservation', address: deps.addresses.reservation });
  const handlerDeps = {
    store: deps.store,
    listings,
    outbox,
    activity,
    applied,
    contentRelay: deps.contentRelay ?? pmsContentRelay(pmsRelay!),
    bookings: deps.bookings ?? grpcBookedNights(reservationUpstream!),
  };
  return serve({
    services: [listingService(handlerDeps)],
    onStop: async () => {
      await pmsSync.stop();
      await outbox.stop();
      pmsRelay?.close();
      reservationUpstream?.close();
    },
  });
}
