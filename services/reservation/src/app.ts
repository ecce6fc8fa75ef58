// Wiring of the reservation service: store and bus engines in, gRPC + ops servers out.
import { ListingActivityCache } from '@vrp/activity-cache';
import { listing, pms, TOPICS } from '@vrp/contracts';
import { createUpstream, Outbox, startService, type RunningService, type ServiceDeps } from '@vrp/platform';
import { consumePmsSync } from './events/pms-sync-consumer';
import { reservationHandlers } from './grpc/handlers';
import { grpcListingDirectory, type ListingDirectory } from './ports/listings';
import { grpcPmsRelay, type PmsRelay } from './ports/pms-relay';
import { Reservations } from './reservations';
import { NightStore } from './store/night-store';
import { ReservationStore } from './store/reservation-store';

export interface ReservationServiceDeps extends ServiceDeps {
  /** Replace the listing service or the pms-adapter (component tests); default: gRPC to `addresses`. */
  listings?: ListingDirectory;
  relay?: PmsRelay;
  clock?: () => Date;
}

/** The consumer group of this service's listing-activity cache. */
export const ACTIVITY_GROUP = 'reservation-listing-activity';

export async function startReservationService(deps: ReservationServiceDeps): Promise<RunningService> {
  const reservations = new ReservationStore(deps.store);
  // The topic this service publishes on, created before the first write can need it.
  await deps.bus.ensureTopics([TOPICS.reservationEvents]);
  const outbox = new Outbox(deps.store, deps.bus, deps.logger);
  outbox.start();
  const activity = new ListingActivityCache({ store: deps.store, bus: deps.bus, groupId: ACTIVITY_GROUP, logger: deps.logger });
  await activity.start();

  const listingUpstream = deps.listings ? null : createUpstream(listing.ListingServiceClient, { name: 'listing', address: deps.addresses.listing });
  const pmsUpstream = deps.relay ? null : createUpstream(pms.PmsAdapterServiceClient, { name: 'pms-adapter', address: deps.addresses.pmsAdapter });
  const useCases = new Reservations({
    store: deps.store,
    reservations,
    nights: new NightStore(deps.store),
    outbox,
    listings: deps.listings ?? grpcListingDirectory(listingUpstream!),
    relay: deps.relay ?? grpcPmsRelay(pmsUpstream!),
    activity,
    logger: deps.logger,
    ...(deps.clock ? { clock: deps.clock } : {}),
  });
  const sync = await consumePmsSync(deps.bus, useCases);

  return startService({
    name: 'reservation',
    grpcPort: deps.grpcPort,
    opsPort: deps.opsPort,
    host: deps.host,
    services: [reservationHandlers({ reservations: useCases })],
    checks: { store: () => deps.store.ready(), bus: () => deps.bus.ready() },
    logger: deps.logger,
    onStop: async () => {
      await sync.stop();
      await activity.stop();
      await outbox.stop();
      listingUpstream?.close();
      pmsUpstream?.close();
    },
  });
}
