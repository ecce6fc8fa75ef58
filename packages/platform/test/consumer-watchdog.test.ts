// A deployed service whose consumer stops for any reason but a shutdown says why and exits
// non-zero (service/main.ts, exitWhenAConsumerStops), so the orchestrator restarts it. The
// consumer is a real memory-bus subscription that crashes for good, as a kafkajs consumer can.
import { watchConsumers } from '../src/bus/health';
import { createMemoryBus } from '../../engines/src/bus';
import type { Logger } from '../src/logging';
import { exitWhenAConsumerStops } from '../src/service';

describe('a service whose consumer stopped', () => {
  it('logs the group and the reason, stops, and exits 1', async () => {
    const bus = createMemoryBus({ onHandlerError: () => undefined, redelivery: false });
    const watched = watchConsumers(bus);
    await watched.bus.ensureTopics([{ name: 'watchdog.test', partitions: 1 }]);
    const subscription = await watched.bus.subscribe({
      groupId: 'watchdog-group',
      topics: ['watchdog.test'],
      fromBeginning: true,
      handler: async () => undefined,
    });
    await subscription.ready;

    const fatal: string[] = [];
    const logger = { fatal: (_fields: unknown, message: string) => fatal.push(message) } as unknown as Logger;
    const events: string[] = [];
    const exited = new Promise<number>((resolve) => {
      exitWhenAConsumerStops({
        name: 'svc',
        running: { stoppedConsumers: watched.stopped },
        logger,
        stop: async () => {
          events.push('stopped');
        },
        exit: (code) => {
          events.push(`exit ${code}`);
          resolve(code);
        },
        intervalMs: 10,
      });
    });
    // Running: nothing happens.
    expect(watched.stopped()).toEqual([]);
    bus.crashConsumers('watchdog-group', 'the coordinator fenced this member out');

    expect(await exited).toBe(1);
    expect(events.slice(0, 2)).toEqual(['stopped', 'exit 1']);
    expect(fatal).toHaveLength(1);
    expect(fatal[0]).toContain('watchdog-group');
    expect(fatal[0]).toContain('the coordinator fenced this member out');
    await bus.close();
  });
});
