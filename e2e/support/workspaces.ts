// Black-box setup helpers: a workspace of its own made through the admin API, fed by a PMS
// account of the simulator (control API over HTTP). Listings arrive the way an integrator's do:
// the PMS holds them, the connection imports them.
import type { SimulatorControl } from '@vrp/pms-simulator';
import { eventually, type TestStack } from './stack';

export interface Workspace {
  id: string;
  key: string;
  api: TestStack['api'];
}

export interface ApiListing {
  id: string;
  name: string;
  status: string;
  pms?: { provider: string; externalId: string } | null;
}

/** The simulator's control API, over HTTP. */
export const simulatorOf = (t: TestStack): SimulatorControl => t.pms;

/** A new workspace with a test-mode key; `api` calls the API with that key. */
export async function newWorkspace(t: TestStack, name: string, activeListingLimit = 50): Promise<Workspace> {
  const ws = await t.admin<{ data: { id: string } }>('POST', '/admin/v1/workspaces', { name: `${name} ${Math.random()}`, activeListingLimit });
  if (ws.status !== 201) throw new Error(`workspace creation answered ${ws.status}`);
  const key = await t.admin<{ data: { key: string } }>('POST', `/admin/v1/workspaces/${ws.body.data.id}/api-keys`, { mode: 'test' });
  if (key.status !== 201) throw new Error(`key creation answered ${key.status}`);
  const secret = key.body.data.key;
  return { id: ws.body.data.id, key: secret, api: (method, path, body, opts = {}) => t.api(method, path, body, { key: secret, ...opts }) };
}

/** Connects the workspace (test mode) to a simulator account; returns the connection id. */
export async function connectPms(t: TestStack, workspaceId: string, provider: string, accountId: string): Promise<string> {
  const res = await t.admin<{ data: { id: string } }>('POST', `/admin/v1/workspaces/${workspaceId}/connections`, { provider, accountId, mode: 'test' });
  if (res.status !== 201) throw new Error(`connect answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data.id;
}

/** Syncs the demo workspace's PMS-A connection now (admin API); fails unless it answers 200. */
export async function syncDemoPms(t: TestStack): Promise<void> {
  const connections = await t.admin<{ data: { id: string; provider: string }[] }>('GET', `/admin/v1/workspaces/${t.workspaceId}/connections`);
  const connection = connections.body.data.find((c) => c.provider === 'PMS-A')!;
  const res = await syncNow(t, t.workspaceId, connection.id);
  if (res.status !== 200) throw new Error(`sync of the demo PMS-A connection answered ${res.status}: ${JSON.stringify(res.body)}`);
}

/** Syncs a connection now (the admin API's on-demand sync); returns the admin API's answer. */
export const syncNow = (t: TestStack, workspaceId: string, connectionId: string) =>
  t.admin<{ data: { changesPublished: number } }>('POST', `/admin/v1/workspaces/${workspaceId}/connections/${connectionId}/sync`);

/** Every listing of the workspace (active or not). */
export const listingsOf = async (w: Workspace): Promise<ApiListing[]> =>
  (await w.api<{ data: ApiListing[] }>('GET', '/v1/listings?status=all&limit=200')).body.data;

/**
 * A workspace connected to a fresh simulator account holding one listing per name; resolves
 * once every listing is imported, with the API ids by PMS id.
 */
export async function pmsWorkspace(
  t: TestStack,
  provider: string,
  listingNames: string[],
): Promise<Workspace & { account: string; connectionId: string; listings: Map<string, string> }> {
  const pms = simulatorOf(t);
  const w = await newWorkspace(t, `${provider} e2e`);
  const account = `acct-${w.id}`;
  await pms.createAccount(provider, account);
  for (const name of listingNames) await pms.putListing(provider, account, `${account}-${name}`, { name });
  const connectionId = await connectPms(t, w.id, provider, account);
  const listings = new Map<string, string>();
  await eventually(
    async () => {
      for (const l of await listingsOf(w)) if (l.pms) listings.set(l.pms.externalId, l.id);
      return listings.size === listingNames.length;
    },
    10_000,
    'the import of every listing',
  );
  return { ...w, account, connectionId, listings };
}

export interface ListingSpec {
  name: string;
  /** Managed in this PMS: the listing is created in a simulator account and imported by connecting it. */
  pmsProvider?: string;
  inactive?: boolean;
  /** A CHANNEL_A listing id mapped to it. */
  channelId?: string;
}

/** Creates a listing no PMS manages through the admin API (test mode); returns its id. */
export async function createListing(
  t: TestStack,
  workspaceId: string,
  spec: Omit<ListingSpec, 'pmsProvider'>,
  prices = { defaultNightlyPrice: 100, cleaningFee: 50, taxRate: 0.1 },
): Promise<string> {
  const res = await t.admin<{ data: { id: string } }>('POST', `/admin/v1/workspaces/${workspaceId}/listings`, {
    mode: 'test',
    name: spec.name,
    currency: 'EUR',
    ...prices,
    channels: spec.channelId ? [{ channel: 'CHANNEL_A', externalId: spec.channelId }] : [],
    active: !spec.inactive,
  });
  if (res.status !== 201) throw new Error(`listing creation answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data.id;
}

/**
 * A workspace of its own with the listings asked for, in order: plain ones through the admin
 * API, PMS-managed ones imported from a simulator account of their PMS (PMS id `ext-<name>`).
 */
export async function listingWorkspace(
  t: TestStack,
  specs: ListingSpec[],
  activeListingLimit = 50,
): Promise<Workspace & { ids: string[]; connections: Map<string, string>; account: string }> {
  const w = await newWorkspace(t, 'Listings e2e', activeListingLimit);
  const pms = simulatorOf(t);
  const account = `acct-${w.id}`;
  const ids: (string | undefined)[] = [];
  const byProvider = new Map<string, ListingSpec[]>();
  for (const spec of specs) {
    if (spec.pmsProvider) byProvider.set(spec.pmsProvider, [...(byProvider.get(spec.pmsProvider) ?? []), spec]);
    ids.push(spec.pmsProvider ? undefined : await createListing(t, w.id, spec));
  }
  const connections = new Map<string, string>();
  for (const [provider, listings] of byProvider) {
    await pms.createAccount(provider, account);
    for (const l of listings) await pms.putListing(provider, account, `ext-${l.name}`, { name: l.name });
    connections.set(provider, await connectPms(t, w.id, provider, account));
  }
  if (byProvider.size > 0) {
    await eventually(
      async () => {
        const imported = new Map((await listingsOf(w)).filter((l) => l.pms).map((l) => [l.pms!.externalId, l.id]));
        specs.forEach((s, i) => {
          if (s.pmsProvider) ids[i] = imported.get(`ext-${s.name}`);
        });
        return ids.every(Boolean);
      },
      10_000,
      'the import of every PMS listing',
    );
  }
  return { ...w, ids: ids as string[], connections, account };
}
