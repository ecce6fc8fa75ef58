import { createKafkaBus } from './kafka';
import { createMemoryBus } from './memory';
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
export { createKafkaBus, BusHandlerError, type KafkaBusOptions } from './kafka';
export { murmur2, partitionForKey } from './partitioner';

export interface BusConfig {
  BUS: 'memory' | 'kafka';
  /** Comma-separated host:port list; required when BUS is 'kafka'. */
  KAFKA_BROKERS?: string;
  clientId: string;
}

export function createBus(config: BusConfig): EventBus {
  if (config.BUS === 'memory') return createMemoryBus();
  if (config.BUS !== 'kafka') throw new Error(`unknown BUS engine: ${String(config.BUS)}`);
  const brokers = (config.KAFKA_BROKERS ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter((b) => b.length > 0);
  if (brokers.length === 0) throw new Error('BUS=kafka needs KAFKA_BROKERS (comma-separated host:port list)');
  return createKafkaBus({ brokers, clientId: config.clientId });
}
