// Wiring of the guest service: store and bus engines in, gRPC + ops servers out. It follows
// listing activity through its own ListingActivityCache, consumes reservation events and
// pms.sync.v1, publishes guest / message / review events through its outbox, and reaches the
// listing service (a listing's PMS) and the pms-adapter (RelayWrite) for PMS writes.
import { ListingActivityCache } from '@vrp/activity-cache';
import { TOPICS } from '@vrp/contracts';
import { AppliedRequests } from '@vrp/platform/applied-requests';
import { perInstanceGroup, startServiceBase, type RunningService, type ServiceDeps } from '@vrp/platform/service';
import { ListingAccess } from './ports/access';
import { startConsumers } from './consumers/subscriptions';
import { guestHandlers } from './grpc/handlers';
import type { GuestDeps } from './use-cases/deps';
import { KeyedOrder } from '@vrp/platform/keyed-order';
import { grpcPmsPort, type PmsPort } from './ports/pms';
import { GuestStore } from './store/guest-store';
import { MessagingStore } from './store/messaging-store';

export const LISTING_ACTIVITY_GROUP = 'guest-listing-activity';

export interface GuestServiceDeps extends ServiceDeps {
  /** Replaces the gRPC listing + pms-adapter clients (component tests count relayed writes). */
  pms?: PmsPort;
}

export async function startGuestService(given: GuestServiceDeps): Promise<RunningService> {
  const { deps, outbox, consumers, serve } = await startServiceBase('guest', given, {
    topics: [TOPICS.guestEvents, TOPICS.messageEvents, TOPICS.reviewEvents, TOPICS.requestEvents],
  });
  const guests = new GuestStore(deps.store);
  // Profiles written before guest_reservation_links embedded their links: moved before any event is consumed.
  const migrated = await guests.migrateEmbeddedLinks();
  if (migrated > 0) deps.logger.info({ profiles: migrated }, 'guest reservation links moved to their own collection');
  const messagingStore = new MessagingStore(deps.store);
  const cache = new ListingActivityCache({ store: deps.store, consumers, groupId: perInstanceGroup(LISTING_ACTIVITY_GROUP, deps), logger: deps.logger });
  await cache.start();
  const pms = deps.pms ?? grpcPmsPort(deps.addresses);
  const access = new ListingAccess(cache, (workspaceId, id) => pms.resolveListingId(workspaceId, id));
  const applied = new AppliedRequests(deps.store);
  const useCases: GuestDeps = {
    store: deps.store,
    guests,
    messaging: messagingStore,
    outbox,
    access,
    pms,
    logger: deps.logger,
    applied,
    guestOrder: new KeyedOrder(),
  };
  const subscriptions = await startConsumers(consumers, useCases);
  return serve({
    services: [guestHandlers(useCases)],
    async onStop() {
      for (const s of subscriptions) await s.stop();
      await cache.stop();
      await outbox.stop();
      if (!deps.pms) pms.close();
    },
  });
}
