// Readiness of a process's consumers: a service whose consumer has stopped (a kafkajs consumer
// that crashed for good, a memory subscription that died) still answers gRPC but no longer
// applies events, so it must leave the load balancer and be restarted, not look healthy.
import type { Subscription } from './port';

/**
 * A readiness check over the subscriptions `current()` returns at each probe: ready while every
 * one of them runs. A subscription not made yet (null) counts as not ready.
 */
export function consumersReady(current: () => ReadonlyArray<Pick<Subscription, 'health'> | null | undefined>): () => Promise<boolean> {
  return async () => current().every((s) => s?.health().running === true);
}
