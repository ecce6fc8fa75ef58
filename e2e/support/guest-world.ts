// Helpers of the guest-side e2e tests, black box: a workspace of its own whose listings come from
// the simulated PMSs (one account per world, connected through the admin API and imported), data
// arriving the way a PMS receives it from channels (guest messages, reviews, requests and
// inquiries, created through the simulator's control API) and brought in by a sync (admin API),
// and the writes the PMS received (the simulator's request log), which prove that a refused write
// sent nothing. The embedded stack has no API to create a listing outside a PMS, so a listing
// given no PMS here is managed in PMS-A, whose API performs every write these tests relay.
import type { SimulatorControl } from '@vrp/pms-simulator';
import { eventually, type ApiResponse, type TestStack } from './stack';

export interface World {
  /** The workspace (admin API id). */
  workspaceId: string;
  key: string;
  /** The simulator account of every PMS of this world. */
  account: string;
  /** Listing ids by the name given. */
  listings: Record<string, string>;
  /** The PMS and PMS listing id of each listing, by the name given. */
  pmsOf: Record<string, { provider: string; externalId: string }>;
  /** Connection ids by provider. */
  connections: Record<string, string>;
  api<T = unknown>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>>;
}

export function simulator(t: TestStack): SimulatorControl {
  return t.pms;
}

let worlds = 0;

export async function newWorld(t: TestStack, listings: { name: string; provider?: string }[]): Promise<World> {
  const ws = await t.admin<{ data: { id: string } }>('POST', '/admin/v1/workspaces', { name: `Guests ${++worlds} ${Date.now()}`, activeListingLimit: 20 });
  const workspaceId = ws.body.data.id;
  const key = (await t.admin<{ data: { key: string } }>('POST', `/admin/v1/workspaces/${workspaceId}/api-keys`, { mode: 'test' })).body.data.key;
  const account = `acct-${workspaceId}`;
  const pms = simulator(t);
  const pmsOf: World['pmsOf'] = {};
  for (const l of listings) pmsOf[l.name] = { provider: l.provider ?? 'PMS-A', externalId: `pms-${l.name}` };
  const connections: Record<string, string> = {};
  for (const provider of new Set(Object.values(pmsOf).map((p) => p.provider))) {
    await pms.createAccount(provider, account);
    for (const [name, p] of Object.entries(pmsOf)) if (p.provider === provider) await pms.putListing(provider, account, p.externalId, { name, listed: true });
    const res = await t.admin<{ data: { id: string } }>('POST', `/admin/v1/workspaces/${workspaceId}/connections`, {
      provider,
      accountId: account,
      mode: 'test',
    });
    if (res.status !== 201) throw new Error(`connect ${provider}: ${res.status} ${JSON.stringify(res.body)}`);
    connections[provider] = res.body.data.id;
  }
  const api: World['api'] = (method, path, body, headers) => t.api(method, path, body, { key, ...(headers ? { headers } : {}) });
  const ids: Record<string, string> = {};
  await eventually(
    async () => {
      const page = await api<{ data: { id: string; name: string }[] }>('GET', '/v1/listings?status=all&limit=200');
      for (const l of page.body.data) ids[l.name] = l.id;
      return listings.every((l) => ids[l.name]);
    },
    10_000,
    'the world’s listings to be imported',
  );
  return { workspaceId, key, account, listings: ids, pmsOf, connections, api };
}

/** Pulls the PMS's changes now (admin API), then waits until `applied` holds. */
export async function syncUntil(t: TestStack, w: World, provider: string, applied: () => Promise<boolean>, what: string): Promise<void> {
  const res = await t.admin('POST', `/admin/v1/workspaces/${w.workspaceId}/connections/${w.connections[provider]}/sync`);
  if (res.status !== 200) throw new Error(`sync ${provider}: ${res.status} ${JSON.stringify(res.body)}`);
  await eventually(applied, 10_000, what);
}

interface Page<T> {
  data: T[];
  pagination: { total: number };
}

let night = 0;
/** A reservation over HTTP; waits for the guest service to open its conversation (the reservation event reached it). */
export async function reserve(w: World, listingId: string, primaryGuest: Record<string, string>): Promise<string> {
  night += 3;
  const checkIn = new Date(Date.UTC(2031, 0, 1 + night)).toISOString().slice(0, 10);
  const checkOut = new Date(Date.UTC(2031, 0, 3 + night)).toISOString().slice(0, 10);
  const res = await w.api<{ data: { id: string } }>('POST', '/v1/reservations', { propertyId: listingId, checkIn, checkOut, primaryGuest });
  if (res.status !== 201) throw new Error(`reservation not created: ${res.status} ${JSON.stringify(res.body)}`);
  const id = res.body.data.id;
  await eventually(
    async () => (await w.api<Page<unknown>>('GET', `/v1/conversations?reservation_id=${id}`)).body.data.length === 1,
    10_000,
    'the reservation’s conversation',
  );
  return id;
}

let serial = 0;
const nextId = (prefix: string) => `${prefix}-${++serial}-${Date.now()}`;

/**
 * A guest writes a message on a channel into a new thread of the listing's PMS; after the sync,
 * the conversation it opened in the API (the one new conversation of the listing).
 */
export async function guestWrites(
  t: TestStack,
  w: World,
  listing: string,
  text: string,
  attachments: { url: string; filename?: string; mime_type?: string }[] = [],
): Promise<{ id: string; messageCount: number }> {
  const { provider, externalId } = w.pmsOf[listing]!;
  const listingId = w.listings[listing]!;
  const list = async () => (await w.api<Page<{ id: string; messageCount: number }>>('GET', `/v1/conversations?property_id=${listingId}&limit=200`)).body.data;
  const before = new Set((await list()).map((c) => c.id));
  await simulator(t).receiveMessage(provider, w.account, nextId('msg'), { listing_id: externalId, thread_id: nextId('thread'), text, attachments });
  let found: { id: string; messageCount: number } | undefined;
  await syncUntil(t, w, provider, async () => (found = (await list()).find((c) => !before.has(c.id))) !== undefined, 'the guest message’s conversation');
  return found!;
}

/** A channel posts a review of the listing in its PMS; after the sync, the review in the API. */
export async function reviewArrives<T extends { id: string }>(
  t: TestStack,
  w: World,
  listing: string,
  review: { stars: number; text: string; reviewer_name?: string },
  id = nextId('rev'),
): Promise<T> {
  const { provider, externalId } = w.pmsOf[listing]!;
  await simulator(t).putReview(provider, w.account, id, { listing_id: externalId, ...review });
  let found: T | undefined;
  await syncUntil(
    t,
    w,
    provider,
    async () =>
      (found = (await w.api<Page<T & { body: string; rating: number }>>('GET', `/v1/reviews?property_id=${w.listings[listing]}&limit=200`)).body.data.find(
        (r) => r.body === review.text && r.rating === review.stars,
      )) !== undefined,
    'the review',
  );
  return found!;
}

/** A booking request or an inquiry reaches the listing's PMS from a channel; after the sync, it in the API. */
export async function requestArrives<T extends { id: string }>(
  t: TestStack,
  w: World,
  listing: string,
  kind: 'request' | 'inquiry',
  stay: { arrival: string; departure: string; first_name: string },
): Promise<T> {
  const { provider, externalId } = w.pmsOf[listing]!;
  const id = nextId(kind);
  await simulator(t).putRequest(provider, w.account, id, {
    listing_id: externalId,
    kind,
    arrival: stay.arrival,
    departure: stay.departure,
    guest_count: 2,
    guest: { first_name: stay.first_name },
  });
  let found: T | undefined;
  await syncUntil(
    t,
    w,
    provider,
    async () =>
      (found = (
        await w.api<Page<T & { kind: string; checkIn: string; guestName: string }>>(
          'GET',
          `/v1/requests?property_id=${w.listings[listing]}&kind=${kind}&limit=200`,
        )
      ).body.data.find((r) => r.checkIn === stay.arrival && r.guestName.startsWith(stay.first_name))) !== undefined,
    `the ${kind}`,
  );
  return found!;
}

/** Writes (anything but reads) the world's PMS account received so far, from the simulator's request log. */
export async function pmsWrites(t: TestStack, w: World): Promise<{ method: string; path: string }[]> {
  return (await simulator(t).requests({ account: w.account })).filter((r) => r.method !== 'GET').map((r) => ({ method: r.method, path: r.path }));
}
