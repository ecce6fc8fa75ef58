// End-to-end smoke on the production engines: every service with STORE=mongo (its own database)
// and BUS=kafka, the gateway in front, a few API calls over HTTP. Runs against MONGO_URL and
// KAFKA_BROKERS when both are set (e.g. `docker compose up -d mongo kafka kafka-init`, see
// docs/operations.md), else through testcontainers (mongo:8 replica set, KRaft Kafka) when a
// Docker engine is reachable; otherwise it prints why it skipped and registers no test.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import mongoose from 'mongoose';
import { listingEvents, TOPICS } from '@vrp/contracts';
import { createBus } from '@vrp/engines/bus';
import { createStore } from '@vrp/engines/store';
import { newId } from '@vrp/platform/ids';
import type { DocumentStore } from '@vrp/platform/store';
import type { EventBus } from '@vrp/platform/bus';
import { eventually, type ErrorBody } from '../../../e2e/support/stack';
import { startStack, type Stack } from '../src';

const MONGO_IMAGE = 'mongo:8';
const KAFKA_IMAGE = 'confluentinc/cp-kafka:7.6.1';
const CONTAINER_WAIT_MS = 300_000; // image pulls included

type MongoModule = typeof import('@testcontainers/mongodb');
type KafkaModule = typeof import('@testcontainers/kafka');
type Target =
  | { kind: 'configured'; mongoUrl: string; kafkaBrokers: string }
  | { kind: 'containers'; mongo: MongoModule; kafka: KafkaModule }
  | { kind: 'skip'; reason: string };

const DOCKER_SOCKETS = ['/var/run/docker.sock', join(homedir(), '.docker', 'run', 'docker.sock')];

// Decided synchronously: jest registers tests synchronously.
function target(env: Record<string, string | undefined> = process.env, sockets: string[] = DOCKER_SOCKETS): Target {
  const mongoUrl = env.MONGO_URL?.trim();
  const kafkaBrokers = env.KAFKA_BROKERS?.trim();
  if (mongoUrl && kafkaBrokers) return { kind: 'configured', mongoUrl, kafkaBrokers };
  const docker = env.DOCKER_HOST ? `DOCKER_HOST=${env.DOCKER_HOST}` : sockets.find((s) => existsSync(s));
  const unset = [mongoUrl ? null : 'MONGO_URL', kafkaBrokers ? null : 'KAFKA_BROKERS'].filter(Boolean).join(' and ');
  if (!docker) return { kind: 'skip', reason: `${unset} not set and no Docker engine found (DOCKER_HOST unset, no ${sockets.join(' or ')})` };
  try {
    // Loaded only when Docker is there, like the engine contract suites.
    /* eslint-disable @typescript-eslint/no-require-imports */
    const mongo = require('@testcontainers/mongodb') as MongoModule;
    const kafka = require('@testcontainers/kafka') as KafkaModule;
    /* eslint-enable @typescript-eslint/no-require-imports */
    return { kind: 'containers', mongo, kafka };
  } catch (error) {
    return {
      kind: 'skip',
      reason: `Docker found (${docker}) but testcontainers failed to load on Node ${process.version}: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

function withDirectConnection(url: string): string {
  const [base = url, query] = url.split('?');
  const params = new URLSearchParams(query ?? '');
  params.set('directConnection', 'true');
  return `${base.endsWith('/') ? base : `${base}/`}?${params.toString()}`;
}

// The one test that always runs: how the engines are chosen (the smoke below depends on it).
describe('real-engine smoke: choice of engines', () => {
  it('uses MONGO_URL and KAFKA_BROKERS when both are set, and skips naming what is missing otherwise', () => {
    expect(target({ MONGO_URL: 'mongodb://m:27017/?replicaSet=rs0', KAFKA_BROKERS: 'k:9092' }, [])).toEqual({
      kind: 'configured',
      mongoUrl: 'mongodb://m:27017/?replicaSet=rs0',
      kafkaBrokers: 'k:9092',
    });
    const skipped = target({ MONGO_URL: 'mongodb://m:27017' }, ['/nonexistent/docker.sock']);
    expect(skipped.kind).toBe('skip');
    expect(skipped.kind === 'skip' && skipped.reason).toMatch(/^KAFKA_BROKERS not set and no Docker engine found/);
  });
});

const chosen = target();
if (chosen.kind === 'skip') {
  console.warn(`real-engine smoke skipped: ${chosen.reason}`);
} else {
  describe('the stack on MongoDB and Kafka', () => {
    jest.setTimeout(120_000);
    // Databases of this run only, dropped afterwards: vrp_smoke_<run>_<service>.
    const run = newId('smoke').replace(/[^a-zA-Z0-9]/g, '_');
    const databases: string[] = [];
    const cleanups: (() => Promise<unknown>)[] = [];
    let mongoUrl: string;
    let bus: EventBus;
    let stack: Stack<EventBus>;

    const api = async <T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> => {
      const res = await fetch(`${stack.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${stack.demo!.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
    };

    beforeAll(async () => {
      let kafkaBrokers: string;
      if (chosen.kind === 'configured') {
        mongoUrl = chosen.mongoUrl;
        kafkaBrokers = chosen.kafkaBrokers;
      } else {
        const [mongo, kafka] = await Promise.all([
          new chosen.mongo.MongoDBContainer(MONGO_IMAGE).start(),
          new chosen.kafka.KafkaContainer(KAFKA_IMAGE).withKraft().start(),
        ]);
        cleanups.push(
          () => mongo.stop(),
          () => kafka.stop(),
        );
        mongoUrl = withDirectConnection(mongo.getConnectionString());
        kafkaBrokers = `${kafka.getHost()}:${kafka.getMappedPort(9093)}`;
      }
      // A single broker (compose or a container): topics with one replica unless told otherwise.
      bus = createBus({
        BUS: 'kafka',
        KAFKA_BROKERS: kafkaBrokers,
        KAFKA_REPLICATION_FACTOR: Number(process.env.KAFKA_REPLICATION_FACTOR ?? 1),
        KAFKA_MIN_INSYNC_REPLICAS: Number(process.env.KAFKA_MIN_INSYNC_REPLICAS ?? 1),
        clientId: `vrp-${run}`,
      });
      await bus.ensureTopics(Object.values(TOPICS));
      stack = await startStack(
        { port: 0, ephemeralPorts: true, logLevel: process.env.TEST_LOG_LEVEL ?? 'silent' },
        {
          bus,
          store: (name): Promise<DocumentStore> => {
            const dbName = `vrp_${run}_${name.replace(/-/g, '_')}`.slice(0, 60);
            databases.push(dbName);
            return createStore({ STORE: 'mongo', MONGO_URL: mongoUrl, dbName });
          },
        },
      );
    }, CONTAINER_WAIT_MS);

    afterAll(async () => {
      await stack?.stop();
      if (mongoUrl && databases.length) {
        const conn = await mongoose.createConnection(mongoUrl).asPromise();
        for (const db of databases) await conn.useDb(db).dropDatabase();
        await conn.close();
      }
      for (const cleanup of cleanups) await cleanup();
    }, CONTAINER_WAIT_MS);

    it('serves the demo listings from MongoDB', async () => {
      const res = await api<{ data: { id: string; status: string }[] }>('GET', '/v1/listings?status=all');
      expect(res.status).toBe(200);
      expect(res.body.data.map((l) => l.id).sort()).toEqual([...stack.demo!.listingIds].sort());
    });

    it('a toggle answers 403 listing_inactive at once and reaches other services over Kafka', async () => {
      const listed = await api<{ data: { id: string }[] }>('GET', '/v1/listings');
      const id = listed.body.data[0]!.id;
      const seen: listingEvents.ListingActivityChanged[] = [];
      const sub = await bus.subscribe({
        groupId: `smoke-${run}`,
        topics: [TOPICS.listingActivity.name],
        fromBeginning: false,
        handler: async (m) => {
          const event = listingEvents.ListingActivityChanged.decode(m.value);
          if (m.key === event.listingId && event.listingId === id) seen.push(event);
        },
      });
      await sub.ready;
      try {
        expect((await api('PATCH', `/v1/listings/${id}`, { active: false })).status).toBe(200);
        const res = await api<ErrorBody>('GET', `/v1/properties/${id}`);
        expect(res.status).toBe(403);
        expect(res.body.error).toMatchObject({ code: 'listing_inactive', listing_ids: [id] });
        await eventually(() => seen.length >= 1, 30_000, 'the activity event on Kafka');
        expect(seen[0]).toMatchObject({ listingId: id, active: false });

        expect((await api('PATCH', `/v1/listings/${id}`, { active: true })).status).toBe(200);
        expect((await api('GET', `/v1/properties/${id}`)).status).toBe(200);
      } finally {
        await sub.stop();
      }
    });

    it('keeps tenants apart: another workspace’s listing is 404', async () => {
      const res = await fetch(`${stack.adminBaseUrl}/admin/v1/workspaces`, {
        method: 'POST',
        headers: { authorization: `Bearer ${stack.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Smoke ${run}`, activeListingLimit: 1 }),
      });
      const ws = (await res.json()) as { data: { id: string } };
      const keyRes = await fetch(`${stack.adminBaseUrl}/admin/v1/workspaces/${ws.data.id}/api-keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${stack.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ mode: 'test' }),
      });
      const key = ((await keyRes.json()) as { data: { key: string } }).data.key;
      const other = await fetch(`${stack.baseUrl}/v1/listings/${stack.demo!.listingIds[0]}`, { headers: { authorization: `Bearer ${key}` } });
      expect(other.status).toBe(404);
    });
  });
}
