// The gateway's gRPC clients, one per upstream service, each with its deadline and breaker.
import { guest, listing, ops, pms, reservation, syncHealth, webhook } from '@vrp/contracts';
import { createUpstream, type Upstream } from '@vrp/platform/grpc';
import type { DeadLetterServiceName } from '@vrp/platform/consumer';

export interface GatewayUpstreams {
  listing: Upstream<listing.ListingServiceClient>;
  reservation: Upstream<reservation.ReservationServiceClient>;
  guest: Upstream<guest.GuestServiceClient>;
  pmsAdapter: Upstream<pms.PmsAdapterServiceClient>;
  /** The pms-adapter's SyncHealthService (same address). */
  syncHealth: Upstream<syncHealth.SyncHealthServiceClient>;
  webhook: Upstream<webhook.WebhookServiceClient>;
  /** DeadLetterService of each service that consumes topics (same addresses). */
  deadLetters: Record<DeadLetterServiceName, Upstream<ops.DeadLetterServiceClient>>;
}

export interface UpstreamAddresses {
  LISTING_ADDR: string;
  RESERVATION_ADDR: string;
  GUEST_ADDR: string;
  PMS_ADAPTER_ADDR: string;
  WEBHOOK_ADDR: string;
}

export function createUpstreams(addresses: UpstreamAddresses, deadlineMs: number): GatewayUpstreams {
  return {
    listing: createUpstream(listing.ListingServiceClient, { name: 'listing', address: addresses.LISTING_ADDR, deadlineMs }),
    reservation: createUpstream(reservation.ReservationServiceClient, { name: 'reservation', address: addresses.RESERVATION_ADDR, deadlineMs }),
    guest: createUpstream(guest.GuestServiceClient, { name: 'guest', address: addresses.GUEST_ADDR, deadlineMs }),
    pmsAdapter: createUpstream(pms.PmsAdapterServiceClient, { name: 'pms-adapter', address: addresses.PMS_ADAPTER_ADDR, deadlineMs }),
    syncHealth: createUpstream(syncHealth.SyncHealthServiceClient, { name: 'pms-adapter-sync-health', address: addresses.PMS_ADAPTER_ADDR, deadlineMs }),
    webhook: createUpstream(webhook.WebhookServiceClient, { name: 'webhook', address: addresses.WEBHOOK_ADDR, deadlineMs }),
    deadLetters: {
      listing: createUpstream(ops.DeadLetterServiceClient, { name: 'listing-dead-letters', address: addresses.LISTING_ADDR, deadlineMs }),
      reservation: createUpstream(ops.DeadLetterServiceClient, { name: 'reservation-dead-letters', address: addresses.RESERVATION_ADDR, deadlineMs }),
      guest: createUpstream(ops.DeadLetterServiceClient, { name: 'guest-dead-letters', address: addresses.GUEST_ADDR, deadlineMs }),
      webhook: createUpstream(ops.DeadLetterServiceClient, { name: 'webhook-dead-letters', address: addresses.WEBHOOK_ADDR, deadlineMs }),
      'pms-adapter': createUpstream(ops.DeadLetterServiceClient, { name: 'pms-adapter-dead-letters', address: addresses.PMS_ADAPTER_ADDR, deadlineMs }),
    },
  };
}

export function closeUpstreams(upstreams: GatewayUpstreams): void {
  const { deadLetters, ...services } = upstreams;
  for (const upstream of [...Object.values(services), ...Object.values(deadLetters)]) upstream.close();
}
