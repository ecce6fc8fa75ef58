// Component test: the pms-adapter over real gRPC with embedded engines, the PMS simulator over
// HTTP, and the real listing service in-process (it imports what the adapter publishes, and
// deactivates listings on disconnect).
import { listing as listingPb, pms as pb, pmsSync, TOPICS } from '@vrp/contracts';
import { PROVIDERS, pmsCapabilities, reservationCapabilities, supports, WRITES, type PmsWrite } from '@vrp/pms-matrix';
import { createLogger } from '@vrp/platform/logging';
import { createMemoryBus } from '@vrp/engines/bus';
import { createMemoryStore } from '@vrp/engines/store';
import { createUpstream, type Upstream } from '@vrp/platform/grpc';
import { freePort } from '@vrp/platform/net';
import type { RunningService, ServiceAddresses } from '@vrp/platform/service';
import { startPmsSimulator, SimulatorControl, type PmsSimulator } from '@vrp/pms-simulator';
import { startListingService } from '@vrp/listing';
import { startPmsAdapterService } from '../src/app';
import type { ConnectionRecord } from '../src/domain/connection';
import { ConnectionStore } from '../src/store/connection-store';
import { errorOf, putChannelTraffic } from '@vrp/testkit';

describe('pms-adapter service over gRPC', () => {
  const bus = createMemoryBus();
  const adapterStore = createMemoryStore();
  const listingStore = createMemoryStore();
  const seeded = new ConnectionStore(adapterStore);
  const logger = createLogger('test', 'silent');
  const RESET_MS = 1000;
  let sim: PmsSimulator;
  let control: SimulatorControl;
  let adapter: RunningService;
  let listingService: RunningService;
  let client: Upstream<pb.PmsAdapterServiceClient>;
  let listings: Upstream<listingPb.ListingServiceClient>;
  const published: pmsSync.PmsSyncChange[] = [];
  const keys: string[] = [];

  const listAll = async (workspaceId: string) =>
    (await listings.call('listListings', { workspaceId, status: listingPb.ListingStatusFilter.LISTING_STATUS_FILTER_ALL, page: { limit: 200, offset: 0 } }))
      .listings;

  beforeAll(async () => {
    sim = await startPmsSimulator();
    control = new SimulatorControl(sim.url);
    const addresses: ServiceAddresses = {
      listing: `127.0.0.1:${await freePort()}`,
      pmsAdapter: `127.0.0.1:${await freePort()}`,
      reservation: '127.0.0.1:1',
      guest: '127.0.0.1:1',
      webhook: '127.0.0.1:1',
    };
    const portOf = (a: string) => Number(a.split(':')[1]);
    listingService = await startListingService({
      store: listingStore,
      bus,
      logger,
      grpcPort: portOf(addresses.listing),
      opsPort: 0,
      host: '127.0.0.1',
      addresses,
    });
    adapter = await startPmsAdapterService({
      store: adapterStore,
      bus,
      logger,
      grpcPort: portOf(addresses.pmsAdapter),
      opsPort: 0,
      host: '127.0.0.1',
      addresses,
      pms: { baseUrl: sim.url, connector: { timeoutMs: 250, retries: 2, budgetMs: 2000, breaker: { resetTimeoutMs: RESET_MS, volumeThreshold: 5 } } },
    });
    client = createUpstream(pb.PmsAdapterServiceClient, { name: 'pms-adapter', address: addresses.pmsAdapter });
    listings = createUpstream(listingPb.ListingServiceClient, { name: 'listing', address: addresses.listing });
    await bus.subscribe({
      groupId: 'test-observer',
      topics: [TOPICS.pmsSync.name],
      fromBeginning: true,
      // At-least-once: the bus may deliver a change again; each change id counts once.
      handler: async (m) => {
        const change = pmsSync.PmsSyncChange.decode(m.value);
        if (published.some((c) => c.changeId === change.changeId)) return;
        published.push(change);
        keys.push(m.key);
      },
    });

    await control.createAccount('PMS-A', 'acme');
    await control.putListing('PMS-A', 'acme', 'L1', {
      name: 'Harbour Flat',
      listed: true,
      channels: [{ channel: 'CHANNEL_A', listing_id: 'acme-cha-1' }],
      bedrooms: 2,
    });
    await control.putListing('PMS-A', 'acme', 'L2', { name: 'Hidden Barn', listed: false });
    await control.putReservation('PMS-A', 'acme', 'R1', { listing_id: 'L1', arrival: '2031-05-01', departure: '2031-05-04', guest: { first_name: 'Ana' } });
    await control.createAccount('PMS-F', 'fjord');
    await control.putListing('PMS-F', 'fjord', 'F1', { name: 'Fjord Cabin' });
  });
  afterAll(async () => {
    client.close();
    listings.close();
    await adapter.stop();
    await listingService.stop();
    await bus.close();
    await sim.close();
  });

  describe('capability matrix', () => {
    it.each(PROVIDERS)('answers %s’s capabilities from the matrix', async (provider) => {
      const { capabilities } = await client.call('getProviderCapabilities', { provider: provider.toLowerCase() });
      expect(capabilities?.provider).toBe(provider);
      expect(capabilities!.reservations).toEqual(reservationCapabilities(provider));
      expect(capabilities!.pms).toEqual(pmsCapabilities(provider));
    });

    it('answers an unknown provider with not_found', async () => {
      expect((await errorOf(client.call('getProviderCapabilities', { provider: 'PMS-Z' }))).code).toBe('not_found');
    });
  });

  describe('connect and import', () => {
    it('refuses an account the PMS does not have, storing nothing', async () => {
      const err = await errorOf(client.call('connect', { workspaceId: 'ws_a', provider: 'PMS-A', accountId: 'nobody' }));
      expect(err.code).toBe('not_found');
      expect(err.message).toContain('nobody');
      expect((await client.call('listConnections', { workspaceId: 'ws_a' })).connections).toEqual([]);
    });

    it('validates the provider and account', async () => {
      const err = await errorOf(client.call('connect', { workspaceId: 'ws_a', provider: 'PMS-Q', accountId: '' }));
      expect(err.code).toBe('validation_failed');
      expect(err.details.fields).toEqual({ provider: "must be one of PMS-A..PMS-G, not 'PMS-Q'" });
    });

    it('connects and imports the account’s listings; an unlisted one arrives inactive', async () => {
      const res = await client.call('connect', { workspaceId: 'ws_a', provider: 'PMS-A', accountId: 'acme' });
      expect(res.connection).toMatchObject({ workspaceId: 'ws_a', provider: 'PMS-A', accountId: 'acme', status: 'connected' });
      expect(res.importedExternalIds.sort()).toEqual(['L1', 'L2']);
      await bus.whenIdle(5000);
      const imported = await listAll('ws_a');
      expect(imported.map((l) => [l.name, l.status, l.pmsProvider, l.pmsExternalId]).sort()).toEqual([
        ['Harbour Flat', 'active', 'PMS-A', 'L1'],
        ['Hidden Barn', 'inactive', 'PMS-A', 'L2'],
      ]);
      expect(imported.find((l) => l.pmsExternalId === 'L1')).toMatchObject({ bedrooms: 2, channels: [{ channel: 'CHANNEL_A', externalId: 'acme-cha-1' }] });
    });

    it('publishes protobuf PmsSyncChange messages keyed by the PMS listing id, reservations after their listing', async () => {
      const ofAcme = published.filter((c) => c.workspaceId === 'ws_a');
      expect(ofAcme.map((c) => [c.entity, c.externalId, c.listingExternalId])).toEqual([
        ['listing', 'L1', 'L1'],
        ['listing', 'L2', 'L2'],
        ['reservation', 'R1', 'L1'],
      ]);
      expect(keys.slice(0, 3)).toEqual(['L1', 'L2', 'L1']);
      // The entity travels typed, in the oneof member `entity` names; no other member is set.
      const reservation = ofAcme[2]!.reservation;
      expect(ofAcme[2]!.listing).toBeUndefined();
      expect(ofAcme[0]!.listing).toMatchObject({
        externalId: 'L1',
        name: 'Harbour Flat',
        unlisted: false,
        channels: [{ channel: 'CHANNEL_A', externalId: 'acme-cha-1' }],
        bedrooms: 2,
      });
      expect(reservation).toMatchObject({
        externalId: 'R1',
        listingExternalId: 'L1',
        status: 'CONFIRMED',
        checkIn: '2031-05-01',
        checkOut: '2031-05-04',
        guest: { firstName: 'Ana' },
      });
      expect(new Set(ofAcme.map((c) => c.changeId)).size).toBe(3);
    });

    it('connecting again is safe: the same connection, nothing duplicated', async () => {
      const before = (await client.call('listConnections', { workspaceId: 'ws_a' })).connections;
      const again = await client.call('connect', { workspaceId: 'ws_a', provider: 'PMS-A', accountId: 'acme' });
      expect(again.connection?.id).toBe(before[0]!.id);
      expect(again.importedExternalIds).toEqual([]);
      await bus.whenIdle(5000);
      expect(await listAll('ws_a')).toHaveLength(2);
    });
  });

  describe('sync', () => {
    it('brings changes made in the PMS, also to an inactive listing, and advances the cursor', async () => {
      const [connection] = (await client.call('listConnections', { workspaceId: 'ws_a' })).connections;
      await control.putListing('PMS-A', 'acme', 'L2', { name: 'Hidden Barn (renovated)', beds: 5 });
      await control.putListing('PMS-A', 'acme', 'L1', { bedrooms: 3 });
      const { changesPublished } = await client.call('syncNow', { workspaceId: 'ws_a', connectionId: connection!.id });
      expect(changesPublished).toBe(2);
      await bus.whenIdle(5000);
      const all = await listAll('ws_a');
      expect(all.find((l) => l.pmsExternalId === 'L2')).toMatchObject({ name: 'Hidden Barn (renovated)', beds: 5, status: 'inactive' });
      expect(all.find((l) => l.pmsExternalId === 'L1')).toMatchObject({ bedrooms: 3, status: 'active' });
      // Nothing new in the PMS: nothing published.
      expect((await client.call('syncNow', { workspaceId: 'ws_a', connectionId: '' })).changesPublished).toBe(0);
    });

    it('publishes what the PMS received from channels (a guest message with attachments, a review, a request, an inquiry) typed, keyed by their listing', async () => {
      const [connection] = (await client.call('listConnections', { workspaceId: 'ws_a' })).connections;
      await putChannelTraffic(control, 'PMS-A', 'acme', {
        listing: 'L1',
        inquiryListing: 'L2',
        message: { reservation_id: 'R1', text: 'Hello', attachment: { url: 'https://f.example/map.png', filename: 'map.png', mime_type: 'image/png' } },
        review: { stars: 5, text: 'Great', reviewer_name: 'Uma' },
        request: { arrival: '2031-08-01', departure: '2031-08-03', guest: { first_name: 'Rae' } },
        inquiry: { arrival: '2031-09-01', departure: '2031-09-03' },
      });
      expect((await client.call('syncNow', { workspaceId: 'ws_a', connectionId: connection!.id })).changesPublished).toBe(4);
      await bus.whenIdle(5000);
      // Observed across partitions (no order across keys): by entity.
      const order = ['message', 'review', 'request', 'inquiry'];
      const guestSide = published.filter((c) => order.includes(c.entity)).sort((x, y) => order.indexOf(x.entity) - order.indexOf(y.entity));
      expect(guestSide.map((c) => [c.entity, c.externalId, c.listingExternalId, keys[published.indexOf(c)]])).toEqual([
        ['message', 'M1', 'L1', 'L1'],
        ['review', 'V1', 'L1', 'L1'],
        ['request', 'Q1', 'L1', 'L1'],
        ['inquiry', 'I1', 'L2', 'L2'],
      ]);
      // One listing's changes keep the PMS feed's order.
      expect(published.filter((c) => c.listingExternalId === 'L1' && order.includes(c.entity)).map((c) => c.entity)).toEqual(['message', 'review', 'request']);
      const [message, review, request, inquiry] = guestSide;
      expect(message!.message).toMatchObject({
        conversationExternalId: 'thread-R1',
        reservationExternalId: 'R1',
        direction: 'inbound',
        body: 'Hello',
        attachments: [{ url: 'https://f.example/map.png', name: 'map.png', contentType: 'image/png' }],
      });
      expect(review!.review).toMatchObject({ rating: 5, body: 'Great', guestName: 'Uma' });
      expect(request!.request).toMatchObject({ checkIn: '2031-08-01', checkOut: '2031-08-03', status: 'pending', guest: { firstName: 'Rae' } });
      expect(inquiry!.inquiry).toMatchObject({ checkIn: '2031-09-01', status: 'pending' });
      // Exactly the member `entity` names is set.
      expect([message!.review, review!.message, request!.inquiry, inquiry!.request]).toEqual([undefined, undefined, undefined, undefined]);
    });

    it('is idempotent on the consumer side: replaying every published message changes nothing', async () => {
      const before = await listAll('ws_a');
      await bus.publish(
        TOPICS.pmsSync.name,
        published.map((c) => ({ key: c.listingExternalId || c.externalId, value: pmsSync.PmsSyncChange.encode(c).finish() })),
      );
      await bus.whenIdle(5000);
      expect(await listAll('ws_a')).toEqual(before);
    });

    it('keeps other workspaces apart: an unknown connection id is not_found', async () => {
      const [connection] = (await client.call('listConnections', { workspaceId: 'ws_a' })).connections;
      expect((await errorOf(client.call('syncNow', { workspaceId: 'ws_b', connectionId: connection!.id }))).code).toBe('not_found');
      expect((await errorOf(client.call('disconnect', { workspaceId: 'ws_b', connectionId: connection!.id }))).code).toBe('not_found');
    });
  });

  describe('relayed writes', () => {
    beforeAll(async () => {
      await client.call('connect', { workspaceId: 'ws_f', provider: 'PMS-F', accountId: 'fjord' });
    });
    beforeEach(async () => {
      await control.clearFaults();
      await control.clearRequests();
    });

    const relay = (provider: string, operation: string, extra: Partial<pb.RelayWriteRequest> = {}) =>
      client.call('relayWrite', {
        workspaceId: provider === 'PMS-A' ? 'ws_a' : 'ws_f',
        provider,
        operation,
        listingExternalId: provider === 'PMS-A' ? 'L1' : 'F1',
        entityExternalId: '',
        payloadJson: '{}',
        idempotencyKey: '',
        ...extra,
      });

    it('refuses every write the matrix refuses with pms_write_unsupported, sending nothing', async () => {
      const refused = (Object.keys(WRITES) as PmsWrite[]).filter((w) => !supports('PMS-F', w));
      expect(refused.length).toBeGreaterThan(5);
      for (const write of refused) {
        const err = await errorOf(relay('PMS-F', write, { entityExternalId: 'x1' }));
        expect([write, err.code, err.details.provider]).toEqual([write, 'pms_write_unsupported', 'PMS-F']);
        expect(err.fix).toContain('PMS-F');
      }
      expect(await control.requests()).toEqual([]);
    });

    it('relays a supported write with its idempotency key; a retry is applied once', async () => {
      const body = { checkIn: '2031-06-01', checkOut: '2031-06-03', primaryGuest: { firstName: 'Bo' } };
      const first = await relay('PMS-A', 'reservation.create', { payloadJson: JSON.stringify(body), idempotencyKey: 'idem-1' });
      const second = await relay('PMS-A', 'reservation.create', { payloadJson: JSON.stringify(body), idempotencyKey: 'idem-1' });
      expect(first.entityExternalId).toMatch(/^pms-a-acme-res-/);
      expect(second.entityExternalId).toBe(first.entityExternalId);
      const requests = await control.requests({ provider: 'PMS-A' });
      expect(requests.map((r) => [r.method, r.path, r.idempotencyKey])).toEqual([
        ['POST', '/pms-a/v1/accounts/acme/reservations', 'idem-1'],
        ['POST', '/pms-a/v1/accounts/acme/reservations', 'idem-1'],
      ]);
      const state = await control.account('PMS-A', 'acme');
      expect(state.reservations.filter((r) => r.id === first.entityExternalId)).toHaveLength(1);
      expect(JSON.parse(first.resultJson)).toMatchObject({ listing_id: 'L1', arrival: '2031-06-01', guest: { first_name: 'Bo' } });
    });

    it('validates the write before sending: unknown operation, bad JSON, missing entity id', async () => {
      expect((await errorOf(relay('PMS-A', 'reservation.teleport'))).details.fields).toEqual({
        operation: "'reservation.teleport' is not a write of the capability matrix",
      });
      expect((await errorOf(relay('PMS-A', 'reservation.modify', { payloadJson: '{', entityExternalId: 'R1' }))).details.fields).toEqual({
        payloadJson: 'is not valid JSON',
      });
      expect((await errorOf(relay('PMS-A', 'reservation.modify'))).details.fields).toEqual({ entityExternalId: 'is required for reservation.modify' });
      expect(await control.requests()).toEqual([]);
    });

    it('answers a PMS refusal as pms_unavailable (502) without retrying it', async () => {
      const err = await errorOf(relay('PMS-A', 'reservation.modify', { entityExternalId: 'no-such', idempotencyKey: 'k-404' }));
      expect(err.code).toBe('pms_unavailable');
      expect(err.message).toContain('no-such');
      expect(await control.requests()).toHaveLength(1);
    });

    it('retries an idempotent write through a failure, but never a non-idempotent one', async () => {
      await control.setFault('PMS-A', { mode: 'slow', delayMs: 400 });
      const err = await errorOf(relay('PMS-A', 'reservation.modify', { entityExternalId: 'R1', payloadJson: '{"notes":{"host":"late"}}' }));
      expect(err.code).toBe('pms_unavailable');
      expect(err.message).toContain('no answer within 250 ms');
      // Without an idempotency key a POST is sent once: a timeout may hide an applied write.
      expect(await control.requests()).toHaveLength(1);
      await control.clearRequests();
      await errorOf(relay('PMS-A', 'content.description', { payloadJson: '"Sunny"' }));
      // A PUT is safe to repeat: 1 + 2 retries.
      expect(await control.requests()).toHaveLength(3);
    });

    it('opens the breaker on an outage, answers fast with service_unavailable, then recovers', async () => {
      await control.setFault('PMS-A', { mode: 'fail', status: 503 });
      // Failures accumulate until the breaker opens (5 failed attempts at most, retries included).
      const codes: string[] = [];
      for (let i = 0; i < 5 && !codes.includes('service_unavailable'); i++)
        codes.push((await errorOf(relay('PMS-A', 'reservation.create', { idempotencyKey: `o-${i}` }))).code);
      expect(codes[0]).toBe('pms_unavailable');
      expect(codes).toContain('service_unavailable');
      const sent = (await control.requests()).length;
      const started = performance.now();
      const fast = await errorOf(relay('PMS-A', 'reservation.create', { idempotencyKey: 'o-fast' }));
      expect(performance.now() - started).toBeLessThan(100);
      expect(fast.code).toBe('service_unavailable');
      expect(fast.details.retryAfterSeconds).toBe(1);
      expect(await control.requests()).toHaveLength(sent); // nothing reached the PMS
      // Another PMS is not affected by PMS-A's breaker.
      expect((await relay('PMS-F', 'content.description', { payloadJson: '"Fjord"' })).resultJson).toContain('Fjord');

      await control.clearFaults();
      const deadline = Date.now() + 5000;
      let recovered: pb.RelayWriteResponse | null = null;
      while (!recovered && Date.now() < deadline) {
        recovered = await relay('PMS-A', 'content.description', { payloadJson: '"Back"' }).catch(async () => {
          await new Promise((r) => setTimeout(r, 50)); // the breaker's reset timeout must pass
          return null;
        });
      }
      expect(recovered?.resultJson).toContain('Back');
    });
  });

  describe('disconnect', () => {
    it('disconnects: the account’s listings become inactive and syncing stops', async () => {
      const [connection] = (await client.call('listConnections', { workspaceId: 'ws_a' })).connections;
      const res = await client.call('disconnect', { workspaceId: 'ws_a', connectionId: connection!.id });
      expect(res.connection?.status).toBe('disconnected');
      const l1 = (await listAll('ws_a')).find((l) => l.pmsExternalId === 'L1')!;
      expect(res.deactivatedListingIds).toEqual([l1.id]);
      expect((await listAll('ws_a')).every((l) => l.status === 'inactive')).toBe(true);
      expect((await errorOf(client.call('syncNow', { workspaceId: 'ws_a', connectionId: connection!.id }))).code).toBe('conflict');
      // Repeating is harmless.
      expect((await client.call('disconnect', { workspaceId: 'ws_a', connectionId: connection!.id })).deactivatedListingIds).toEqual([]);
    });

    it('refuses to relay for a workspace with no connected account of that PMS', async () => {
      await control.clearRequests();
      const err = await errorOf(
        client.call('relayWrite', {
          workspaceId: 'ws_a',
          provider: 'PMS-A',
          operation: 'content.description',
          listingExternalId: 'L1',
          entityExternalId: '',
          payloadJson: '"x"',
          idempotencyKey: '',
        }),
      );
      expect(err.code).toBe('conflict');
      expect(await control.requests()).toEqual([]);
    });
  });

  it('refuses a second stored connection to the same PMS account in a workspace', async () => {
    const record = (id: string, workspaceId: string): ConnectionRecord => ({
      id,
      workspaceId,
      provider: 'PMS-C',
      accountId: 'same',
      status: 'connected',
      createdAt: new Date(),
      lastSyncedAt: null,
      cursor: '0',
    });
    await seeded.insert(record('pmc_x1', 'ws_c'));
    expect((await errorOf(seeded.insert(record('pmc_x2', 'ws_c')))).code).toBe('conflict');
    await seeded.insert(record('pmc_x3', 'ws_d'));
  });

  it('rejects a request without a workspace as validation_failed', async () => {
    const err = await errorOf(client.call('listConnections', { workspaceId: '' }));
    expect(err.code).toBe('validation_failed');
    expect(err.details.fields).toEqual({ workspaceId: 'is required' });
  });
});
