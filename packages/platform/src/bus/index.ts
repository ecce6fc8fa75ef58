import { createKafkaBus } from './kafka';
import { createMemoryBus } from './memory';
import type { Logger } from '../logging';
import type { EventBus } from './port';

export type {
  BusMessage,
  ConsumerLag,
  DeliveredMessage,
  EventBus,
  SubscribeOptions,
  Subscription,
  SubscriptionHealth,
  TopicSpec,
} from './port';
export { createMemoryBus, setMemoryBusDefaults, type MemoryBusOptions, type MemoryEventBus, type RedeliveryOptions } from './memory';
export { createKafkaBus, BusHandlerError, KAFKA_TOPIC_DEFAULTS, kafkaLogCreator, topicConfig, type KafkaBusOptions } from './kafka';
export { collectConsumerLag, consumerLagGauge } from './lag-metric';
export { watchConsumers, type WatchedConsumers } from './health';
export { murmur2, partitionForKey } from './partitioner';

export interface BusConfig {
  BUS: 'memory' | 'kafka';
  /** Comma-separated host:port list; required when BUS is 'kafka'. */
  KAFKA_BROKERS?: string;
  /** Replication factor and min.insync.replicas of created topics; default 3 and 2. */
  KAFKA_REPLICATION_FACTOR?: number;
  KAFKA_MIN_INSYNC_REPLICAS?: number;
  clientId: string;
  /** Logger of kafkajs's own lines (the service's logger). */
  logger?: Logger;
}

export function createBus(config: BusConfig): EventBus {
  if (config.BUS === 'memory') return createMemoryBus();
  if (config.BUS !== 'kafka') throw new Error(`unknown BUS engine: ${String(config.BUS)}`);
  const brokers = (config.KAFKA_BROKERS ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter((b) => b.length > 0);
  if (brokers.length === 0) throw new Error('BUS=kafka needs KAFKA_BROKERS (comma-separated host:port list)');
  return createKafkaBus({
    brokers,
    clientId: config.clientId,
    replicationFactor: config.KAFKA_REPLICATION_FACTOR,
    minInsyncReplicas: config.KAFKA_MIN_INSYNC_REPLICAS,
    ...(config.logger ? { logger: config.logger } : {}),
  });
}
