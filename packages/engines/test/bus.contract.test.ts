// Runs the EventBus contract on every engine available here:
// - memory: always;
// - kafka: against KAFKA_BROKERS when set, else in a throwaway Kafka (testcontainers, KRaft)
//   when a Docker engine is reachable; otherwise the Kafka suite is not registered (one warning).
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { logLevel } from 'kafkajs';
import { describeBusContract } from '../src/bus/contract';
import { createKafkaBus } from '../src/bus/kafka';
import { createMemoryBus } from '../src/bus/memory';
import { openBusPersistence } from '../src/bus/persistence';
import type { EventBus } from '@vrp/platform/bus';
import { tempDirs } from './temp-dirs';

const KAFKA_IMAGE = 'confluentinc/cp-kafka:7.6.1';
const KAFKA_WAIT_MS = 60_000;

const quietFastRetries = { retryInitialMs: 5, retryMaxMs: 40, onHandlerError: () => undefined };
const contractDir = tempDirs('vrp-bus-contract-');
// Commits after each message, like the Kafka engine.
describeBusContract('memory', async () => createMemoryBus({ ...quietFastRetries, redelivery: false }));
// Lazy commits and duplicates (what the rest of the test suite runs with).
describeBusContract('memory with redelivery', async () => createMemoryBus({ ...quietFastRetries, redelivery: { duplicates: 0.2, maxCommitLag: 4, seed: 7 } }), {
  redelivery: true,
});
// As `pnpm start` runs it: every publish on disk (LMDB) before it resolves and before consumers see it.
describeBusContract('memory persisted to LMDB', async () =>
  createMemoryBus({
    ...quietFastRetries,
    redelivery: false,
    persistence: openBusPersistence({ path: contractDir(), retentionMs: 3_600_000 }),
  }),
);
// Persisted, with lazy commits and duplicates: the offsets on disk are the committed ones.
describeBusContract(
  'memory persisted to LMDB with redelivery',
  async () =>
    createMemoryBus({
      ...quietFastRetries,
      redelivery: { duplicates: 0.2, maxCommitLag: 4, seed: 7 },
      persistence: openBusPersistence({ path: contractDir(), retentionMs: 3_600_000 }),
    }),
  { redelivery: true },
);

type KafkaModule = typeof import('@testcontainers/kafka');
type KafkaTarget = { kind: 'brokers'; brokers: string[] } | { kind: 'container'; module: KafkaModule } | { kind: 'skip'; reason: string };

function kafkaTarget(): KafkaTarget {
  const configured = (process.env.KAFKA_BROKERS ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter((b) => b.length > 0);
  if (configured.length > 0) return { kind: 'brokers', brokers: configured };

  const sockets = ['/var/run/docker.sock', join(homedir(), '.docker', 'run', 'docker.sock')];
  const docker = process.env.DOCKER_HOST ? `DOCKER_HOST=${process.env.DOCKER_HOST}` : sockets.find((s) => existsSync(s));
  if (!docker) {
    return { kind: 'skip', reason: `KAFKA_BROKERS is not set and no Docker engine found (DOCKER_HOST unset, no ${sockets.join(' or ')})` };
  }
  try {
    // Loaded only when Docker is there; testcontainers 12 needs Node >= 22.22 and throws on load otherwise.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const module = require('@testcontainers/kafka') as KafkaModule;
    return { kind: 'container', module };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { kind: 'skip', reason: `Docker found (${docker}) but @testcontainers/kafka failed to load on Node ${process.version}: ${reason}` };
  }
}

const target = kafkaTarget();
if (target.kind === 'skip') {
  console.warn(`bus contract suite: Kafka engine skipped: ${target.reason}`);
} else {
  describe('kafka engine', () => {
    let stopContainer: (() => Promise<unknown>) | undefined;
    afterAll(async () => {
      await stopContainer?.();
    }, KAFKA_WAIT_MS);

    const makeBus = async (): Promise<EventBus> => {
      let brokers: string[];
      if (target.kind === 'brokers') {
        brokers = target.brokers;
      } else {
        const container = await new target.module.KafkaContainer(KAFKA_IMAGE).withKraft().start();
        stopContainer = () => container.stop();
        brokers = [`${container.getHost()}:${container.getMappedPort(9093)}`];
      }
      // One broker (a container, or a development cluster): replication factor 1 unless set.
      const replicationFactor = Number(process.env.KAFKA_REPLICATION_FACTOR ?? 1);
      const minInsyncReplicas = Number(process.env.KAFKA_MIN_INSYNC_REPLICAS ?? 1);
      return createKafkaBus({ brokers, clientId: 'bus-contract-test', logLevel: logLevel.ERROR, replicationFactor, minInsyncReplicas });
    };

    // The container start (image pull included) happens in the suite's beforeAll.
    describeBusContract('kafka', makeBus, { waitTimeoutMs: KAFKA_WAIT_MS, testTimeoutMs: 4 * KAFKA_WAIT_MS });
  });
}
