// Child process of bench/gateway-overhead.bench.ts: the embedded stack (every service in this one
// process, as `pnpm start` runs it) with its ordinary logs (LOG_LEVEL, default info) on this
// process's stdout, which the benchmark discards. It creates one reservation through the API and
// reports the gateway's URL, the demo key and that reservation to the parent over IPC, then
// serves until the parent disconnects.
import { startStack } from '@vrp/stack';

async function main(): Promise<void> {
  const stack = await startStack({ port: 0, ephemeralPorts: true, logLevel: process.env.LOG_LEVEL ?? 'info' });
  const demo = stack.demo!;
  const call = async (method: string, path: string, body: unknown, token: string) => {
    const res = await fetch(`${stack.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as { data: { id: string } };
  };
  // Limits far above what one process can serve: the benchmark measures the path, not the limiter
  // refusing (every limiter still counts every request).
  await call(
    'PATCH',
    `/admin/v1/workspaces/${demo.workspaceId}`,
    {
      rateLimits: {
        keyRequestsPerSecond: 100_000,
        keyBurst: 100_000,
        workspaceRequestsPerSecond: 100_000,
        workspaceBurst: 100_000,
        workspaceConcurrency: 1024,
      },
    },
    stack.adminToken,
  );
  const reservation = await call(
    'POST',
    '/v1/reservations',
    {
      propertyId: demo.listingIds[0],
      checkIn: '2034-06-01',
      checkOut: '2034-06-04',
      primaryGuest: { firstName: 'Bench', lastName: 'Mark', email: 'bench@example.com' },
    },
    demo.apiKey,
  );
  process.send!({ baseUrl: stack.baseUrl, apiKey: demo.apiKey, reservationId: reservation.data.id });
  process.on('disconnect', () => {
    void stack.stop().finally(() => process.exit(0));
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
