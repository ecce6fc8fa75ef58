// vrp_bus_consumer_lag{group, topic}: how far each consumer group of this process is behind,
// in messages (end offsets minus committed offsets, summed over the topic's partitions). Every
// bus registers itself on creation and leaves on close(); the gauge asks them on each scrape
// of /metrics (memory: from its logs; kafka: admin.fetchOffsets / fetchTopicOffsets, bounded by
// a timeout). A group appears once it has subscribed in this process.
import client from 'prom-client';
import type { ConsumerLag } from './port';

export interface LagSource {
  consumerLag(): Promise<ConsumerLag[]>;
}

const sources = new Set<LagSource>();

/** Adds a bus to what the gauge reports; returns the function that removes it. */
export function registerLagSource(source: LagSource): () => void {
  sources.add(source);
  return () => {
    sources.delete(source);
  };
}

/** The lag of every registered bus, summed per (group, topic); a failing source is left out. */
export async function collectConsumerLag(): Promise<ConsumerLag[]> {
  const totals = new Map<string, ConsumerLag>();
  const results = await Promise.allSettled([...sources].map((s) => s.consumerLag()));
  for (const result of results) {
    if (result.status !== 'fulfilled') continue;
    for (const entry of result.value) {
      const key = `${entry.groupId}\u0000${entry.topic}`;
      const known = totals.get(key);
      if (known) known.lag += entry.lag;
      else totals.set(key, { ...entry });
    }
  }
  return [...totals.values()];
}

export const consumerLagGauge = new client.Gauge({
  name: 'vrp_bus_consumer_lag',
  help: 'Messages a consumer group has not committed yet, per topic (end offset minus committed offset)',
  labelNames: ['group', 'topic'] as const,
  async collect() {
    this.reset();
    for (const { groupId, topic, lag } of await collectConsumerLag()) this.set({ group: groupId, topic }, lag);
  },
});
