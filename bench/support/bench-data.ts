// The data both benchmark layouts serve: the demo workspace's limits raised far above what one
// process can serve (the benchmark measures the path, not the limiter refusing; every limiter
// still counts every request), and one reservation created through the API.
import type { DemoSeed } from '@vrp/stack';

export async function prepareBenchData(
  urls: { baseUrl: string; adminBaseUrl: string },
  adminToken: string,
  demo: DemoSeed,
): Promise<{ reservationId: string }> {
  const call = async (method: string, path: string, body: unknown, token: string) => {
    const res = await fetch(`${path.startsWith('/admin/') ? urls.adminBaseUrl : urls.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as { data: { id: string } };
  };
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
    adminToken,
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
  return { reservationId: reservation.data.id };
}
