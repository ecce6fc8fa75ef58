import { createKafkaBus } from './kafka';
import { join } from 'node:path';
import { createMemoryBus, type MemoryEventBus } from './memory';
import { openBusPersistence } from './persistence';
import type { EventBus } from './port';

export type {
  BusMessage,
  DeliveredMessage,
  EventBus,
  SubscribeOptions,
  Subscription,
  TopicSpec,
} from './port';
export { createMemoryBus, type MemoryBusOptions, type MemoryEventBus } from './memory';
export { openBusPersistence, type BusPersistence, type BusPersistenceOptions } from './persistence';
export { createKafkaBus, BusHandlerError, type KafkaBusOptions } from './kafka';
export { murmur2, partitionForKey } from './partitioner';

export interface BusConfig {
  BUS: 'memory' | 'kafka';
  /** Comma-separated host:port list; required when BUS is 'kafka'. */
  KAFKA_BROKERS?: string;
  clientId: string;
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
  return createKafkaBus({ brokers, clientId: config.clientId });
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
