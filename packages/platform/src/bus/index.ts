import { createKafkaBus } from './kafka';
import { join } from 'node:path';
import { createMemoryBus, type MemoryEventBus } from './memory';
import { openBusPersistence } from './persistence';
import type { Logger } from '../logging';
import type { EventBus } from './port';

export type { BusMessage, ConsumerLag, DeliveredMessage, EventBus, SubscribeOptions, Subscription, SubscriptionHealth, TopicSpec } from './port';
export { createMemoryBus, setMemoryBusDefaults, type MemoryBusOptions, type MemoryEventBus, type RedeliveryOptions } from './memory';
export { openBusPersistence, type BusPersistence, type BusPersistenceOptions } from './persistence';
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
  /** BUS=memory: keep topics and offsets in `<DATA_DIR>/bus`; empty or absent: in memory only. */
  DATA_DIR?: string;
  /** Retention of the persisted embedded bus (see bus/persistence.ts). Default 168 h. */
  BUS_RETENTION_HOURS?: number;
}

export function createBus(config: BusConfig): EventBus {
  if (config.BUS === 'memory') return createEmbeddedBus(config.DATA_DIR, config.BUS_RETENTION_HOURS);
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

/** Default retention of the persisted embedded bus: 7 days, Kafka's default log.retention.hours. */
export const DEFAULT_BUS_RETENTION_HOURS = 168;

/** The embedded bus: persisted under `<dataDir>/bus` when a data directory is set. */
export function createEmbeddedBus(dataDir?: string, retentionHours = DEFAULT_BUS_RETENTION_HOURS): MemoryEventBus {
  if (!dataDir) return createMemoryBus();
  const persistence = openBusPersistence({
    path: join(dataDir, 'bus'),
    retentionMs: retentionHours * 3_600_000,
    onOffsetError: (error) => console.error(`memory bus: a committed offset was not written (it is redelivered after a restart): ${String(error)}`),
  });
  return createMemoryBus({ persistence });
}
