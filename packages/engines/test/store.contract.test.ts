// Runs the DocumentStore contract on every engine available here:
// - memory: always;
// - mongo: against MONGO_URL when set (in a throwaway database, dropped afterwards), else in a
//   throwaway single-node replica set (testcontainers, mongo:8) when a Docker engine is
//   reachable; otherwise the mongo suite is not registered (one warning).
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import mongoose from 'mongoose';
import { describeStoreContract, uniqueName } from '../src/store/contract';
import { createMemoryStore, openStorePersistence } from '../src/store';
import { createMongoStore } from '../src/store/mongo';
import type { DocumentStore } from '@vrp/platform/store';
import { tempDirs } from './temp-dirs';

const MONGO_IMAGE = 'mongo:8';
const MONGO_WAIT_MS = 300_000; // image pull included

const contractDir = tempDirs('vrp-store-contract-');

describeStoreContract('memory', async () => createMemoryStore());
// The embedded engine as `pnpm start` runs it: every commit written to LMDB before it is acknowledged.
describeStoreContract('memory persisted to LMDB', async () =>
  createMemoryStore({ persistence: openStorePersistence({ path: contractDir(), label: 'contract store' }) }),
);

type MongoModule = typeof import('@testcontainers/mongodb');
type MongoTarget = { kind: 'url'; url: string } | { kind: 'container'; module: MongoModule } | { kind: 'skip'; reason: string };

// Decided synchronously: jest registers tests synchronously, and nothing starts at import time.
function mongoTarget(): MongoTarget {
  const url = process.env.MONGO_URL?.trim();
  if (url) return { kind: 'url', url };

  const sockets = ['/var/run/docker.sock', join(homedir(), '.docker', 'run', 'docker.sock')];
  const docker = process.env.DOCKER_HOST ? `DOCKER_HOST=${process.env.DOCKER_HOST}` : sockets.find((s) => existsSync(s));
  if (!docker) {
    return { kind: 'skip', reason: `MONGO_URL is not set and no Docker engine found (DOCKER_HOST unset, no ${sockets.join(' or ')})` };
  }
  try {
    // Loaded only when Docker is there; testcontainers 12 needs a recent Node and throws on load otherwise.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const module = require('@testcontainers/mongodb') as MongoModule;
    return { kind: 'container', module };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { kind: 'skip', reason: `Docker found (${docker}) but @testcontainers/mongodb failed to load on Node ${process.version}: ${reason}` };
  }
}

function withDirectConnection(url: string): string {
  const [base = url, query] = url.split('?');
  const params = new URLSearchParams(query ?? '');
  params.set('directConnection', 'true');
  return `${base.endsWith('/') ? base : `${base}/`}?${params.toString()}`;
}

const target = mongoTarget();
if (target.kind === 'skip') {
  console.warn(`store contract suite: MongoDB engine skipped: ${target.reason}`);
} else {
  describe('mongo engine', () => {
    const dbName = uniqueName('store_contract');
    let cleanup: (() => Promise<unknown>) | undefined;
    afterAll(async () => {
      await cleanup?.();
    }, MONGO_WAIT_MS);

    const makeStore = async (): Promise<DocumentStore> => {
      if (target.kind === 'url') {
        cleanup = async () => {
          const conn = await mongoose.createConnection(target.url, { dbName }).asPromise();
          await conn.dropDatabase();
          await conn.close();
        };
        return createMongoStore({ url: target.url, dbName });
      }
      const container = await new target.module.MongoDBContainer(MONGO_IMAGE).start();
      cleanup = () => container.stop();
      return createMongoStore({ url: withDirectConnection(container.getConnectionString()), dbName });
    };

    // The container start (image pull included) happens in the suite's beforeAll.
    describeStoreContract('mongo', makeStore, { testTimeoutMs: 30_000, setupTimeoutMs: MONGO_WAIT_MS });
  });
}
