// Readiness of a process's consumers: a service whose consumer has stopped (a kafkajs consumer
// that crashed for good, a memory subscription that died) still answers gRPC but no longer
// applies events, so it must leave the load balancer and be restarted, not look healthy.
import type { EventBus, Subscription } from './port';

export interface WatchedConsumers {
  /** The same bus; every subscription made through it is watched. */
  bus: EventBus;
  /** Readiness check: true while every subscription made through `bus` runs. */
  ready: () => Promise<boolean>;
  /** The subscriptions that do not run, with the reason (for logs and tests). */
  stopped(): Array<{ groupId: string; reason: string }>;
}

/**
 * Wraps a service's bus so that its readiness covers every consumer the service starts (its
 * own consumers and its activity cache's) without each of them reporting separately.
 */
export function watchConsumers(bus: EventBus): WatchedConsumers {
  const watched: Array<{ groupId: string; subscription: Subscription }> = [];
  const stopped = () =>
    watched.flatMap(({ groupId, subscription }) => {
      const health = subscription.health();
      return health.running ? [] : [{ groupId, reason: health.reason ?? 'stopped' }];
    });
  return {
    bus: {
      engine: bus.engine,
      ensureTopics: (topics) => bus.ensureTopics(topics),
      publish: (topic, messages) => bus.publish(topic, messages),
      async subscribe(options) {
        const subscription = await bus.subscribe(options);
        watched.push({ groupId: options.groupId, subscription });
        return subscription;
      },
      ready: () => bus.ready(),
      consumerLag: () => bus.consumerLag(),
      close: () => bus.close(),
    },
    ready: async () => stopped().length === 0,
    stopped,
  };
}
