// The event-bus port every engine implements (@vrp/engines), the readiness of a service's
// consumers, and the consumer-lag metric the engines feed.
export type { BusMessage, ConsumerLag, DeliveredMessage, EventBus, SubscribeOptions, Subscription, SubscriptionHealth, TopicSpec } from './port';
export { collectConsumerLag, consumerLagGauge, registerLagSource, type LagSource } from './lag-metric';
export { watchConsumers, type WatchedConsumers } from './health';
