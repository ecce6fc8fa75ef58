// Helpers of the guest-side e2e tests: a workspace of its own with listings (some managed in a
// PMS), reservations made over HTTP, PMS-side changes published on pms.sync.v1 the way the
// pms-adapter publishes them, and the number of writes relayed to the pms-adapter (read from
// the gateway's /metrics), which proves that a refused write sent nothing.
import { listing as listingPb, pmsSync, TOPICS } from '@vrp/contracts';
import { createUpstream, dataWorkspaceId, newId } from '@vrp/platform';
import type { ApiResponse, TestStack } from './stack';

export interface World {
  /** The workspace's test-mode data workspace: what its test key, the services and the bus see. */
  workspaceId: string;
  key: string;
  /** Listing ids by the name given. */
  listings: Record<string, string>;
  api<T = unknown>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>>;
}

export async function newWorld(t: TestStack, listings: { name: string; provider?: string }[]): Promise<World> {
  const ws = await t.admin<{ data: { id: string } }>('POST', '/admin/v1/workspaces', { name: `Guests ${newId('ws')}`, activeListingLimit: 20 });
  const key = await t.admin<{ data: { key: string } }>('POST', `/admin/v1/workspaces/${ws.body.data.id}/api-keys`, { mode: 'test' });
  // PMS-managed listings arrive by import from a PMS; with no PMS to import from in the
  // embedded stack, they are created through the listing service as the import does.
  const client = createUpstream(listingPb.ListingServiceClient, { name: 'listing-e2e', address: `127.0.0.1:${t.stack.services.listing.grpcPort}` });
  const ids: Record<string, string> = {};
  for (const l of listings) {
    const { listing } = await client.call('createListing', {
      workspaceId: dataWorkspaceId(ws.body.data.id, 'test'),
      listing: listingPb.Listing.create({ name: l.name, pmsProvider: l.provider ?? '', pmsExternalId: l.provider ? `pms-${l.name}` : '' }),
      inactive: false,
    });
    ids[l.name] = listing!.id;
  }
  client.close();
  return {
    workspaceId: dataWorkspaceId(ws.body.data.id, 'test'),
    key: key.body.data.key,
    listings: ids,
    api: (method, path, body, headers) => t.api(method, path, body, { key: key.body.data.key, ...(headers ? { headers } : {}) }),
  };
}

let night = 0;
/** A reservation over HTTP; its event reaches the guest service through the bus. */
export async function reserve(t: TestStack, w: World, listingId: string, primaryGuest: Record<string, string>): Promise<string> {
  night += 3;
  const checkIn = new Date(Date.UTC(2031, 0, 1 + night)).toISOString().slice(0, 10);
  const checkOut = new Date(Date.UTC(2031, 0, 3 + night)).toISOString().slice(0, 10);
  const res = await w.api<{ data: { id: string } }>('POST', '/v1/reservations', { propertyId: listingId, checkIn, checkOut, primaryGuest });
  if (res.status !== 201) throw new Error(`reservation not created: ${res.status} ${JSON.stringify(res.body)}`);
  await t.stack.bus.whenIdle();
  return res.body.data.id;
}

/** A change read from a PMS, published on pms.sync.v1 as the pms-adapter does. */
export async function pmsChange(t: TestStack, w: World, provider: string, entity: string, payload: { externalId: string } & Record<string, unknown>): Promise<void> {
  const change = pmsSync.PmsSyncChange.create({
    changeId: newId('chg'),
    workspaceId: w.workspaceId,
    connectionId: 'con_e2e',
    provider,
    entity,
    externalId: payload.externalId,
    listingExternalId: '',
    ...({ [entity]: payload } as Partial<pmsSync.PmsSyncChange>),
    occurredAt: new Date(),
  });
  await t.stack.bus.publish(TOPICS.pmsSync.name, [{ key: payload.externalId, value: pmsSync.PmsSyncChange.encode(change).finish() }]);
  await t.stack.bus.whenIdle();
}

/** Calls made to the pms-adapter's RelayWrite so far (any outcome), from the gateway's /metrics. */
export async function relayedWrites(t: TestStack): Promise<number> {
  const text = await (await fetch(`${t.baseUrl}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('vrp_grpc_client_call_seconds_count{') && line.includes('upstream="pms-adapter"') && line.includes('method="relayWrite"')) total += Number(line.split(' ').at(-1));
  }
  return total;
}
