// In-process gRPC calls (grpc/in-process.ts) answer what the network answers. Two
// servers run the same handlers: one takes calls only over loopback HTTP/2, the other also in
// process. Every case is called on both through the same kind of client (createUpstream) and the
// outcomes are compared: responses, AppErrors (code, message, details), the request id the
// handler sees, the size limit, the deadline; and only the second server's handler ever sees an
// in-process peer. A stopping server takes no further in-process call.
import { AsyncLocalStorage } from 'node:async_hooks';
import { ops } from '@vrp/contracts';
import { runWithContext, currentContext } from '@vrp/platform/context';
import { AppError } from '@vrp/platform/errors';
import { createUpstream, type Upstream, service, startGrpcServer, type GrpcServerHandle } from '@vrp/platform/grpc';
import { createLogger } from '@vrp/platform/logging';
import { useInProcessCalls } from '../src/grpc/in-process';

// The transport of this process's local calls, as the embedded stack installs it.
useInProcessCalls();

const logger = createLogger('in-process-test', process.env.DEBUG_TEST ? 'debug' : 'silent');
/** A caller's own async context (as a store transaction would be): the handler must not see it. */
const callerScope = new AsyncLocalStorage<string>();
/** What ran when (the test of the event loop turns). */
const order: string[] = [];

interface Seen {
  peer: string;
  requestId: string | undefined;
  callerScope: string | undefined;
  deadline: number;
}

function handlers(seen: Seen[]) {
  return service(ops.DeadLetterServiceService, {
    async listDeadLetters(request, call) {
      seen.push({ peer: call.getPeer(), requestId: currentContext()?.requestId, callerScope: callerScope.getStore(), deadline: Number(call.getDeadline()) });
      switch (request.topic) {
        case 'refused':
          throw new AppError('validation_failed', 'The topic is not one of ours.', { fields: { topic: 'unknown topic' } });
        case 'crash':
          throw new Error('a bug with internals in its message');
        case 'unencodable':
          // A response its own encoder rejects (a number field that is not a number).
          return { deadLetters: [], page: { total: 'many' as unknown as number, limit: 10, offset: 0, hasMore: false } };
        case 'order':
          order.push('handler');
          return { deadLetters: [] };
        case 'slow':
          await new Promise((resolve) => setTimeout(resolve, 400));
          return { deadLetters: [] };
        case 'big':
          // 5 MiB: above grpc-js's 4 MiB client receive limit.
          return { deadLetters: [{ ...ops.DeadLetter.fromPartial({ id: 'big' }), value: Buffer.alloc(5 * 1024 * 1024, 1) }] };
        default:
          return {
            deadLetters: [
              ops.DeadLetter.fromPartial({
                id: 'dl-1',
                topic: request.topic,
                headers: { a: 'b' },
                value: Buffer.from('payload'),
                lastFailedAt: new Date('2026-01-02T03:04:05.678Z'),
              }),
            ],
            page: { total: 1, limit: 10, offset: 0, hasMore: false },
          };
      }
    },
    async replayDeadLetter() {
      return {};
    },
    async deleteDeadLetter() {
      return {};
    },
  });
}

type Outcome = { ok: unknown } | { error: { code: string; message: string; details: unknown } };

async function outcome(upstream: Upstream<ops.DeadLetterServiceClient>, topic: string, deadlineMs = 2000): Promise<Outcome> {
  try {
    return { ok: await upstream.call('listDeadLetters', ops.ListDeadLettersRequest.fromPartial({ topic }), { deadlineMs }) };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { error: { code: err.code, message: err.message, details: err.details } };
  }
}

describe('gRPC calls in process', () => {
  const overNetwork: Seen[] = [];
  const inProcess: Seen[] = [];
  let networkServer: GrpcServerHandle;
  let localServer: GrpcServerHandle;
  let networkClient: Upstream<ops.DeadLetterServiceClient>;
  let localClient: Upstream<ops.DeadLetterServiceClient>;

  beforeAll(async () => {
    networkServer = await startGrpcServer({ name: 'net', port: 0, host: '127.0.0.1', services: [handlers(overNetwork)], logger });
    localServer = await startGrpcServer({ name: 'local', port: 0, host: '127.0.0.1', services: [handlers(inProcess)], logger, inProcess: true });
    networkClient = createUpstream(ops.DeadLetterServiceClient, { name: 'net', address: `127.0.0.1:${networkServer.port}` });
    localClient = createUpstream(ops.DeadLetterServiceClient, { name: 'local', address: `localhost:${localServer.port}` });
  });

  afterAll(async () => {
    networkClient.close();
    localClient.close();
    await networkServer.stop(0);
    await localServer.stop(0);
  });

  beforeEach(() => {
    overNetwork.length = 0;
    inProcess.length = 0;
  });

  it('answers the same response, decoded from its encoding, and only the in-process server sees an in-process peer', async () => {
    const net = await outcome(networkClient, 'orders');
    const local = await outcome(localClient, 'orders');
    expect(local).toEqual(net);
    expect((local as { ok: ops.ListDeadLettersResponse }).ok.deadLetters[0]!.lastFailedAt).toEqual(new Date('2026-01-02T03:04:05.678Z'));
    expect(overNetwork.map((s) => s.peer)).not.toContain('in-process');
    expect(inProcess.map((s) => s.peer)).toEqual(['in-process']);
  });

  it.each(['refused', 'crash', 'unencodable'])('turns a handler failure (%s) into the same AppError as the network does', async (topic) => {
    const net = await outcome(networkClient, topic);
    const local = await outcome(localClient, topic);
    expect('error' in net).toBe(true);
    expect(local).toEqual(net);
    expect(JSON.stringify(local)).not.toContain('internals');
  });

  it('refuses a response above the client receive limit as the network does', async () => {
    const net = await outcome(networkClient, 'big');
    const local = await outcome(localClient, 'big');
    expect(net).toEqual({ error: expect.objectContaining({ code: 'rate_limited', message: expect.stringMatching(/^Received message larger than max/) }) });
    expect(local).toEqual(net);
  });

  it("gives up at the caller's deadline with upstream_timeout, as the network does", async () => {
    const net = await outcome(networkClient, 'slow', 100);
    const local = await outcome(localClient, 'slow', 100);
    expect(net).toEqual({ error: expect.objectContaining({ code: 'upstream_timeout' }) });
    expect(local).toEqual({ error: expect.objectContaining({ code: 'upstream_timeout' }) });
    // The handler got the caller's deadline.
    expect(Math.abs(inProcess[0]!.deadline - overNetwork[0]!.deadline)).toBeLessThan(1000);
  });

  it("carries the caller's request id, and runs the handler outside the caller's async context", async () => {
    await callerScope.run('caller transaction', () => runWithContext({ requestId: 'req_in_process_1' }, () => outcome(localClient, 'orders')));
    await callerScope.run('caller transaction', () => runWithContext({ requestId: 'req_over_network' }, () => outcome(networkClient, 'orders')));
    expect(inProcess).toEqual([expect.objectContaining({ requestId: 'req_in_process_1', callerScope: undefined })]);
    expect(overNetwork).toEqual([expect.objectContaining({ requestId: 'req_over_network', callerScope: undefined })]);
  });

  it('starts the handler, and answers the caller, each in a later turn of the event loop, as a network round trip does', async () => {
    order.length = 0;
    setImmediate(() => order.push('immediate queued before the call'));
    const call = outcome(localClient, 'order');
    await Promise.resolve();
    order.push('caller microtasks');
    await call;
    order.push('caller resumed');
    expect(order).toEqual(['caller microtasks', 'immediate queued before the call', 'handler', 'caller resumed']);
  });

  it('takes no in-process call once the server is stopping: the call goes over the network and finds it gone', async () => {
    const seen: Seen[] = [];
    const server = await startGrpcServer({ name: 'stopping', port: 0, host: '127.0.0.1', services: [handlers(seen)], logger, inProcess: true });
    const client = createUpstream(ops.DeadLetterServiceClient, { name: 'stopping', address: `127.0.0.1:${server.port}` });
    try {
      expect(await outcome(client, 'orders')).toEqual({ ok: expect.anything() });
      await server.stop(0);
      expect(await outcome(client, 'orders', 1000)).toEqual({
        error: expect.objectContaining({ code: expect.stringMatching(/^(service_unavailable|upstream_timeout)$/) }),
      });
      expect(seen).toHaveLength(1);
    } finally {
      client.close();
    }
  });
});
