// SIGTERM against real processes, started the way a container starts them (their main.ts, their
// env): a request in flight when the signal arrives completes successfully, new work is refused
// at once, and the process exits 0 within its bound. (Here rather than in e2e/: it speaks gRPC to
// a service process, below the HTTP API.)
//
// "In flight" is made deterministic by withholding the request body: the request's headers reach
// the process before SIGTERM, its body only after the process has started shutting down. The
// in-process half (a message being handled when a consumer stops) is in
// packages/platform/test/shutdown.test.ts: separate processes cannot share the memory bus.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import { join } from 'node:path';
import { listing as listingProto } from '@vrp/contracts';
import { freePort } from '@vrp/platform/net';
import { eventually } from '../../../e2e/support/stack';

const ROOT = join(__dirname, '..', '..', '..');
const START_TIMEOUT_MS = 40_000;
/** stopOnSignals' bound is 25 s; an idle drain takes milliseconds, so a much smaller bound here. */
const EXIT_BOUND_MS = 5_000;

interface Proc {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

function startProcess(entry: string, env: Record<string, string>): Proc {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() }));
  });
  return { child, output: () => output, exited };
}

function httpGet(port: number, path: string): Promise<number> {
  return new Promise((resolve) => {
    http
      .get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', () => resolve(0));
  });
}

/** Whether a new TCP connection to the port is refused. */
function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

async function startListing(): Promise<{ proc: Proc; grpcPort: number; opsPort: number }> {
  const grpcPort = await freePort();
  const opsPort = await freePort();
  const proc = startProcess('services/listing/src/main.ts', {
    LISTING_GRPC_PORT: String(grpcPort),
    LISTING_OPS_PORT: String(opsPort),
    LISTING_ADDR: `127.0.0.1:${grpcPort}`,
  });
  return { proc, grpcPort, opsPort };
}

async function listingReady({ proc, opsPort }: { proc: Proc; opsPort: number }): Promise<void> {
  await eventually(
    async () => (await httpGet(opsPort, '/readyz')) === 200 || proc.child.exitCode !== null,
    START_TIMEOUT_MS,
    'the listing process to be ready',
  );
  if (proc.child.exitCode !== null) throw new Error(`listing exited at start:\n${proc.output()}`);
}

async function stopIfRunning(proc: Proc | undefined): Promise<void> {
  if (proc && proc.child.exitCode === null && proc.child.signalCode === null) {
    proc.child.kill('SIGKILL');
    await proc.exited;
  }
}

describe('SIGTERM', () => {
  jest.setTimeout(90_000);
  const started: Proc[] = [];
  afterAll(async () => {
    for (const p of started) await stopIfRunning(p);
  });

  it('a domain service finishes the gRPC call in flight, refuses new work, and exits 0 within its bound', async () => {
    const { proc, grpcPort, opsPort } = await startListing();
    started.push(proc);
    await listingReady({ proc, opsPort });

    // A CreateListing call whose headers are in, its message withheld.
    const session = http2.connect(`http://127.0.0.1:${grpcPort}`);
    await new Promise<void>((resolve, reject) => {
      session.once('connect', () => resolve());
      session.once('error', reject);
    });
    const stream = session.request(
      { ':method': 'POST', ':path': '/vrp.listing.v1.ListingService/CreateListing', 'content-type': 'application/grpc', te: 'trailers' },
      { endStream: false },
    );
    const chunks: Buffer[] = [];
    let trailers: http2.IncomingHttpHeaders = {};
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('trailers', (t) => (trailers = t));
    const ended = new Promise<void>((resolve, reject) => {
      stream.once('end', resolve);
      stream.once('error', reject);
    });
    // The PING is answered after the server has read the HEADERS frame sent before it.
    await new Promise<void>((resolve, reject) => session.ping((err) => (err ? reject(err) : resolve())));

    const signalledAt = Date.now();
    proc.child.kill('SIGTERM');
    await eventually(() => proc.output().includes('shutting down'), 10_000, 'the shutdown to start');
    // No new work: not ready, and no new connection.
    await eventually(async () => (await httpGet(opsPort, '/readyz')) === 503, 5_000, '/readyz to answer 503');
    await eventually(() => refusesConnections(grpcPort), 5_000, 'the gRPC port to refuse new connections');
    expect(proc.child.exitCode).toBeNull(); // still draining the call in flight

    const message = listingProto.CreateListingRequest.encode({
      workspaceId: 'ws_sigterm',
      listing: listingProto.Listing.fromPartial({ name: 'Created during shutdown' }),
      inactive: true,
    }).finish();
    const frame = Buffer.alloc(5 + message.length);
    frame.writeUInt8(0, 0);
    frame.writeUInt32BE(message.length, 1);
    Buffer.from(message).copy(frame, 5);
    stream.end(frame);
    await ended;
    session.close();

    expect(trailers['grpc-status']).toBe('0');
    const body = Buffer.concat(chunks);
    const response = listingProto.CreateListingResponse.decode(body.subarray(5, 5 + body.readUInt32BE(1)));
    expect(response.listing?.name).toBe('Created during shutdown');
    expect(response.listing?.id).toMatch(/^lst_/);

    const exit = await proc.exited;
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.at - signalledAt).toBeLessThan(EXIT_BOUND_MS);
    expect(proc.output()).toContain('listing stopped');
  });

  it('the gateway finishes the HTTP request in flight, refuses new connections, and exits 0 within its bound', async () => {
    const port = await freePort();
    const adminPort = await freePort();
    const listing = await startListing();
    started.push(listing.proc);
    const adminToken = 'sigterm-admin-token-000000000000';
    const gateway = startProcess('services/gateway/src/main.ts', {
      GATEWAY_PORT: String(port),
      GATEWAY_ADMIN_PORT: String(adminPort),
      GATEWAY_HOST: '127.0.0.1',
      ADMIN_TOKEN: adminToken,
      API_KEY_PEPPER: 'sigterm-api-key-pepper-0000000000000000000',
      LISTING_ADDR: `127.0.0.1:${listing.grpcPort}`,
    });
    started.push(gateway);
    // Both start at once (the gateway connects to its upstreams lazily).
    await listingReady(listing);
    await eventually(async () => (await httpGet(port, '/readyz')) === 200 || gateway.child.exitCode !== null, START_TIMEOUT_MS, 'the gateway to be ready');
    expect(gateway.child.exitCode).toBeNull();

    // POST /admin/v1/workspaces with `Expect: 100-continue`: the gateway answers 100 once it has
    // parsed the headers and dispatched the request, and the body is only sent after SIGTERM.
    const body = JSON.stringify({ name: 'Created during shutdown', activeListingLimit: 3 });
    const req = http.request({
      host: '127.0.0.1',
      port: adminPort,
      method: 'POST',
      path: '/admin/v1/workspaces',
      agent: false,
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' },
    });
    const accepted = new Promise<void>((resolve, reject) => {
      req.once('continue', resolve);
      req.once('error', reject);
    });
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      req.once('response', (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.once('error', reject);
    });
    req.flushHeaders();
    await accepted;

    const signalledAt = Date.now();
    gateway.child.kill('SIGTERM');
    await eventually(() => gateway.output().includes('shutting down'), 10_000, 'the gateway shutdown to start');
    await eventually(() => refusesConnections(port), 5_000, 'the gateway to refuse new connections');
    await eventually(() => refusesConnections(adminPort), 5_000, 'the private listener to refuse new connections');
    expect(gateway.child.exitCode).toBeNull(); // waiting for the request in flight

    req.end(body);
    const res = await response;
    expect(res.status).toBe(201);
    expect((JSON.parse(res.text) as { data: { name: string } }).data.name).toBe('Created during shutdown');

    const exit = await gateway.exited;
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.at - signalledAt).toBeLessThan(EXIT_BOUND_MS);

    listing.proc.child.kill('SIGTERM');
    expect(await listing.proc.exited).toMatchObject({ code: 0 });
  });
});
