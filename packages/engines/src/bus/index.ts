// The event-bus engines: the embedded one (memory, persisted under DATA_DIR when set) and Kafka
// through kafkajs, and the choice between them from configuration.
import type { BusConfig } from '@vrp/platform/config';
import type { EventBus } from '@vrp/platform/bus';
import { createKafkaBus } from './kafka';
import { createMemoryBus, type MemoryEventBus } from './memory';
import { openBusPersistence } from './persistence';
import { openJournal } from '../persistence/lmdb';

export { createMemoryBus, setMemoryBusDefaults, type MemoryBusOptions, type MemoryEventBus, type RedeliveryOptions } from './memory';
export { openBusPersistence, type BusPersistence, type BusPersistenceOptions } from './persistence';
export { createKafkaBus, BusHandlerError, KAFKA_TOPIC_DEFAULTS, kafkaLogCreator, topicConfig, type KafkaBusOptions } from './kafka';
export { murmur2, partitionForKey } from './partitioner';

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

/** The embedded bus: persisted as `bus` in the data directory's journal when a data directory is set. */
export function createEmbeddedBus(dataDir?: string, retentionHours = DEFAULT_BUS_RETENTION_HOURS): MemoryEventBus {
  if (!dataDir) return createMemoryBus();
  const persistence = openBusPersistence({
    journal: openJournal(dataDir),
    retentionMs: retentionHours * 3_600_000,
    onOffsetError: (error) => console.error(`memory bus: a committed offset was not written (it is redelivered after a restart): ${String(error)}`),
  });
  return createMemoryBus({ persistence });
}
