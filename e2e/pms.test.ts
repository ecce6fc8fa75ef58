// PMS adapter end to end over HTTP: the capability matrix through the gateway, connecting and
// importing, disconnecting, sync of changes made in the PMS, refused writes that send nothing,
// and a PMS outage (breaker open, fast envelope, recovery). The PMS is the stack's simulator,
// driven through its own HTTP control API. The expectations are written from the contract (docs/pms.md),
// not read from the capability matrix the services use, so a wrong matrix entry fails here.
import type { SimulatorControl } from '@vrp/pms-simulator';
import { E2E_REPLICAS, eventually, startTestStack, type ErrorBody, type TestStack } from './support/stack';
import { simulatorOf } from './support/workspaces';

const PROVIDERS = ['PMS-A', 'PMS-B', 'PMS-C', 'PMS-D', 'PMS-E', 'PMS-F', 'PMS-G'] as const;
type Provider = (typeof PROVIDERS)[number];
const CONTENT_SECTIONS = ['description', 'amenities', 'house_rules', 'house_rule_switches', 'rooms', 'translations'] as const;
type Section = (typeof CONTENT_SECTIONS)[number];

/** What each PMS's API cannot do (the flags the contract states; others are not asserted). */
const REFUSES = {
  cancel: ['PMS-A'],
  quote: ['PMS-C', 'PMS-D', 'PMS-E'],
  reviewReplies: ['PMS-F'],
  requestAnswers: ['PMS-F'],
  preApprovals: ['PMS-F'],
  guests: ['PMS-F'],
  messageAttachments: ['PMS-F', 'PMS-G'],
} as const;
/** House-rule switches on PMS-F; bedroom/bathroom/bed counts and non-default-language text on PMS-G. */
const refusesSection = (provider: Provider, section: Section): boolean =>
  (provider === 'PMS-F' && section === 'house_rule_switches') || (provider === 'PMS-G' && (section === 'rooms' || section === 'translations'));

interface Listing {
  id: string;
  name: string;
  status: string;
  pms?: { provider: string; externalId: string } | null;
  capabilities?: { reservations: Record<string, unknown>; pms: Record<string, unknown> };
}
interface Connection {
  id: string;
  provider: string;
  accountId: string;
  status: string;
  importedListingExternalIds?: string[];
  deactivatedListingIds?: string[];
}

/** A value of each content section that passes validation. */
const SECTION_VALUES: Record<Section, unknown> = {
  description: 'Bright flat by the river.',
  amenities: ['wifi', 'kitchen'],
  house_rules: 'No parties.',
  house_rule_switches: { petsAllowed: false },
  rooms: { bedrooms: 2, bathrooms: 1, beds: 3 },
  translations: { fr: { description: 'Appartement lumineux.' } },
};

describe('PMS adapter, end to end over HTTP', () => {
  let t: TestStack;
  let pms: SimulatorControl;

  /** A fresh workspace and key, so each scenario owns its listings. */
  async function workspace(limit = 20): Promise<{ id: string; api: TestStack['api'] }> {
    const ws = await t.admin<{ data: { id: string } }>('POST', '/admin/v1/workspaces', { name: `PMS e2e ${Math.random()}`, activeListingLimit: limit });
    const key = await t.admin<{ data: { key: string } }>('POST', `/admin/v1/workspaces/${ws.body.data.id}/api-keys`, { mode: 'test' });
    return { id: ws.body.data.id, api: (method, path, body, opts = {}) => t.api(method, path, body, { key: key.body.data.key, ...opts }) };
  }

  async function connect(workspaceId: string, provider: string, accountId: string) {
    const res = await t.admin<{ data: Connection }>('POST', `/admin/v1/workspaces/${workspaceId}/connections`, { provider, accountId, mode: 'test' });
    expect(res.status).toBe(201);
    return res.body.data;
  }

  async function listingsOf(api: TestStack['api']): Promise<Listing[]> {
    return (await api<{ data: Listing[] }>('GET', '/v1/listings?status=all&limit=200')).body.data;
  }

  /** Waits for the import of `count` listings to be applied by the listing service. */
  async function imported(api: TestStack['api'], count: number): Promise<Listing[]> {
    let found: Listing[] = [];
    await eventually(async () => (found = await listingsOf(api)).length === count, 5000, `${count} imported listings`);
    return found;
  }

  beforeAll(async () => {
    t = await startTestStack();
    pms = simulatorOf(t);
  });
  afterAll(async () => {
    await t.stop();
  });
  beforeEach(async () => {
    await pms.clearFaults();
  });

  it('GET /v1/connect/{provider} states what each PMS cannot do as the contract says; an unknown PMS is 404', async () => {
    for (const provider of PROVIDERS) {
      const res = await t.api<{ data: { provider: string; capabilities: { reservations: Record<string, unknown>; pms: Record<string, unknown> } } }>(
        'GET',
        `/v1/connect/${provider}`,
      );
      expect(res.status).toBe(200);
      const { reservations, pms: caps } = res.body.data.capabilities;
      expect([res.body.data.provider, reservations.provider, caps.provider]).toEqual([provider, provider, provider]);
      const stated = {
        cancel: reservations.cancel,
        quote: reservations.quote,
        reviewReplies: caps.reviewReplies,
        requestAnswers: caps.requestAnswers,
        preApprovals: caps.preApprovals,
        guests: caps.guests,
        messageAttachments: caps.messageAttachments,
      };
      const expected = Object.fromEntries(Object.entries(REFUSES).map(([flag, refusing]) => [flag, !(refusing as readonly string[]).includes(provider)]));
      expect({ provider, ...stated }).toEqual({ provider, ...expected });
      expect({ provider, sections: caps.contentSections }).toEqual({ provider, sections: CONTENT_SECTIONS.filter((s) => !refusesSection(provider, s)) });
    }
    expect((await t.api('GET', '/v1/connect/pms-b')).status).toBe(200);
    const unknown = await t.api<ErrorBody>('GET', '/v1/connect/PMS-Z');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
    expect((await t.api<ErrorBody>('GET', '/v1/connect/PMS-A', undefined, { key: null })).status).toBe(401);
  });

  it('walks the matrix through the gateway: listing capabilities, and every content write each PMS refuses sends nothing', async () => {
    for (const provider of PROVIDERS) {
      const ws = await workspace();
      const account = `walk-${provider.toLowerCase()}`;
      await pms.createAccount(provider, account);
      await pms.putListing(provider, account, 'home', { name: `${provider} home` });
      await connect(ws.id, provider, account);
      const [listing] = await imported(ws.api, 1);
      const one = await ws.api<{ data: Listing }>('GET', `/v1/listings/${listing!.id}`);
      expect(one.body.data.capabilities).toEqual((await t.api<{ data: { capabilities: unknown } }>('GET', `/v1/connect/${provider}`)).body.data.capabilities);
      expect(one.body.data.pms).toEqual({ provider, externalId: 'home' });

      for (const section of CONTENT_SECTIONS) {
        await pms.clearRequests();
        const res = await ws.api<ErrorBody & { data?: unknown }>('PUT', `/v1/listings/${listing!.id}/content`, {
          sections: { [section]: SECTION_VALUES[section] },
        });
        const sent = await pms.requests({ provider, account });
        if (!refusesSection(provider, section)) {
          expect([provider, section, res.status]).toEqual([provider, section, 200]);
          expect(sent.map((r) => [r.method, r.path])).toEqual([['PUT', `/${provider.toLowerCase()}/v1/accounts/${account}/listings/home/content/${section}`]]);
        } else {
          expect([provider, section, res.status, res.body.error.code, res.body.error.provider]).toEqual([
            provider,
            section,
            422,
            'pms_write_unsupported',
            provider,
          ]);
          expect(res.body.error.fix).toContain(provider);
          expect(sent).toEqual([]); // nothing reached the PMS
        }
      }
    }
  });

  it('connecting imports the account’s listings (unlisted ones inactive); disconnecting deactivates them', async () => {
    const ws = await workspace();
    await pms.createAccount('PMS-C', 'coast');
    await pms.putListing('PMS-C', 'coast', 'c1', { name: 'Coast House', listed: true, channels: [{ channel: 'CHANNEL_B', listing_id: 'chb-coast-1' }] });
    await pms.putListing('PMS-C', 'coast', 'c2', { name: 'Unlisted Hut', listed: false });
    const connection = await connect(ws.id, 'pms-c', 'coast');
    expect(connection).toMatchObject({ provider: 'PMS-C', accountId: 'coast', status: 'connected' });
    expect(connection.importedListingExternalIds?.sort()).toEqual(['c1', 'c2']);
    const all = await imported(ws.api, 2);
    const house = all.find((l) => l.name === 'Coast House')!;
    const hut = all.find((l) => l.name === 'Unlisted Hut')!;
    expect(house.status).toBe('active');
    expect(hut.status).toBe('inactive');
    // The import mapped the channel id: the listing answers to it.
    expect((await ws.api<{ data: Listing }>('GET', '/v1/listings/chb-coast-1')).body.data.id).toBe(house.id);
    const inactive = await ws.api<ErrorBody>('GET', `/v1/listings/${hut.id}`);
    expect([inactive.status, inactive.body.error.code]).toEqual([403, 'listing_inactive']);

    const listed = await t.admin<{ data: Connection[] }>('GET', `/admin/v1/workspaces/${ws.id}/connections`);
    expect(listed.body.data.map((c) => c.id)).toEqual([connection.id]);

    const off = await t.admin<{ data: Connection }>('DELETE', `/admin/v1/workspaces/${ws.id}/connections/${connection.id}`);
    expect(off.status).toBe(200);
    expect(off.body.data).toMatchObject({ status: 'disconnected', deactivatedListingIds: [house.id] });
    expect((await listingsOf(ws.api)).map((l) => l.status)).toEqual(['inactive', 'inactive']);
    const sync = await t.admin<ErrorBody>('POST', `/admin/v1/workspaces/${ws.id}/connections/${connection.id}/sync`);
    expect([sync.status, sync.body.error.code]).toEqual([409, 'conflict']);
  });

  it('disconnecting one account leaves the listings of another account of the same PMS active', async () => {
    const ws = await workspace();
    await pms.createAccount('PMS-C', 'north');
    await pms.createAccount('PMS-C', 'south');
    await pms.putListing('PMS-C', 'north', 'n1', { name: 'North Lodge', listed: true });
    await pms.putListing('PMS-C', 'south', 's1', { name: 'South Villa', listed: true });
    const north = await connect(ws.id, 'PMS-C', 'north');
    await connect(ws.id, 'PMS-C', 'south');
    const all = await imported(ws.api, 2);
    const lodge = all.find((l) => l.name === 'North Lodge')!;
    const villa = all.find((l) => l.name === 'South Villa')!;

    const off = await t.admin<{ data: Connection }>('DELETE', `/admin/v1/workspaces/${ws.id}/connections/${north.id}`);
    expect(off.status).toBe(200);
    expect(off.body.data).toMatchObject({ status: 'disconnected', deactivatedListingIds: [lodge.id] });
    const after = await listingsOf(ws.api);
    expect(after.find((l) => l.id === lodge.id)?.status).toBe('inactive');
    expect(after.find((l) => l.id === villa.id)?.status).toBe('active');
  });

  it('refuses bad connection requests with clear envelopes', async () => {
    const ws = await workspace();
    const bad = await t.admin<ErrorBody>('POST', `/admin/v1/workspaces/${ws.id}/connections`, { provider: 'PMS-Q', accountId: '' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');
    expect(Object.keys(bad.body.error.fields ?? {}).sort()).toEqual(['accountId', 'mode', 'provider']);
    const noAccount = await t.admin<ErrorBody>('POST', `/admin/v1/workspaces/${ws.id}/connections`, {
      provider: 'PMS-A',
      accountId: 'nobody-here',
      mode: 'test',
    });
    expect([noAccount.status, noAccount.body.error.code]).toEqual([404, 'not_found']);
    const noWorkspace = await t.admin<ErrorBody>('POST', '/admin/v1/workspaces/ws_nope/connections', { provider: 'PMS-A', accountId: 'x', mode: 'test' });
    expect([noWorkspace.status, noWorkspace.body.error.code]).toEqual([404, 'not_found']);
    const otherWs = await workspace();
    const theirs = await connect(otherWs.id, 'PMS-D', (await pms.createAccount('PMS-D', 'delta')).accountId);
    const cross = await t.admin<ErrorBody>('DELETE', `/admin/v1/workspaces/${ws.id}/connections/${theirs.id}`);
    expect([cross.status, cross.body.error.code]).toEqual([404, 'not_found']);
  });

  it('a change made in the PMS reaches the API with the next sync, also on an inactive listing', async () => {
    const ws = await workspace();
    await pms.createAccount('PMS-B', 'bay');
    await pms.putListing('PMS-B', 'bay', 'b1', { name: 'Bay Loft', bedrooms: 1 });
    const connection = await connect(ws.id, 'PMS-B', 'bay');
    const [loft] = await imported(ws.api, 1);
    expect((await ws.api('PATCH', `/v1/listings/${loft!.id}`, { active: false })).status).toBe(200);

    await pms.putListing('PMS-B', 'bay', 'b1', { name: 'Bay Loft XL', bedrooms: 3 });
    const sync = await t.admin<{ data: { changesPublished: number } }>('POST', `/admin/v1/workspaces/${ws.id}/connections/${connection.id}/sync`);
    expect(sync.body.data.changesPublished).toBe(1);
    await eventually(async () => (await listingsOf(ws.api))[0]!.name === 'Bay Loft XL', 5000, 'the PMS change to be applied');
    // Activate to read every field: the data kept syncing while inactive.
    expect((await ws.api('PATCH', `/v1/listings/${loft!.id}`, { active: true })).status).toBe(200);
    expect((await ws.api<{ data: { bedrooms: number } }>('GET', `/v1/listings/${loft!.id}`)).body.data.bedrooms).toBe(3);
  });

  it('a reservation made in the PMS appears through the API after a sync', async () => {
    const ws = await workspace();
    await pms.createAccount('PMS-D', 'dune');
    await pms.putListing('PMS-D', 'dune', 'd1', { name: 'Dune House' });
    const connection = await connect(ws.id, 'PMS-D', 'dune');
    const [house] = await imported(ws.api, 1);
    await pms.putReservation('PMS-D', 'dune', 'res-77', {
      listing_id: 'd1',
      arrival: '2032-07-01',
      departure: '2032-07-05',
      guest: { first_name: 'Lia', last_name: 'Moss' },
      adults: 2,
    });
    await t.admin('POST', `/admin/v1/workspaces/${ws.id}/connections/${connection.id}/sync`);
    type Page = { data: { propertyId: string; checkIn: string; checkOut: string; status: string; primaryGuest: { firstName: string } }[] };
    let page: Page = { data: [] };
    await eventually(
      async () => (page = (await ws.api<Page>('GET', `/v1/reservations?property_id=${house!.id}`)).body).data?.length === 1,
      5000,
      'the synced reservation',
    );
    expect(page.data[0]).toMatchObject({
      propertyId: house!.id,
      checkIn: '2032-07-01',
      checkOut: '2032-07-05',
      status: 'CONFIRMED',
      primaryGuest: { firstName: 'Lia' },
    });

    await pms.putReservation('PMS-D', 'dune', 'res-77', { status: 'cancelled' });
    await t.admin('POST', `/admin/v1/workspaces/${ws.id}/connections/${connection.id}/sync`);
    await eventually(
      async () => (await ws.api<Page>('GET', `/v1/reservations?property_id=${house!.id}`)).body.data[0]?.status === 'CANCELLED',
      5000,
      'the cancellation',
    );
  });

  it('a PMS outage opens the breaker: the API answers fast with an envelope, stores nothing, then recovers', async () => {
    const ws = await workspace();
    await pms.createAccount('PMS-E', 'east');
    await pms.putListing('PMS-E', 'east', 'e1', { name: 'East Villa' });
    await connect(ws.id, 'PMS-E', 'east');
    const [villa] = await imported(ws.api, 1);
    const put = (text: string) => ws.api<ErrorBody>('PUT', `/v1/listings/${villa!.id}/content`, { sections: { description: text } });

    await pms.setFault('PMS-E', { mode: 'fail', status: 503 });
    // Every PMS adapter instance has its own breaker, and the calls are balanced over them: until
    // 2 x E2E_REPLICAS calls in a row fail fast, some instance's breaker may still be closed (each
    // listing instance alternates between the adapter instances, so such a run reaches every one).
    const allOpen = 2 * E2E_REPLICAS;
    const statuses: number[] = [];
    for (let i = 0; i < 24 && !(statuses.length >= allOpen && statuses.slice(-allOpen).every((s) => s === 503)); i++) {
      const res = await put(`attempt ${i}`);
      statuses.push(res.status);
      expect(['pms_unavailable', 'service_unavailable']).toContain(res.body.error.code);
    }
    expect(statuses[0]).toBe(502);
    expect(statuses.slice(-allOpen)).toEqual(Array(allOpen).fill(503));
    await pms.clearRequests();
    const started = performance.now();
    const fast = await put('while open');
    expect(performance.now() - started).toBeLessThan(200);
    expect(fast.status).toBe(503);
    expect(fast.body.error.code).toBe('service_unavailable');
    expect(Number(fast.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await pms.requests({ provider: 'PMS-E' })).toEqual([]);
    // The local record was left as it was.
    expect(
      (await ws.api<{ data: { sections: Record<string, unknown> } }>('GET', `/v1/listings/${villa!.id}/content`)).body.data.sections.description,
    ).toBeUndefined();

    await pms.clearFaults();
    await eventually(async () => (await put('after recovery')).status === 200, 15_000, 'the PMS breaker to close again');
    const content = await ws.api<{ data: { sections: Record<string, unknown> } }>('GET', `/v1/listings/${villa!.id}/content`);
    expect(content.body.data.sections.description).toBe('after recovery');
  });
});
