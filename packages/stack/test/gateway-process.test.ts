// startGatewayProcess: the gateway alone (production's layout, one process per service) over the
// services of another stack, reached only through their gRPC addresses. The benchmark's split
// layout runs on it.
import { startGatewayProcess, startStack, type Stack } from '../src';

describe('startGatewayProcess', () => {
  let services: Stack;
  beforeAll(async () => {
    services = await startStack({ port: 0, ephemeralPorts: true, seed: false, logLevel: 'silent' });
  });
  afterAll(() => services.stop());

  it('serves the API from its own store over the services at the given addresses, and stops cleanly', async () => {
    const gateway = await startGatewayProcess({ port: 0, addresses: services.addresses, logLevel: 'silent' });
    try {
      const demo = gateway.demo!;
      // The demo listings were created through the listing service of the other stack.
      // Every listed listing is one the seed created in the other stack for this workspace.
      const res = await fetch(`${gateway.baseUrl}/v1/listings`, { headers: { authorization: `Bearer ${demo.apiKey}` } });
      expect(res.status).toBe(200);
      const listed = ((await res.json()) as { data: { id: string }[] }).data.map((l) => l.id);
      expect(listed.length).toBeGreaterThan(0);
      expect(demo.listingIds).toEqual(expect.arrayContaining(listed));
      // The other stack's own gateway does not know this gateway's key: the stores are apart.
      const elsewhere = await fetch(`${services.baseUrl}/v1/listings`, { headers: { authorization: `Bearer ${demo.apiKey}` } });
      expect(elsewhere.status).toBe(401);
    } finally {
      await gateway.stop();
    }
    await expect(fetch(`${gateway.baseUrl}/healthz`)).rejects.toThrow();
  });
});
