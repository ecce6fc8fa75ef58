// PMS sync throughput end to end on the embedded stack. Changes are made in
// the PMS simulator, one on-demand sync publishes them on pms.sync.v1, and the clock stops when
// the consuming services have applied all of them (the bus is idle and the API shows the last
// change). Reports changes applied per second. Bounded: a fixed number of changes, 120 s cap.
// Imported by path: bench/ is not a workspace package.
import { DEMO_RATE_LIMITS, startStack } from '../packages/stack/src';

const LISTINGS = Number(process.env.BENCH_SYNC_LISTINGS ?? 200);
const UPDATES_PER_LISTING = Number(process.env.BENCH_SYNC_UPDATES ?? 4);

async function main(): Promise<void> {
  const stack = await startStack({ port: 0, ephemeralPorts: true, logLevel: 'silent', seed: false });
  const admin = (method: string, path: string, body?: unknown) =>
    fetch(`${stack.adminBaseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${stack.adminToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as { data: Record<string, unknown> } }));
  const deadline = Date.now() + 120_000;
  const pms = stack.pmsSimulator.control;

  const ws = await admin('POST', '/admin/v1/workspaces', { name: 'Sync bench', activeListingLimit: LISTINGS, rateLimits: DEMO_RATE_LIMITS });
  const workspaceId = ws.body.data.id as string;
  const key = (await admin('POST', `/admin/v1/workspaces/${workspaceId}/api-keys`, { mode: 'test' })).body.data.key as string;
  const api = (path: string) =>
    fetch(`${stack.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } }).then(
      (r) => r.json() as Promise<{ data: { name: string }[]; pagination: { total: number } }>,
    );

  await pms.createAccount('PMS-A', 'bench');
  const connection = await admin('POST', `/admin/v1/workspaces/${workspaceId}/connections`, { provider: 'PMS-A', accountId: 'bench', mode: 'test' });
  const connectionId = connection.body.data.id as string;

  // Changes made in the PMS: new listings, then repeated edits of each.
  for (let i = 0; i < LISTINGS; i++) await pms.putListing('PMS-A', 'bench', `L${i}`, { name: `Listing ${i} v0`, listed: true });
  for (let v = 1; v <= UPDATES_PER_LISTING; v++) {
    for (let i = 0; i < LISTINGS; i++) await pms.putListing('PMS-A', 'bench', `L${i}`, { name: `Listing ${i} v${v}` });
  }
  const changes = LISTINGS * (1 + UPDATES_PER_LISTING);

  const t0 = performance.now();
  const sync = await admin('POST', `/admin/v1/workspaces/${workspaceId}/connections/${connectionId}/sync`);
  if (sync.status !== 200) throw new Error(`sync answered ${sync.status}: ${JSON.stringify(sync.body)}`);
  // The call answers within its budget; a larger backlog keeps syncing in the background.
  const publishedByTheCall = sync.body.data.changesPublished as number;
  await stack.bus.whenIdle(Math.max(1000, deadline - Date.now()));
  const last = `Listing ${LISTINGS - 1} v${UPDATES_PER_LISTING}`;
  for (;;) {
    const page = await api(`/v1/listings?status=all&limit=200&offset=${Math.floor((LISTINGS - 1) / 200) * 200}`);
    if (page.pagination.total === LISTINGS && page.data.some((l) => l.name === last)) break;
    if (Date.now() > deadline) throw new Error('the changes were not applied within the time bound');
    await new Promise((r) => setImmediate(r));
  }
  const elapsedMs = performance.now() - t0;
  await stack.stop();

  console.log(
    JSON.stringify(
      {
        benchmark: 'PMS sync end to end: simulator -> pms-adapter -> pms.sync.v1 -> listing service -> API',
        changes,
        listings: LISTINGS,
        published_before_the_sync_call_answered: publishedByTheCall,
        end_to_end_ms: +elapsedMs.toFixed(1),
        changes_applied_per_second: Math.round(changes / (elapsedMs / 1000)),
      },
      null,
      2,
    ),
  );
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
