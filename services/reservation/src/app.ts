// Wiring of the reservation service: store and bus engines in, gRPC + ops servers out.
import { ListingActivityCache } from '@vrp/activity-cache';
import { listing, TOPICS } from '@vrp/contracts';
import { connectPmsRelay, type PmsRelay } from '@vrp/pms-relay';
import { AppliedRequests } from '@vrp/platform/applied-requests';
import { createUpstream } from '@vrp/platform/grpc';
import { perInstanceGroup, startServiceBase, type RunningService, type ServiceDeps } from '@vrp/platform/service';
import { consumePmsSync } from './consumers/pms-sync-consumer';
import { reservationHandlers } from './grpc/handlers';
import { grpcListingDirectory, type ListingDirectory } from './ports/listings';
import { MigrationStore } from './store/migration-store';
import { NightStore } from './store/night-store';
import { ReservationStore } from './store/reservation-store';
import { SettingsStore } from './store/settings-store';
import { NightBackfill } from './use-cases/backfill-nights';
import type { ReservationDeps } from './use-cases/deps';

export interface ReservationServiceDeps extends ServiceDeps {
  /** Replace the listing service or the pms-adapter (component tests); default: gRPC to `addresses`. */
  listings?: ListingDirectory;
  relay?: PmsRelay;
  clock?: () => Date;
  /** How long the start waits for the night backfill before it goes on in the background (default 20 s). */
  backfillBudgetMs?: number;
}

/** How long a start waits for the night backfill (the rest goes on in the background). */
const DEFAULT_BACKFILL_BUDGET_MS = 20_000;

/** The consumer group of this service's listing-activity cache. */
export const ACTIVITY_GROUP = 'reservation-listing-activity';

export async function startReservationService(given: ReservationServiceDeps): Promise<RunningService> {
  const { deps, outbox, consumers, serve } = await startServiceBase('reservation', given, { topics: [TOPICS.reservationEvents] });
  const reservations = new ReservationStore(deps.store);
  const activity = new ListingActivityCache({ store: deps.store, consumers, groupId: perInstanceGroup(ACTIVITY_GROUP, deps), logger: deps.logger });
  await activity.start();

  const listingUpstream = deps.listings ? null : createUpstream(listing.ListingServiceClient, { name: 'listing', address: deps.addresses.listing });
  // Writes on PMS listings go to the PMS first, through the one PMS relay client.
  const pmsRelay = deps.relay ? null : connectPmsRelay(deps.addresses.pmsAdapter);
  const nights = new NightStore(deps.store);
  const settings = new SettingsStore(deps.store);
  const clock = deps.clock ?? (() => new Date());
  // Reservations stored before booked_nights existed get their nights before requests are served.
  const backfill = new NightBackfill({
    store: deps.store,
    reservations,
    nights,
    settings,
    migrations: new MigrationStore(deps.store),
    outbox,
    logger: deps.logger,
    now: clock,
  });
  try {
    await deps.store.init();
    await backfill.start(deps.backfillBudgetMs ?? DEFAULT_BACKFILL_BUDGET_MS);
  } catch (err) {
    // A start that fails leaves nothing running; the backfill resumes at the next start.
    await backfill.stop();
    await activity.stop();
    await outbox.stop();
    listingUpstream?.close();
    pmsRelay?.close();
    throw err;
  }
  const useCases: ReservationDeps = {
    store: deps.store,
    reservations,
    nights,
    settings,
    outbox,
    listings: deps.listings ?? grpcListingDirectory(listingUpstream!),
    relay: deps.relay ?? pmsRelay!,
    activity,
    logger: deps.logger,
    applied: new AppliedRequests(deps.store, deps.clock),
    clock,
  };
  const sync = await consumePmsSync(consumers, useCases);

  return serve({
    services: [reservationHandlers(useCases)],
    onStop: async () => {
      await backfill.stop();
      await sync.stop();
      await activity.stop();
      await outbox.stop();
      listingUpstream?.close();
      pmsRelay?.close();
    },
  });
}
