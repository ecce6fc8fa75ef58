// The TypeScript SDK (sdk/typescript) against the running stack, black box over HTTP: auth,
// generated Idempotency-Keys, typed errors, read-modify-write with ETag/If-Match, pagination of
// every collection and verification of real webhook deliveries.
import {
  DatesUnavailableError,
  ListingInactiveError,
  NotFoundError,
  PmsWriteUnsupportedError,
  ValidationFailedError,
  Vrp,
  VrpApiError,
  WebhookVerificationError,
  type CollectionPath,
} from '@vrp/sdk';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { newWorld } from './support/guest-world';
import { eventually, startTestStack, type TestStack } from './support/stack';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver';

describe('TypeScript SDK against the stack', () => {
  let t: TestStack;
  let vrp: Vrp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    t = await startTestStack();
    receiver = await startWebhookReceiver();
    vrp = new Vrp({ baseUrl: t.baseUrl, apiKey: t.apiKey, workspaceId: t.workspaceId });
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.stop();
  });

  it('authenticates with the key and the workspace header; another workspace is a typed 403', async () => {
    const listing = await vrp.get('/v1/listings/{id}', { params: { path: { id: t.demoListingIds[0]! } } });
    expect(listing.data.name).toBe('Sea View Apartment');
    const other = new Vrp({ baseUrl: t.baseUrl, apiKey: t.apiKey, workspaceId: 'ws_someoneelse' });
    await expect(other.get('/v1/listings')).rejects.toMatchObject({ status: 403, code: 'workspace_mismatch' });
  });

  it('throws ListingInactiveError carrying the inactive listings', async () => {
    const cabin = t.demoListingIds[2]!;
    const err = await vrp
      .get('/v1/listings/{id}/calendar', { params: { path: { id: cabin }, query: { from: '2031-01-01', to: '2031-01-03' } } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ListingInactiveError);
    const inactive = err as ListingInactiveError;
    expect([inactive.status, inactive.listingIds, inactive.listings]).toEqual([403, [cabin], [{ id: cabin, name: 'Mountain Cabin' }]]);
    expect(inactive.docsUrl).toContain('/docs/errors/listing_inactive');
  });

  it('throws PmsWriteUnsupportedError carrying the provider, ValidationFailedError its fields, NotFoundError', async () => {
    const world = await newWorld(t, [{ name: 'Fjord House', provider: 'PMS-G' }]);
    const client = new Vrp({ baseUrl: t.baseUrl, apiKey: world.key });
    const err = await client
      .put('/v1/listings/{id}/content', {
        params: { path: { id: world.listings['Fjord House']! } },
        body: { sections: { rooms: { bedrooms: 2, bathrooms: 1, beds: 2 } } },
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PmsWriteUnsupportedError);
    expect((err as PmsWriteUnsupportedError).provider).toBe('PMS-G');
    const invalid = await vrp.get('/v1/listings', { params: { query: { limit: 500 } } }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(ValidationFailedError);
    expect((invalid as ValidationFailedError).fields).toHaveProperty('limit');
    await expect(vrp.get('/v1/guests/{id}', { params: { path: { id: 'gst_nothere' } } })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('sends an Idempotency-Key with every POST: a given key replays the first outcome, a generated one creates anew', async () => {
    const body = { propertyId: t.demoListingIds[1]!, checkIn: '2031-03-01', checkOut: '2031-03-03', primaryGuest: { firstName: 'Ida' } };
    const headers = { 'Idempotency-Key': `sdk-${Date.now()}` };
    const first = await vrp.post('/v1/reservations', { body, headers });
    const again = await vrp.post('/v1/reservations', { body, headers });
    expect(again.data.id).toBe(first.data.id);
    expect(first.data.primaryGuest).toMatchObject({ firstName: 'Ida', email: null, phone: null, language: null });
    // Without a given key the SDK generates one per call: the second booking of the nights is refused.
    const taken = await vrp.post('/v1/reservations', { body }).catch((e: unknown) => e);
    expect(taken).toBeInstanceOf(DatesUnavailableError);
    expect((taken as DatesUnavailableError).conflicts.map((c) => c.date)).toEqual(['2031-03-01', '2031-03-02']);
  });

  it('update() reads, changes and writes with If-Match, reading again when someone changed the record in between', async () => {
    const guest = await vrp.post('/v1/guests', { body: { firstName: 'Hana', lastName: 'Old' } });
    let interfered = false;
    const updated = await vrp.update('/v1/guests/{id}', { params: { path: { id: guest.data.id } } }, async (current) => {
      if (!interfered) {
        interfered = true;
        // Another writer changes the guest after this read: the PATCH with the stale ETag gets 412.
        expect((await t.api('PATCH', `/v1/guests/${guest.data.id}`, { language: 'fr' })).status).toBe(200);
      }
      return { lastName: `${current.lastName}-New` };
    });
    expect(updated).toMatchObject({ lastName: 'Old-New', language: 'fr' });
    expect(updated.version).toBe(guest.data.version + 2);
  });

  it('iterates every paginated collection to its end', async () => {
    for (let i = 0; i < 5; i++) await vrp.post('/v1/guests', { body: { firstName: `Pager${i}` } });
    const names: string[] = [];
    for await (const g of vrp.paginate('/v1/guests', { params: { query: { search: 'pager', limit: 2 } } })) names.push(g.firstName);
    expect(names.sort()).toEqual(['Pager0', 'Pager1', 'Pager2', 'Pager3', 'Pager4']);
    // Every collection of the public API without path parameters, as the served document lists
    // them (a GET answering `pagination`): the iterator yields `total` items of each.
    const doc = (await t.api<{ paths: Record<string, { get?: { responses: Record<string, unknown> } }> }>('GET', '/v1/openapi.json', undefined, { key: null }))
      .body;
    const collections = Object.entries(doc.paths)
      .filter(([path, ops]) => path.startsWith('/v1/') && !path.includes('{') && JSON.stringify(ops.get?.responses['200'] ?? {}).includes('/Pagination"'))
      .map(([path]) => path as CollectionPath);
    expect(collections).toEqual(expect.arrayContaining(['/v1/listings', '/v1/reservations', '/v1/guests', '/v1/webhooks']));
    for (const path of collections) {
      const first = (await vrp.get(path as '/v1/guests', { params: { query: { limit: 1 } } })) as { pagination: { total: number } };
      let count = 0;
      for await (const _item of vrp.paginate(path as '/v1/guests', { params: { query: { limit: 1 } } })) count++;
      expect([path, count]).toEqual([path, first.pagination.total]);
    }
  });

  it('events.list() follows the cursors to the end, events.retrieve() reads one; dryRun: true answers and writes nothing', async () => {
    const made: string[] = [];
    for (let i = 0; i < 3; i++) made.push((await vrp.post('/v1/guests', { body: { firstName: `Evented${i}` } })).data.id);
    await eventually(
      async () => (await vrp.get('/v1/events', { params: { query: { type: 'guest.created', limit: 3 } } })).data.some((e) => e.data.object.id === made[2]),
      10_000,
      'the newest guest.created listed',
    );
    const query = { type: 'guest.created' as const, 'created[lt]': new Date().toISOString() };
    const listed = (await vrp.get('/v1/events', { params: { query: { ...query, limit: 200 } } })).data.map((e) => e.id);
    const iterated: string[] = [];
    for await (const event of vrp.events.list({ ...query, limit: 1 })) iterated.push(event.id);
    expect(iterated).toEqual(listed);
    expect((await vrp.events.retrieve(listed[0]!)).id).toBe(listed[0]);

    const ghost = await vrp.post('/v1/guests', { body: { firstName: 'Ghost' }, dryRun: true });
    expect(ghost.data.firstName).toBe('Ghost');
    await expect(vrp.get('/v1/guests/{id}', { params: { path: { id: ghost.data.id } } })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('webhooks.verify accepts a real delivery and refuses a changed body, a wrong secret and an old timestamp', async () => {
    const sub = await vrp.post('/v1/webhooks', { body: { url: receiver.url, eventTypes: ['guest.created'] } });
    const secret = sub.data.secret;
    await vrp.post('/v1/guests', { body: { firstName: 'Webhooked' } });
    await eventually(
      () => receiver.received.some((r) => r.json.type === 'guest.created' && r.json.data.object.firstName === 'Webhooked'),
      10_000,
      'the delivery',
    );
    const delivery = receiver.received.find((r) => r.json.data.object.firstName === 'Webhooked')!;
    const event = vrp.webhooks.verify(delivery.body, delivery.headers, secret);
    expect(event).toMatchObject({ type: 'guest.created', id: delivery.headers['vrp-event-id'] });
    const reasons = [
      () => vrp.webhooks.verify(delivery.body.replace('Webhooked', 'Webhooker'), delivery.headers, secret),
      () => vrp.webhooks.verify(delivery.body, delivery.headers, `${secret}x`),
      () => vrp.webhooks.verify(delivery.body, delivery.headers, secret, { now: () => Date.now() + 301_000 }),
      () => vrp.webhooks.verify(delivery.body, {}, secret),
    ].map((f) => {
      try {
        f();
        return 'accepted';
      } catch (err) {
        return err instanceof WebhookVerificationError ? err.reason : String(err);
      }
    });
    expect(reasons).toEqual(['no_matching_signature', 'no_matching_signature', 'timestamp_outside_tolerance', 'missing_header']);
    // A rotated secret (no body needed): both signatures ride along during the grace period; either secret verifies.
    const rotated = await vrp.post('/v1/webhooks/{id}/rotate-secret', { params: { path: { id: sub.data.id } } });
    expect(rotated.data.secret).not.toBe(secret);
    await vrp.post('/v1/guests', { body: { firstName: 'Rotated' } });
    await eventually(() => receiver.received.some((r) => r.json.data.object.firstName === 'Rotated'), 10_000, 'the delivery after the rotation');
    const afterRotation = receiver.received.find((r) => r.json.data.object.firstName === 'Rotated')!;
    expect(vrp.webhooks.verify(afterRotation.body, afterRotation.headers, secret)).toMatchObject({ type: 'guest.created' });
    expect(vrp.webhooks.verify(afterRotation.body, afterRotation.headers, rotated.data.secret)).toMatchObject({ type: 'guest.created' });
    await expect(vrp.delete('/v1/webhooks/{id}', { params: { path: { id: sub.data.id } } })).resolves.toMatchObject({ data: { deleted: true } });
  });

  it("generated from the served document: the snapshot equals /v1/openapi.json and the types equal openapi-typescript's output", async () => {
    const sdkDir = join(__dirname, '../sdk/typescript');
    const snapshot = JSON.parse(readFileSync(join(sdkDir, 'openapi.json'), 'utf8')) as { servers: unknown };
    const served = (await t.api<{ servers: unknown }>('GET', '/v1/openapi.json', undefined, { key: null })).body;
    expect({ ...served, servers: snapshot.servers }).toEqual(snapshot);
    // Throws (with the script's message) when src/generated/api.ts differs from what the snapshot generates.
    execFileSync(process.execPath, [require.resolve('tsx/cli'), 'scripts/generate.ts', '--check', '--spec', 'openapi.json'], { cwd: sdkDir, stdio: 'pipe' });
  });

  it('an error without an envelope (not the API) is still a VrpApiError', async () => {
    const stray = new Vrp({ baseUrl: `${t.baseUrl}/nothing-here`, apiKey: t.apiKey });
    await expect(stray.get('/v1/listings')).rejects.toBeInstanceOf(VrpApiError);
  });
});
