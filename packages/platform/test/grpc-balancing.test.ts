// Calls to a service with several instances, as production makes them (grpc/client.ts,
// grpc/server.ts): the client balances per call over every address of its target (round_robin);
// a read that meets an unavailable instance is sent again to another, a write never is; a
// server ages its connections out, so clients reconnect (and resolve the name again) without a
// failed call.
import net from 'node:net';
import { ops } from '@vrp/contracts';
import { runWithContext } from '../src/context';
import { AppError } from '../src/errors/app-error';
import { createUpstream, type Upstream } from '../src/grpc/client';
import { service, startGrpcServer, type GrpcServerHandle } from '../src/grpc/server';
import { createLogger } from '../src/logging';

const logger = createLogger('balancing-test', 'silent');

interface Instance {
  server: GrpcServerHandle;
  reads: number;
  writes: number;
  peers: Set<string>;
  /** Reads started and not yet answered. */
  inFlight: number;
  /** What the next reads answer: ok, or unavailable (a store that does not answer). */
  failReads: number;
}

async function startInstance(opts: { readDelayMs?: number; maxConnectionAgeMs?: number } = {}): Promise<Instance> {
  const instance = { reads: 0, writes: 0, peers: new Set<string>(), failReads: 0, inFlight: 0 } as Instance;
  instance.server = await startGrpcServer({
    name: 'dead-letters',
    port: 0,
    host: '127.0.0.1',
    logger,
    ...(opts.maxConnectionAgeMs ? { maxConnectionAgeMs: opts.maxConnectionAgeMs } : {}),
    services: [
      service(ops.DeadLetterServiceService, {
        async listDeadLetters(_request, call) {
          instance.reads += 1;
          instance.peers.add(call.getPeer());
          if (instance.failReads > 0) {
            instance.failReads -= 1;
            throw new AppError('service_unavailable', 'The store did not answer.');
          }
          instance.inFlight += 1;
          if (opts.readDelayMs) await new Promise((resolve) => setTimeout(resolve, opts.readDelayMs).unref());
          instance.inFlight -= 1;
          return { deadLetters: [], page: { total: 0, limit: 10, offset: 0, hasMore: false } };
        },
        async replayDeadLetter() {
          instance.writes += 1;
          throw new AppError('service_unavailable', 'The store did not answer.');
        },
        async deleteDeadLetter() {
          instance.writes += 1;
          return {};
        },
      }),
    ],
  });
  return instance;
}

/** A TCP front of a server's port whose die() drops every connection at once, as a killed process's do. */
async function socketsOf(port: number): Promise<{ port: number; die(): void }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: '127.0.0.1', port });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.once('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    die() {
      server.close();
      for (const s of sockets) s.resetAndDestroy();
    },
  };
}

/** Polls until `check` holds (no fixed sleep). */
async function eventuallyTrue(check: () => boolean, step: () => Promise<unknown> = () => new Promise((resolve) => setImmediate(resolve))): Promise<void> {
  const until = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await step();
  }
}

const targetOf = (...instances: Instance[]) => `ipv4:${instances.map((i) => `127.0.0.1:${i.server.port}`).join(',')}`;

function clientOf(address: string): Upstream<ops.DeadLetterServiceClient> {
  // A breaker that never opens here: the tests count what reaches each instance.
  return createUpstream(ops.DeadLetterServiceClient, { name: 'dead-letters', address, deadlineMs: 5000, breaker: { volumeThreshold: 1_000_000 } });
}

const read = (client: Upstream<ops.DeadLetterServiceClient>) =>
  client.call('listDeadLetters', { workspaceId: 'ws_1', topic: '', limit: 10, offset: 0 } as never);

/** Runs `total` calls, `concurrency` at a time; `onCall(i)` runs before call i starts. Resolves with the failures. */
async function load(total: number, concurrency: number, call: () => Promise<unknown>, onCall: (i: number) => void = () => undefined): Promise<unknown[]> {
  const failures: unknown[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        onCall(i);
        await call().catch((error: unknown) => failures.push(error));
      }
    }),
  );
  return failures;
}

describe('gRPC calls over several instances of a service', () => {
  const started: Instance[] = [];
  const fronts: Array<{ die(): void }> = [];
  const clients: Upstream<unknown>[] = [];
  const instance = async (opts?: Parameters<typeof startInstance>[0]) => {
    const i = await startInstance(opts);
    started.push(i);
    return i;
  };
  const client = (address: string) => {
    const c = clientOf(address);
    clients.push(c as Upstream<unknown>);
    return c;
  };
  afterEach(async () => {
    for (const front of fronts.splice(0)) front.die();
    for (const c of clients.splice(0)) c.close();
    await Promise.all(started.splice(0).map((i) => i.server.stop(0)));
  });

  it('spreads 1,000 calls of one client over two instances, each taking 40-60 % of them', async () => {
    const a = await instance();
    const b = await instance();
    const c = client(targetOf(a, b));
    expect(await load(1000, 4, () => read(c))).toEqual([]);
    expect(a.reads + b.reads).toBe(1000);
    expect(a.reads).toBeGreaterThanOrEqual(400);
    expect(a.reads).toBeLessThanOrEqual(600);
  });

  it('fails no read when an instance stops gracefully in the middle of the load', async () => {
    const a = await instance({ readDelayMs: 2 });
    const b = await instance({ readDelayMs: 2 });
    const c = client(targetOf(a, b));
    let stopping: Promise<void> | undefined;
    const failures = await load(
      600,
      8,
      () => read(c),
      (i) => {
        if (i === 200) stopping = a.server.stop(5000);
      },
    );
    await stopping;
    expect(failures).toEqual([]);
    expect(a.reads).toBeGreaterThan(0);
    expect(b.reads).toBeGreaterThan(300);
  });

  it('fails no read when an instance dies with calls in flight: they are sent again to the other', async () => {
    // a takes reads and never answers them; then its process dies: every connection to it drops
    // (a proxy in front of it stands for its sockets).
    const a = await instance({ readDelayMs: 60_000 });
    const b = await instance();
    const front = await socketsOf(a.server.port);
    fronts.push(front);
    const c = client(`ipv4:127.0.0.1:${front.port},127.0.0.1:${b.server.port}`);
    // Both connections up first (calls made before either is ready all go to the first one ready).
    a.failReads = 1_000;
    await eventuallyTrue(
      () => a.reads > 0 && b.reads > 0,
      () => read(c).catch(() => undefined),
    );
    a.failReads = 0;
    a.reads = 0;
    b.reads = 0;
    const reads = Promise.all(
      Array.from({ length: 20 }, () =>
        read(c).then(
          () => 'answered',
          (error: unknown) => `failed: ${String(error)}`,
        ),
      ),
    );
    await eventuallyTrue(() => a.inFlight >= 5);
    const cut = a.inFlight;
    front.die();
    expect(await reads).toEqual(Array.from({ length: 20 }, () => 'answered'));
    // The reads cut on a were answered by b.
    expect(b.reads).toBe(20 - a.reads + cut);
  });

  it('sends a read that an instance refused as unavailable to the next one', async () => {
    const a = await instance();
    const b = await instance();
    a.failReads = 1_000;
    const c = client(targetOf(a, b));
    expect(await load(20, 1, () => read(c))).toEqual([]);
    expect(b.reads).toBe(20);
  });

  it('never sends a write again: an unavailable answer reaches the caller, who retries it with its key', async () => {
    const a = await instance();
    const c = client(targetOf(a));
    await expect(c.call('replayDeadLetter', { workspaceId: 'ws_1', id: 'dl_1' } as never)).rejects.toMatchObject({ code: 'service_unavailable' });
    expect(a.writes).toBe(1);
  });

  it('ages connections out without failing a call: the client reconnects, and would find new instances', async () => {
    const a = await instance({ maxConnectionAgeMs: 300, readDelayMs: 1 });
    const c = client(`127.0.0.1:${a.server.port}`);
    const until = Date.now() + 1500;
    const failures: unknown[] = [];
    while (Date.now() < until) await read(c).catch((error: unknown) => failures.push(error));
    expect(failures).toEqual([]);
    // Each connection comes from its own client port: several means the client reconnected.
    expect(a.peers.size).toBeGreaterThan(1);
  });

  it("gives a call made for a request at most the request's time left, not the call's own deadline", async () => {
    const a = await instance({ readDelayMs: 2000 });
    const c = client(targetOf(a));
    const started = Date.now();
    const outcome = await runWithContext({ requestId: 'req_deadline_test', deadline: Date.now() + 200 }, () =>
      read(c).then(
        () => 'answered',
        (e: AppError) => e.code,
      ),
    );
    expect(outcome).toBe('upstream_timeout');
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
