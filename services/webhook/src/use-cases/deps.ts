// What the request use cases of the webhook service work with (subscriptions.ts, deliveries.ts).
// app.ts builds it once; each use case names the part it needs (a Pick of WebhookDeps). The
// intake and the delivery scheduler are runners with their own state (batches, timers, leases).
import type { ListingActivityCache } from '@vrp/activity-cache';
import type { AppliedRequests } from '@vrp/platform/applied-requests';
import type { DocumentStore } from '@vrp/platform/store';
import type { KeyMode, TargetPolicy } from '../domain/target';
import type { Resolver } from '../ports/address-guard';
import type { WebhookClock } from '../ports/clock';
import type { DeliveryStore } from '../store/delivery-store';
import type { SubscriptionStore } from '../store/subscription-store';

export interface WebhookDeps {
  store: DocumentStore;
  subscriptions: SubscriptionStore;
  deliveries: DeliveryStore;
  /** Listing activity (the replay 403). */
  cache: ListingActivityCache;
  clock: WebhookClock;
  /** DNS resolution of endpoint hosts (no SSRF through a subscription's URL). */
  resolve: Resolver;
  policyOf: (mode: KeyMode) => TargetPolicy;
  /** Idempotency-Keys stored with the writes (service-side idempotency). */
  applied: AppliedRequests;
  /** A delivery was queued (a replay): send it now. */
  onQueued: () => void;
}
