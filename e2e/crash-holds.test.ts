// Nothing a killed process held outlives it for long: the stack runs in a child process (the
// embedded stack on a data directory), creates on a PMS listing are in flight (their nights held
// pending while the PMS answers, their Idempotency-Keys claimed), and the whole process is
// killed with SIGKILL. After the restart on the same data, within 5 s: a retry with the same
// key runs (no minute of `409 idempotency_in_progress`), and another create of the same nights
// gets them (no night stuck in a dead holder's pending hold). Black box: HTTP only (API, admin
// API, the PMS simulator's control API).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimulatorControl } from '@vrp/pms-simulator';
import { api, bundleChild, killChild, startChild, type Child } from './support/crash-process';
import { eventually } from './support/stack';

/** How soon after the restart every key and night must be free again. */
const FREE_WITHIN_MS = 5_000;
const IN_FLIGHT = 6;
const PROVIDER = 'PMS-A';
const ACCOUNT = 'crash-holds';

interface Reservation {
  id: string;
  checkIn: string;
}
interface ErrorBody {
  error: { code: string };
}

const stayOf = (i: number) => {
  const day = (d: number) => new Date(Date.UTC(2045, 2, 1) + (i * 4 + d) * 86_400_000).toISOString().slice(0, 10);
  return { checkIn: day(0), checkOut: day(2) };
};

/** The PMS side of the test's account (the simulator keeps nothing across a restart of the stack). */
async function seedPms(pms: SimulatorControl): Promise<void> {
  await pms.createAccount(PROVIDER, ACCOUNT);
  await pms.putListing(PROVIDER, ACCOUNT, 'crash-flat', { name: 'Crash flat' });
}

describe('crash: keys and pending nights of a killed process', () => {
  jest.setTimeout(180_000);
  let dir = '';
  let child: Child | null = null;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'vrp-crash-holds-'));
  });
  afterAll(async () => {
    if (child) await killChild(child);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(`frees the Idempotency-Keys and held nights of requests killed mid-flight within ${FREE_WITHIN_MS / 1000} s of the restart`, async () => {
    const entry = await bundleChild(dir);
    const dataDir = join(dir, 'data');
    child = await startChild(entry, dataDir);
    let c = child;
    const admin = (method: string, path: string, body?: unknown) =>
      api<{ data: Record<string, string> }>(c.adminBaseUrl, method, path, body, { key: c.adminToken });

    // A workspace of its own, connected to a PMS-A account holding one listing.
    let pms = new SimulatorControl(c.pmsSimulatorUrl);
    await seedPms(pms);
    const ws = await admin('POST', '/admin/v1/workspaces', { name: 'Crash holds', activeListingLimit: 5 });
    expect(ws.status).toBe(201);
    const workspaceId = ws.body.data.id!;
    const key = (await admin('POST', `/admin/v1/workspaces/${workspaceId}/api-keys`, { mode: 'test' })).body.data.key!;
    expect((await admin('POST', `/admin/v1/workspaces/${workspaceId}/connections`, { provider: PROVIDER, accountId: ACCOUNT, mode: 'test' })).status).toBe(201);
    let listingId = '';
    await eventually(
      async () => {
        listingId = (await api<{ data: { id: string }[] }>(c.baseUrl, 'GET', '/v1/listings', undefined, { key })).body.data[0]?.id ?? '';
        return listingId !== '';
      },
      10_000,
      'the import of the listing',
    );

    const create = (i: number, idempotencyKey?: string) =>
      api<{ data: Reservation } & ErrorBody>(
        c.baseUrl,
        'POST',
        '/v1/reservations',
        { propertyId: listingId, ...stayOf(i), primaryGuest: { firstName: `Held${i}` } },
        { key, headers: idempotencyKey ? { 'idempotency-key': idempotencyKey } : {} },
      );

    // The PMS answers slowly: every create holds its nights and its key while it waits.
    await pms.setFault(PROVIDER, { mode: 'slow', delayMs: 60_000 });
    const inFlight = Array.from({ length: IN_FLIGHT }, (_, i) => create(i, `crash-key-${i}`).catch(() => null));
    // Killed once every create has reached the PMS (its nights held, its key claimed).
    for (;;) {
      const creates = (await pms.requests({ provider: PROVIDER, account: ACCOUNT })).filter((r) => r.method === 'POST');
      if (creates.length >= IN_FLIGHT) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    await killChild(c);
    expect(await Promise.all(inFlight)).toEqual(Array.from({ length: IN_FLIGHT }, () => null));

    child = await startChild(entry, dataDir);
    c = child;
    const restarted = Date.now();
    pms = new SimulatorControl(c.pmsSimulatorUrl);
    await seedPms(pms);

    // Half retry with their key (it must run now), half are other creates of the same nights
    // without a key (the nights must be free now): each answers 201 within FREE_WITHIN_MS of the
    // restart. A 409 meanwhile must say (Retry-After) no more than the few seconds a lease lasts.
    const retryAfters: number[] = [];
    const outcomes = new Map<number, number>();
    await eventually(
      async () => {
        await Promise.all(
          Array.from({ length: IN_FLIGHT }, async (_, i) => {
            if (outcomes.get(i) === 201) return;
            const res = await create(i, i % 2 === 0 ? `crash-key-${i}` : undefined);
            outcomes.set(i, res.status);
            if (res.status === 409) retryAfters.push(Number(res.headers.get('retry-after') ?? 0));
          }),
        );
        return [...outcomes.values()].filter((s) => s === 201).length === IN_FLIGHT;
      },
      FREE_WITHIN_MS - (Date.now() - restarted),
      `every key and night free within ${FREE_WITHIN_MS} ms of the restart`,
    );
    expect(Date.now() - restarted).toBeLessThanOrEqual(FREE_WITHIN_MS);
    for (const wait of retryAfters) expect(wait).toBeLessThanOrEqual(3);
    await killChild(c);
  });
});
