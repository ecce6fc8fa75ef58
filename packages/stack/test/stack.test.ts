// The embedded stack's process plumbing: a failed boot leaves nothing running, and each
// service's /readyz follows its consumers.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { SERVICE_NAMES, startStack, type Stack } from '../src';
import { inProcessPorts } from '@vrp/engines/grpc-in-process';
import { eventually } from '@vrp/testkit';

const quiet = { port: 0, ephemeralPorts: true, seed: false, logLevel: 'silent' } as const;

/** Handles that keep the process alive, by kind (TCPServerWrap = listening sockets, Timeout...). */
function handles(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

const waitFor = (condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000) => eventually(condition, { what, timeoutMs, intervalMs: 20 });

async function readyz(port: number): Promise<{ status: number; body: { checks: Record<string, boolean> } }> {
  const res = await fetch(`http://127.0.0.1:${port}/readyz`);
  return { status: res.status, body: (await res.json()) as { checks: Record<string, boolean> } };
}

describe('startStack', () => {
  it('stops what it already started (bus, simulator, services, gateway clients) when a later step fails', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const takenPort = (blocker.address() as AddressInfo).port;
    const before = handles();
    const sameAsBefore = (kind: string) => (handles().get(kind) ?? 0) <= (before.get(kind) ?? 0);
    try {
      // The gateway is the last step: the simulator and all five services are up by then.
      await expect(startStack({ ...quiet, port: takenPort })).rejects.toThrow(/EADDRINUSE/);
      await waitFor(
        () => sameAsBefore('TCPServerWrap') && sameAsBefore('Timeout') && sameAsBefore('TCPSocketWrap'),
        'every server, socket and timer of the failed boot to be gone',
      );
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });

  describe('readiness follows the consumers', () => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack(quiet);
    });
    afterAll(async () => {
      await stack?.stop();
    });

    it('a service whose consumer died answers 503 on /readyz; a service without consumers stays ready', async () => {
      for (const name of SERVICE_NAMES) expect([name, (await readyz(stack.services[name].opsPort)).status]).toEqual([name, 200]);
      const groups = new Set((await stack.bus.consumerLag()).map((l) => l.groupId));
      expect(groups.size).toBeGreaterThan(0);
      for (const group of groups) stack.bus.crashConsumers(group, 'test crash');

      // Every service consumes (the pms-adapter its sync outcomes).
      for (const name of SERVICE_NAMES) {
        const { status, body } = await readyz(stack.services[name].opsPort);
        expect([name, status, body.checks]).toEqual([name, 503, { store: true, bus: true, consumers: false }]);
      }
      // The gateway consumes nothing: it stays ready.
      expect((await fetch(`${stack.baseUrl}/readyz`)).status).toBe(200);
    });
  });

  describe('gRPC calls between the gateway and the services', () => {
    const servicePorts = (stack: Stack) => SERVICE_NAMES.map((name) => stack.services[name].grpcPort).sort((a, b) => a - b);

    it.each([
      ['in process by default', undefined, true],
      ['over loopback gRPC with grpcInProcess: false', false, false],
    ] as const)('go %s, and the API answers either way', async (_how, grpcInProcess, inProcess) => {
      const stack = await startStack({ ...quiet, seed: true, ...(grpcInProcess === undefined ? {} : { grpcInProcess }) });
      try {
        const registered = servicePorts(stack).filter((port) => inProcessPorts().includes(port));
        expect(registered).toEqual(inProcess ? servicePorts(stack) : []);
        // Gateway -> listing service, and listing -> activity: a read through the API.
        const res = await fetch(`${stack.baseUrl}/v1/listings`, { headers: { authorization: `Bearer ${stack.demo!.apiKey}` } });
        expect(res.status).toBe(200);
        expect(((await res.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);
      } finally {
        await stack.stop();
      }
      // Stopped: nothing of this stack takes in-process calls any more.
      expect(servicePorts(stack).filter((port) => inProcessPorts().includes(port))).toEqual([]);
    });
  });
});
