// Wiring of the listing service: store and bus engines in, gRPC + ops servers out.
import { reservation, TOPICS } from '@vrp/contracts';
import {
  AppliedRequests,
  ConsumerRunner,
  createUpstream,
  deadLetterService,
  Outbox,
  startService,
  watchConsumers,
  type RunningService,
  type ServiceDeps,
} from '@vrp/platform';
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
  // /readyz covers every consumer this service starts (its own and its activity cache's).
  const watched = watchConsumers(given.bus);
  const deps = { ...given, bus: watched.bus };
  const listings = new ListingStore(deps.store);
  await deps.bus.ensureTopics([TOPICS.listingActivity]);
  const outbox = new Outbox(deps.store, deps.bus, deps.logger, deps.outbox);
  outbox.start();
  const applied = new AppliedRequests(deps.store);
  const activity = new ListingActivity(deps.store, listings, outbox, applied);
  // Content of a PMS listing goes to its PMS first (the one PMS relay client: the pms-adapter's RelayWrite).
  const pmsRelay = deps.contentRelay ? null : connectPmsRelay(deps.addresses.pmsAdapter);
  // Imports and PMS-side changes of listings (pms.sync.v1).
  const consumers = new ConsumerRunner({ service: 'listing', store: deps.store, bus: deps.bus, outbox, logger: deps.logger, retry: deps.consumerRetry });
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
  return startService({
    store: deps.store,
    name: 'listing',
    grpcPort: deps.grpcPort,
    opsPort: deps.opsPort,
    host: deps.host,
    services: [listingService(handlerDeps), deadLetterService(consumers)],
    checks: { store: () => deps.store.ready(), bus: () => deps.bus.ready(), consumers: watched.ready },
    logger: deps.logger,
    onStop: async () => {
      await pmsSync.stop();
      await outbox.stop();
      pmsRelay?.close();
      reservationUpstream?.close();
    },
  });
}
