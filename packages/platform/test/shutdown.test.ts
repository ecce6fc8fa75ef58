// The in-process half of graceful shutdown (the process half, with SIGTERM, is e2e/sigterm.test.ts):
// a service stopped while its consumer is handling a message stops taking work at once
// (/readyz answers 503), lets the message finish and commits it, and a
// restarted member of the same group neither sees that message again nor misses any after it.
// (The gRPC port stops listening at once; e2e/sigterm.test.ts shows the call in flight completes.)
import http from 'node:http';
import * as grpc from '@grpc/grpc-js';
import { health } from '@vrp/contracts';
import { createMemoryBus } from '../../engines/src/bus';
import type { DeliveredMessage } from '../src/bus/port';
import { createLogger } from '../src/logging';
import { freePort } from '../src/net';
import { startService } from '../src/service';
// By path: @vrp/testkit depends on this package; this module of it depends on nothing.
import { eventually } from '../../testkit/src/wait';

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

function readyz(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/readyz', agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', reject);
  });
}

function grpcHealth(port: number): Promise<number> {
  const client = new health.HealthClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  return new Promise((resolve, reject) => {
    client.check({ service: '' }, (err, res) => {
      client.close();
      if (err) reject(err);
      else resolve(res.status);
    });
  });
}

describe('graceful shutdown of a service with a consumer', () => {
  it('finishes and commits the message in flight, takes no new work, and a restarted member resumes after it', async () => {
    // Commits after each message (as the Kafka engine does): the claim below is about a graceful
    // stop committing its last message. With redelivery on, a stop loses the lagging commit and
    // the message comes again (the bus contract suite states that case).
    const bus = createMemoryBus({ onHandlerError: () => undefined, redelivery: false });
    const topic = 'shutdown.test.v1';
    await bus.ensureTopics([{ name: topic, partitions: 1 }]);
    const logger = createLogger('shutdown-test', 'silent');
    const events: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));

    const subscription = await bus.subscribe({
      groupId: 'shutdown-test',
      topics: [topic],
      fromBeginning: true,
      handler: async (m: DeliveredMessage) => {
        const id = dec(m.value);
        events.push(`start ${id}`);
        if (id === 'm0') await gate;
        events.push(`done ${id}`);
      },
    });
    const running = await startService({
      name: 'shutdown-test',
      grpcPort: 0,
      opsPort: 0,
      host: '127.0.0.1',
      services: [],
      checks: { bus: () => bus.ready() },
      logger,
      // What a consuming service's onStop does: stop its subscriptions (in-flight included).
      onStop: () => subscription.stop(),
    });
    expect(await readyz(running.opsPort)).toBe(200);
    expect(await grpcHealth(running.grpcPort)).toBe(health.HealthCheckResponse_ServingStatus.SERVING);

    await bus.publish(topic, [{ key: 'k', value: enc('m0') }]);
    await eventually(() => events.includes('start m0'), { what: 'm0 to be in flight', intervalMs: 0 });

    let stopped = false;
    const stopping = running.stop().then(() => {
      stopped = true;
    });
    // No new work from here on, while m0 is still being handled.
    await eventually(async () => (await readyz(running.opsPort).catch(() => 0)) === 503, { what: '/readyz 503', intervalMs: 0 });
    await bus.publish(topic, [{ key: 'k', value: enc('m1') }]);
    await new Promise((r) => setImmediate(r));
    expect(stopped).toBe(false);
    expect(events).toEqual(['start m0']);

    release();
    await stopping;
    expect(events).toEqual(['start m0', 'done m0']); // m0 finished; m1 not taken by the stopping member

    // A restarted member of the group: m0 was committed, m1 was not lost.
    const seen: string[] = [];
    const restarted = await bus.subscribe({
      groupId: 'shutdown-test',
      topics: [topic],
      fromBeginning: true,
      handler: async (m) => {
        seen.push(dec(m.value));
      },
    });
    await bus.whenIdle(5000);
    expect(seen).toEqual(['m1']);
    await restarted.stop();
    await bus.close();
  });
});

describe('a service that cannot start', () => {
  it('stops what it started (onStop) and frees its gRPC port when its ops port is taken', async () => {
    const blocker = http.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const takenPort = (blocker.address() as import('node:net').AddressInfo).port;
    const grpcPort = await freePort('127.0.0.1');
    let stopped = 0;
    try {
      const starting = startService({
        name: 'broken',
        grpcPort,
        opsPort: takenPort,
        host: '127.0.0.1',
        services: [],
        checks: {},
        logger: createLogger('broken', 'silent'),
        onStop: async () => {
          stopped++;
        },
      });
      await expect(starting).rejects.toThrow(/EADDRINUSE/);
      expect(stopped).toBe(1);
      // The gRPC port was released: another server binds it.
      const again = await startService({
        name: 'again',
        grpcPort,
        opsPort: 0,
        host: '127.0.0.1',
        services: [],
        checks: {},
        logger: createLogger('again', 'silent'),
      });
      expect(again.grpcPort).toBe(grpcPort);
      await again.stop();
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });
});
