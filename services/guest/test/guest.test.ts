// Component test: the guest service over real gRPC with embedded engines. Reservation events,
// listing activity and PMS sync changes are published on the memory bus as their producers do;
// the PMS port is a recording fake, so every test can prove what was (not) sent to a PMS.
import { guest as pb, guestEvents, listingEvents, ops, pmsSync, reservation as resPb, reservationEvents, TOPICS } from '@vrp/contracts';
import { createLogger } from '@vrp/platform/logging';
import { createMemoryBus, partitionForKey } from '@vrp/engines/bus';
import { createMemoryStore } from '@vrp/engines/store';
import { createUpstream, type Upstream } from '@vrp/platform/grpc';
import { DEFAULT_ADDRESSES, type RunningService } from '@vrp/platform/service';
import { newId } from '@vrp/platform/ids';
import { notFound } from '@vrp/platform/errors';
import { startGuestService } from '../src/app';
import type { GuestRecord } from '../src/domain/guest';
import type { ListingPms, PmsPort, RelayInput } from '../src/ports/pms';
import { GuestStore } from '../src/store/guest-store';
import { MAX_ATTACHMENT_URL_LENGTH, MAX_GUEST_NAME_LENGTH, MAX_REQUEST_NOTE_LENGTH } from '@vrp/api-model';
import { errorOf } from '@vrp/testkit';

/** The listings the fake listing service knows, and every write relayed to a PMS. */
class FakePms implements PmsPort {
  readonly listings = new Map<string, ListingPms>();
  readonly relayed: RelayInput[] = [];
  add(id: string, provider = '', name = id) {
    this.listings.set(id, { listingId: id, name, provider, externalId: provider ? `ext-${id}` : '' });
    this.listings.set(`ext-${id}`, this.listings.get(id)!);
  }
  async listing(workspaceId: string, id: string) {
    const l = this.listings.get(id);
    if (!l) throw notFound('listing', id);
    return l;
  }
  async resolveListingId(_ws: string, id: string) {
    return this.listings.get(id)?.listingId ?? null;
  }
  async pmsListing(_ws: string, provider: string, externalId: string) {
    const l = this.listings.get(externalId);
    return { listingId: l && l.provider === provider && l.externalId === externalId ? l.listingId : null, deleted: false };
  }
  /** Relays of one PMS entity in flight at once, at most (a PMS takes a moment to answer). */
  readonly maxInFlight = new Map<string, number>();
  private readonly inFlight = new Map<string, number>();
  async relay(input: RelayInput) {
    const entity = input.entityExternalId;
    if (entity) {
      this.inFlight.set(entity, (this.inFlight.get(entity) ?? 0) + 1);
      this.maxInFlight.set(entity, Math.max(this.maxInFlight.get(entity) ?? 0, this.inFlight.get(entity)!));
      await new Promise((resolve) => setTimeout(resolve, 3));
      this.inFlight.set(entity, this.inFlight.get(entity)! - 1);
    }
    this.relayed.push(input);
    return { entityExternalId: entity || `pms-${this.relayed.length}` };
  }
  close() {}
}

describe('guest service over gRPC', () => {
  const bus = createMemoryBus();
  const store = createMemoryStore();
  const seeded = new GuestStore(store);
  const fake = new FakePms();
  let running: RunningService;
  let client: Upstream<pb.GuestServiceClient>;
  const published: { topic: string; key: string; type: string }[] = [];
  const observed = new Set<string>();

  const guest = (id: string, workspaceId: string, firstName: string, lastName: string, extra: Partial<GuestRecord> = {}): GuestRecord => ({
    id,
    workspaceId,
    firstName,
    lastName,
    language: 'en',
    contacts: [],
    provider: '',
    externalId: '',
    listingIds: [],
    createdAt: new Date('2025-01-01T00:00:00Z'),
    updatedAt: new Date('2025-01-01T00:00:00Z'),
    version: 1,
    ...extra,
  });

  const JOSE = guest('gst_1', 'ws_a', 'José', 'García', {
    language: 'es',
    contacts: [{ type: 'EMAIL', value: 'jose@example.com', isPrimary: true }],
    provider: 'PMS-A',
  });
  const ZOE = guest('gst_2', 'ws_a', 'Zoë', 'Ångström');
  const ANNA = guest('gst_3', 'ws_a', 'Anna', 'Joseph');
  const BOB = guest('gst_4', 'ws_a', 'Bob', 'Smith');
  const OTHER_JOSE = guest('gst_5', 'ws_b', 'Jose', 'Other');

  const list = (req: Partial<pb.ListGuestsRequest>) => client.call('listGuests', pb.ListGuestsRequest.create({ workspaceId: 'ws_a', ...req }));
  const ids = (res: pb.ListGuestsResponse) => res.guests.map((g) => g.id);

  let activityVersion = 1;
  async function setActive(workspaceId: string, listingId: string, active: boolean) {
    const event = listingEvents.ListingActivityChanged.create({
      eventId: newId('evt'),
      workspaceId,
      listingId,
      listingName: `Name of ${listingId}`,
      active,
      version: ++activityVersion,
      occurredAt: new Date(),
    });
    await bus.publish(TOPICS.listingActivity.name, [{ key: listingId, value: listingEvents.ListingActivityChanged.encode(event).finish() }]);
    await bus.whenIdle();
  }

  /** A primary guest as a reservation event carries it. */
  const guestOf = (firstName: string, lastName: string, email: string, phone = '', language = '') => ({ firstName, lastName, email, phone, language });

  async function reservationEvent(
    workspaceId: string,
    r: Partial<resPb.Reservation> & { id: string; propertyId: string },
    type = reservationEvents.ReservationEventType.RESERVATION_EVENT_TYPE_CREATED,
  ) {
    const event = reservationEvents.ReservationEvent.create({
      eventId: newId('evt'),
      workspaceId,
      listingId: r.propertyId,
      type,
      occurredAt: new Date(),
      reservation: resPb.Reservation.create({ workspaceId, source: 'CHANNEL_A', ...r }),
    });
    const value = reservationEvents.ReservationEvent.encode(event).finish();
    await bus.publish(TOPICS.reservationEvents.name, [{ key: r.propertyId, value }]);
    await bus.whenIdle();
    return value;
  }

  /** ISO strings of the test's payloads as the Timestamps the topic carries (an unreadable one is left out). */
  const times = (p: Record<string, unknown>): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(p)) {
      if (k.endsWith('At') && typeof v === 'string') {
        if (!Number.isNaN(Date.parse(v))) out[k] = new Date(v);
      } else if (k === 'reply' && v && typeof v === 'object') out[k] = times(v as Record<string, unknown>);
      else out[k] = v;
    }
    return out;
  };

  /**
   * A PMS change as the pms-adapter publishes it: the payload's `listingId` (a test shorthand) is
   * the PMS listing id the adapter puts on the change (`ext-<id>`, which the fake listing service
   * resolves), and the entity travels in its oneof member.
   */
  async function syncChange(
    workspaceId: string,
    provider: string,
    entity: string,
    payload: Record<string, unknown> & { externalId: string },
    listingExternalId = '',
  ) {
    const { listingId, ...rest } = payload;
    const ext = listingExternalId || (listingId ? `ext-${String(listingId)}` : '');
    const change = pmsSync.PmsSyncChange.create({
      changeId: newId('chg'),
      workspaceId,
      connectionId: 'con_1',
      provider,
      entity,
      externalId: payload.externalId,
      listingExternalId: ext,
      occurredAt: new Date(),
      ...({ [entity]: times(rest) } as Partial<pmsSync.PmsSyncChange>),
    });
    const value = pmsSync.PmsSyncChange.encode(change).finish();
    await bus.publish(TOPICS.pmsSync.name, [{ key: ext || 'none', value }]);
    await bus.whenIdle();
    return value;
  }

  beforeAll(async () => {
    for (const [id, provider] of [
      ['lst_plain', ''],
      ['lst_a', 'PMS-A'],
      ['lst_f', 'PMS-F'],
      ['lst_g', 'PMS-G'],
      ['lst_off', ''],
      ['lst_off2', ''],
      ['lst_on', ''],
      ['lst_a_off', 'PMS-A'],
    ] as const)
      fake.add(id, provider);
    running = await startGuestService({
      store,
      bus,
      logger: createLogger('guest', 'silent'),
      grpcPort: 0,
      opsPort: 0,
      host: '127.0.0.1',
      addresses: DEFAULT_ADDRESSES,
      pms: fake,
    });
    client = createUpstream(pb.GuestServiceClient, { name: 'guest', address: `127.0.0.1:${running.grpcPort}` });
    for (const g of [JOSE, ZOE, ANNA, BOB, OTHER_JOSE]) await seeded.insert(g);
    await bus.subscribe({
      groupId: 'test-observer',
      topics: [TOPICS.guestEvents.name, TOPICS.messageEvents.name, TOPICS.reviewEvents.name, TOPICS.requestEvents.name],
      fromBeginning: true,
      // At-least-once: the bus may deliver an event again; each event id counts once.
      handler: async (m) => {
        const eventId = m.headers?.['event-id'] ?? `${m.topic}/${m.partition}@${m.offset}`;
        if (observed.has(eventId)) return;
        observed.add(eventId);
        published.push({ topic: m.topic, key: m.key, type: m.headers?.['event-type'] ?? '' });
      },
    });
  });
  afterAll(async () => {
    client.close();
    await running.stop();
    await bus.close();
    await store.close();
  });

  describe('guests: lists and reads', () => {
    it('lists only the workspace’s guests, in name order, with pagination', async () => {
      const all = await list({});
      expect(ids(all)).toEqual([ANNA.id, BOB.id, JOSE.id, ZOE.id]);
      expect(all.page).toEqual({ total: 4, limit: 50, offset: 0, hasMore: false });

      const page = await list({ page: { limit: 2, offset: 1 } });
      expect(ids(page)).toEqual([BOB.id, JOSE.id]);
      expect(page.page).toEqual({ total: 4, limit: 2, offset: 1, hasMore: true });
      const past = await list({ page: { limit: 2, offset: 10 } });
      expect(past.guests).toEqual([]);
      expect(past.page).toEqual({ total: 4, limit: 2, offset: 10, hasMore: false });
    });

    it('searches case- and accent-insensitively, on first or last name', async () => {
      expect(ids(await list({ search: 'jose' }))).toEqual([ANNA.id, JOSE.id]);
      expect(ids(await list({ search: 'JOSÉ GARCÍA' }))).toEqual([JOSE.id]);
      expect(ids(await list({ search: 'garcia' }))).toEqual([JOSE.id]);
      expect(ids(await list({ search: 'angstrom' }))).toEqual([ZOE.id]);
      expect(ids(await list({ search: 'Zoe' }))).toEqual([ZOE.id]);
      const page = await list({ search: 'jose', page: { limit: 1, offset: 0 } });
      expect(page.page).toEqual({ total: 2, limit: 1, offset: 0, hasMore: true });
    });

    it('treats the search term literally, not as a pattern', async () => {
      expect(ids(await list({ search: '.*' }))).toEqual([]);
      expect(ids(await list({ search: 'b(o' }))).toEqual([]);
      expect(ids(await list({ search: '   ' }))).toHaveLength(4);
    });

    it('returns a guest with every field, and another workspace’s id is not_found', async () => {
      const { guest: got } = await client.call('getGuest', { workspaceId: 'ws_a', id: JOSE.id });
      expect(got).toEqual(
        pb.Guest.create({
          id: JOSE.id,
          workspaceId: 'ws_a',
          version: 1,
          firstName: 'José',
          lastName: 'García',
          language: 'es',
          contacts: [{ type: 'EMAIL', value: 'jose@example.com', isPrimary: true }],
          createdAt: JOSE.createdAt,
          updatedAt: JOSE.updatedAt,
          provider: 'PMS-A',
        }),
      );
      expect((await errorOf(client.call('getGuest', { workspaceId: 'ws_a', id: OTHER_JOSE.id }))).code).toBe('not_found');
      expect((await errorOf(client.call('getGuest', { workspaceId: 'ws_b', id: JOSE.id }))).code).toBe('not_found');
    });

    it('rejects a request without a workspace or id as validation_failed', async () => {
      const err = await errorOf(list({ workspaceId: '' }));
      expect(err.code).toBe('validation_failed');
      expect(err.details.fields).toEqual({ workspaceId: 'is required' });
      expect((await errorOf(client.call('getGuest', { workspaceId: 'ws_a', id: '' }))).details.fields).toEqual({ id: 'is required' });
    });
  });

  describe('guests: create and update', () => {
    const create = (req: Partial<pb.CreateGuestRequest>) => client.call('createGuest', pb.CreateGuestRequest.create({ workspaceId: 'ws_c', ...req }));

    it('creates a local profile with language en by default and publishes guest.created', async () => {
      const { guest: g } = await create({ firstName: ' Mia ', lastName: 'Rossi' });
      expect(g).toMatchObject({ firstName: 'Mia', lastName: 'Rossi', language: 'en', provider: '', externalId: '', contacts: [], listingIds: [] });
      await bus.whenIdle();
      expect(published).toContainEqual({ topic: TOPICS.guestEvents.name, key: g!.id, type: 'guest.created' });
    });

    it('refuses a missing firstName, a bad language and an unknown provider, naming each field', async () => {
      const err = await errorOf(create({ firstName: '  ', language: 'english!', provider: 'PMS-Z' }));
      expect(err.code).toBe('validation_failed');
      expect(err.details.fields).toEqual({
        firstName: 'is required',
        language: 'must be a language tag such as en or pt-BR',
        provider: expect.stringContaining('PMS-A'),
      });
    });

    it('holds names to the API limit of 100 characters, as the gateway does', async () => {
      const long = 'x'.repeat(MAX_GUEST_NAME_LENGTH + 1);
      expect((await errorOf(create({ firstName: long, lastName: long }))).details.fields).toEqual({
        firstName: 'must be at most 100 characters',
        lastName: 'must be at most 100 characters',
      });
    });

    it('refuses provider PMS-F with pms_write_unsupported and sends nothing', async () => {
      const before = fake.relayed.length;
      const err = await errorOf(create({ firstName: 'Ana', provider: 'PMS-F' }));
      expect(err.code).toBe('pms_write_unsupported');
      expect(err.details.provider).toBe('PMS-F');
      expect(fake.relayed.length).toBe(before);
      expect((await client.call('listGuests', pb.ListGuestsRequest.create({ workspaceId: 'ws_c', search: 'ana' }))).guests).toEqual([]);
    });

    it('creates a PMS-A guest in the PMS first and keeps its external id', async () => {
      const { guest: g } = await create({ firstName: 'Pia', provider: 'PMS-A', email: 'pia@example.com' });
      const relay = fake.relayed.at(-1)!;
      expect(relay).toMatchObject({ provider: 'PMS-A', operation: 'guest.write', entityExternalId: '', workspaceId: 'ws_c' });
      expect(g).toMatchObject({
        provider: 'PMS-A',
        externalId: `pms-${fake.relayed.length}`,
        contacts: [{ type: 'EMAIL', value: 'pia@example.com', isPrimary: true }],
      });
    });

    it('updates a local guest; refuses a PMS-F-linked guest before anything is sent', async () => {
      const { guest: g } = await create({ firstName: 'Lea' });
      const { guest: updated } = await client.call(
        'updateGuest',
        pb.UpdateGuestRequest.create({ workspaceId: 'ws_c', id: g!.id, lastName: 'Müller', language: 'de' }),
      );
      expect(updated).toMatchObject({ firstName: 'Lea', lastName: 'Müller', language: 'de' });
      expect((await client.call('listGuests', pb.ListGuestsRequest.create({ workspaceId: 'ws_c', search: 'muller' }))).guests.map((x) => x.id)).toEqual([
        g!.id,
      ]);

      await seeded.insert(guest('gst_pmsf', 'ws_c', 'Fiona', 'F', { provider: 'PMS-F', externalId: 'f-1' }));
      const before = fake.relayed.length;
      const err = await errorOf(client.call('updateGuest', pb.UpdateGuestRequest.create({ workspaceId: 'ws_c', id: 'gst_pmsf', firstName: 'Fi' })));
      expect(err.code).toBe('pms_write_unsupported');
      expect(err.details.provider).toBe('PMS-F');
      expect(fake.relayed.length).toBe(before);
      expect((await client.call('getGuest', { workspaceId: 'ws_c', id: 'gst_pmsf' })).guest!.firstName).toBe('Fiona');
    });

    it('concurrent updates of different fields all survive; a PMS guest is relayed one change at a time', async () => {
      const update = (id: string, req: Partial<pb.UpdateGuestRequest>) =>
        client.call('updateGuest', pb.UpdateGuestRequest.create({ workspaceId: 'ws_c', id, ...req }));
      for (const provider of ['', 'PMS-A']) {
        const { guest: g } = await create({ firstName: 'Kim', provider });
        await Promise.all([update(g!.id, { firstName: 'Kimi' }), update(g!.id, { lastName: 'Lee' }), update(g!.id, { language: 'ko' })]);
        const { guest: after } = await client.call('getGuest', { workspaceId: 'ws_c', id: g!.id });
        expect([after!.firstName, after!.lastName, after!.language, after!.version]).toEqual(['Kimi', 'Lee', 'ko', 4]);
        if (provider) {
          expect(fake.maxInFlight.get(g!.externalId)).toBe(1);
          // The last relay carries every field as stored: the PMS ends where this service ends.
          expect(fake.relayed.filter((r) => r.entityExternalId === g!.externalId).at(-1)!.payload).toEqual({
            firstName: 'Kimi',
            lastName: 'Lee',
            language: 'ko',
          });
        }
      }
    });

    it('If-Match: a stale expected version is 412 precondition_failed and changes nothing', async () => {
      const { guest: g } = await create({ firstName: 'Ivo' });
      await client.call('updateGuest', pb.UpdateGuestRequest.create({ workspaceId: 'ws_c', id: g!.id, lastName: 'A', expectedVersion: 1 }));
      const err = await errorOf(
        client.call('updateGuest', pb.UpdateGuestRequest.create({ workspaceId: 'ws_c', id: g!.id, lastName: 'B', expectedVersion: 1 })),
      );
      expect(err.code).toBe('precondition_failed');
      expect((await client.call('getGuest', { workspaceId: 'ws_c', id: g!.id })).guest!.lastName).toBe('A');
    });

    it('a create or a change retried with the same Idempotency-Key is applied once', async () => {
      const [a, b] = await Promise.all([
        create({ firstName: 'Uma', idempotencyKey: 'g-create-1' }),
        create({ firstName: 'Uma', idempotencyKey: 'g-create-1' }),
      ]);
      expect(a.guest!.id).toBe(b.guest!.id);
      expect((await create({ firstName: 'Uma', idempotencyKey: 'g-create-1' })).guest!.id).toBe(a.guest!.id);
      const change = () =>
        client.call('updateGuest', pb.UpdateGuestRequest.create({ workspaceId: 'ws_c', id: a.guest!.id, lastName: 'Thurman', idempotencyKey: 'g-change-1' }));
      expect((await change()).guest!.version).toBe(2);
      expect((await change()).guest!.version).toBe(2);
      // A key is bound to its request: another body is refused as the gateway refuses it, and nothing changes.
      expect((await errorOf(create({ firstName: 'Ute', idempotencyKey: 'g-create-1' }))).code).toBe('idempotency_conflict');
      const other = client.call(
        'updateGuest',
        pb.UpdateGuestRequest.create({ workspaceId: 'ws_c', id: a.guest!.id, lastName: 'Other', idempotencyKey: 'g-change-1' }),
      );
      expect((await errorOf(other)).code).toBe('idempotency_conflict');
      expect((await client.call('getGuest', { workspaceId: 'ws_c', id: a.guest!.id })).guest).toMatchObject({ lastName: 'Thurman', version: 2 });
    });

    it('refuses an empty update and an unknown or foreign id', async () => {
      const { guest: g } = await create({ firstName: 'Noa' });
      const err = await errorOf(client.call('updateGuest', pb.UpdateGuestRequest.create({ workspaceId: 'ws_c', id: g!.id })));
      expect(err.details.fields).toEqual({ body: expect.any(String) });
      expect((await errorOf(client.call('updateGuest', pb.UpdateGuestRequest.create({ workspaceId: 'ws_a', id: g!.id, firstName: 'X' })))).code).toBe(
        'not_found',
      );
    });
  });

  describe('guests from reservations, and the inactive-listing rule', () => {
    it('creates a profile from a primary guest, matches by email (case-insensitive), else phone, else creates', async () => {
      await reservationEvent('ws_r', { id: 'res_1', propertyId: 'lst_on', primaryGuest: guestOf('Kim', 'Lee', 'Kim@Example.com', '+1 555 010 0001', 'ko') });
      const first = (await client.call('listGuests', pb.ListGuestsRequest.create({ workspaceId: 'ws_r' }))).guests;
      expect(first).toHaveLength(1);
      expect(first[0]).toMatchObject({ firstName: 'Kim', language: 'ko', listingIds: ['lst_on'] });

      // Same email, different case: the same profile.
      await reservationEvent('ws_r', { id: 'res_2', propertyId: 'lst_off', primaryGuest: guestOf('Kimberly', 'Lee', 'kim@example.COM') });
      // No email, same phone digits: the same profile.
      await reservationEvent('ws_r', { id: 'res_3', propertyId: 'lst_on', primaryGuest: guestOf('K', '', '', '+15550100001') });
      // Nothing in common: a new profile.
      await reservationEvent('ws_r', { id: 'res_4', propertyId: 'lst_off2', primaryGuest: guestOf('Ola', 'Nordmann', 'ola@example.no') });
      // Another workspace with the same email: its own profile.
      await reservationEvent('ws_s', { id: 'res_5', propertyId: 'lst_on', primaryGuest: guestOf('Kim', 'Lee', 'kim@example.com') });

      const guests = (await client.call('listGuests', pb.ListGuestsRequest.create({ workspaceId: 'ws_r' }))).guests;
      expect(guests.map((g) => g.firstName)).toEqual(['Kim', 'Ola']);
      expect(guests[0]!.listingIds.sort()).toEqual(['lst_off', 'lst_on']);
      expect((await client.call('listGuests', pb.ListGuestsRequest.create({ workspaceId: 'ws_s' }))).guests).toHaveLength(1);

      // Each reservation is linked in a document of its own; the profile does not grow with stays.
      const kim = guests[0]!;
      expect((await seeded.linksOf('ws_r', kim.id)).map((l) => [l.reservationId, l.listingId]).sort()).toEqual([
        ['res_1', 'lst_on'],
        ['res_2', 'lst_off'],
        ['res_3', 'lst_on'],
      ]);
      expect((await seeded.linkOf('ws_r', 'res_2'))?.guestId).toBe(kim.id);
      expect(await seeded.linkOf('ws_s', 'res_2')).toBeNull();
      const stored = await seeded.guests.findOne({ _id: kim.id });
      expect(stored).not.toHaveProperty('reservations');
      expect(stored!.listingIds).toEqual(['lst_on', 'lst_off']);
    });

    it('applies the reservations of one guest arriving from several partitions at once one after the other, without a write conflict', async () => {
      const listings = ['lst_plain', 'lst_off', 'lst_off2', 'lst_on'];
      const partitions = new Set(listings.map((id) => partitionForKey(id, TOPICS.reservationEvents.partitions)));
      expect(partitions.size).toBeGreaterThan(1);
      // Every run of a transaction's work that failed (a conflict over the profile would).
      const transaction = store.transaction.bind(store);
      const failed: unknown[] = [];
      const counted = jest.spyOn(store, 'transaction').mockImplementation((work) =>
        transaction((tx) =>
          work(tx).catch((err: unknown) => {
            failed.push(err);
            throw err;
          }),
        ),
      );
      try {
        const messages = Array.from({ length: 12 }, (_, i) => {
          const propertyId = listings[i % listings.length]!;
          const event = reservationEvents.ReservationEvent.create({
            eventId: newId('evt'),
            workspaceId: 'ws_hot',
            listingId: propertyId,
            type: reservationEvents.ReservationEventType.RESERVATION_EVENT_TYPE_CREATED,
            occurredAt: new Date(),
            reservation: resPb.Reservation.create({
              workspaceId: 'ws_hot',
              source: 'CHANNEL_A',
              id: `res_hot_${i}`,
              propertyId,
              primaryGuest: guestOf('Hal', 'Hot', 'hal@example.com'),
            }),
          });
          return { key: propertyId, value: reservationEvents.ReservationEvent.encode(event).finish() };
        });
        await bus.publish(TOPICS.reservationEvents.name, messages);
        await bus.whenIdle();
      } finally {
        counted.mockRestore();
      }
      const guests = (await client.call('listGuests', pb.ListGuestsRequest.create({ workspaceId: 'ws_hot' }))).guests;
      expect(guests).toHaveLength(1);
      expect(await seeded.linksOf('ws_hot', guests[0]!.id)).toHaveLength(12);
      expect(failed).toEqual([]);
    });

    it('applies a redelivered reservation event once', async () => {
      const value = await reservationEvent('ws_r', { id: 'res_6', propertyId: 'lst_on', primaryGuest: guestOf('Rex', '', 'rex@example.com') });
      await bus.publish(TOPICS.reservationEvents.name, [{ key: 'lst_on', value }]);
      await bus.whenIdle();
      expect((await client.call('listGuests', pb.ListGuestsRequest.create({ workspaceId: 'ws_r', search: 'rex' }))).guests).toHaveLength(1);
      expect((await client.call('listConversations', { workspaceId: 'ws_r', reservationId: 'res_6', listingId: '', guestId: '' })).conversations).toHaveLength(
        1,
      );
    });

    it('follows a new phone of a linked reservation’s guest: replaced on the profile once, keys moved, name kept', async () => {
      const at = (iso: string) => new Date(iso);
      const guest = { firstName: 'Pia', lastName: 'Moss', email: '', phone: '+47 400 00 001', language: 'nb' };
      await reservationEvent('ws_ph', { id: 'res_ph', propertyId: 'lst_on', primaryGuest: guest, updatedAt: at('2025-01-01T00:00:00Z') });
      const profileOf = async () => (await client.call('listGuests', pb.ListGuestsRequest.create({ workspaceId: 'ws_ph' }))).guests;
      const [before] = await profileOf();
      await client.call('updateGuest', pb.UpdateGuestRequest.create({ workspaceId: 'ws_ph', id: before!.id, firstName: 'Pia Local' }));
      const updated = reservationEvents.ReservationEventType.RESERVATION_EVENT_TYPE_UPDATED;
      const change = {
        id: 'res_ph',
        propertyId: 'lst_on',
        primaryGuest: { ...guest, firstName: 'Pia PMS', phone: '+47 499 99 999' },
        updatedAt: at('2025-01-02T00:00:00Z'),
      };
      const value = await reservationEvent('ws_ph', change, updated);
      const [after] = await profileOf();
      expect(after).toMatchObject({
        id: before!.id,
        firstName: 'Pia Local',
        language: 'nb',
        version: before!.version + 2,
        contacts: [{ type: 'PHONE', value: '+47 499 99 999', isPrimary: true }],
      });
      expect(published.filter((p) => p.key === before!.id).map((p) => p.type)).toEqual(['guest.created', 'guest.updated', 'guest.updated']);

      // Redelivered, and an older change arriving late: nothing changes, no event.
      await bus.publish(TOPICS.reservationEvents.name, [{ key: 'lst_on', value }]);
      await reservationEvent('ws_ph', { ...change, primaryGuest: guest, updatedAt: at('2025-01-01T12:00:00Z') }, updated);
      expect((await profileOf())[0]).toEqual(after);
      expect(published.filter((p) => p.key === before!.id)).toHaveLength(3);

      // The new number matches this profile; the old one no longer does (a new profile).
      await reservationEvent('ws_ph', { id: 'res_ph2', propertyId: 'lst_on', primaryGuest: { ...guest, phone: '+4749999999' } });
      expect(await profileOf()).toHaveLength(1);
      await reservationEvent('ws_ph', { id: 'res_ph3', propertyId: 'lst_on', primaryGuest: { ...guest, firstName: 'Other', phone: '+47 400 00 001' } });
      expect((await profileOf()).map((g) => g.firstName).sort()).toEqual(['Other', 'Pia Local']);
    });

    it('hides a guest whose every reservation is on an inactive listing; 403 on direct read naming them', async () => {
      const kim = (await client.call('listGuests', pb.ListGuestsRequest.create({ workspaceId: 'ws_r', search: 'kim' }))).guests[0]!;
      const ola = (await client.call('listGuests', pb.ListGuestsRequest.create({ workspaceId: 'ws_r', search: 'ola' }))).guests[0]!;
      await setActive('ws_r', 'lst_off', false);
      await setActive('ws_r', 'lst_off2', false);
      // Kim still has reservations on an active listing; Ola has none.
      expect((await client.call('listGuests', pb.ListGuestsRequest.create({ workspaceId: 'ws_r' }))).guests.map((g) => g.id)).toEqual([
        kim.id,
        expect.any(String),
      ]);
      expect((await client.call('listGuests', pb.ListGuestsRequest.create({ workspaceId: 'ws_r', search: 'ola' }))).guests).toEqual([]);
      const err = await errorOf(client.call('getGuest', { workspaceId: 'ws_r', id: ola.id }));
      expect(err.code).toBe('listing_inactive');
      expect(err.details.listingIds).toEqual(['lst_off2']);
      expect(err.details.listings).toEqual([{ id: 'lst_off2', name: 'Name of lst_off2' }]);
      expect((await client.call('getGuest', { workspaceId: 'ws_r', id: kim.id })).guest!.id).toBe(kim.id);
      // 404 before 403: another workspace asking for Ola.
      expect((await errorOf(client.call('getGuest', { workspaceId: 'ws_s', id: ola.id }))).code).toBe('not_found');
      // A PATCH of a hidden guest is 403 too, and writes nothing.
      expect((await errorOf(client.call('updateGuest', pb.UpdateGuestRequest.create({ workspaceId: 'ws_r', id: ola.id, firstName: 'X' })))).code).toBe(
        'listing_inactive',
      );
      // Activation makes it visible again.
      await setActive('ws_r', 'lst_off2', true);
      expect((await client.call('getGuest', { workspaceId: 'ws_r', id: ola.id })).guest!.firstName).toBe('Ola');
      await setActive('ws_r', 'lst_off', true);
    });

    it('opens one conversation per reservation; a moved reservation moves its conversation', async () => {
      await reservationEvent('ws_m', { id: 'res_m', propertyId: 'lst_on', primaryGuest: guestOf('Moe', '', 'moe@example.com') });
      await reservationEvent(
        'ws_m',
        { id: 'res_m', propertyId: 'lst_plain', primaryGuest: guestOf('Moe', '', 'moe@example.com') },
        reservationEvents.ReservationEventType.RESERVATION_EVENT_TYPE_UPDATED,
      );
      const { conversations } = await client.call('listConversations', { workspaceId: 'ws_m', listingId: '', reservationId: '', guestId: '' });
      expect(conversations).toHaveLength(1);
      expect(conversations[0]).toMatchObject({ listingId: 'lst_plain', reservationId: 'res_m', channel: 'CHANNEL_A', messageCount: 0 });
      expect((await client.call('listGuests', pb.ListGuestsRequest.create({ workspaceId: 'ws_m' }))).guests[0]!.listingIds).toEqual(['lst_plain']);
    });

    it('an older event of a moved reservation (replayed, or overtaken: a move changes its partition) moves nothing back', async () => {
      const guest = { firstName: 'Liv', lastName: '', email: 'liv@example.com', phone: '', language: '' };
      const UPDATED = reservationEvents.ReservationEventType.RESERVATION_EVENT_TYPE_UPDATED;
      await reservationEvent('ws_o', { id: 'res_o', propertyId: 'lst_on', primaryGuest: guest, updatedAt: new Date('2026-01-01T10:00:00Z') });
      await reservationEvent('ws_o', { id: 'res_o', propertyId: 'lst_plain', primaryGuest: guest, updatedAt: new Date('2026-01-01T11:00:00Z') }, UPDATED);
      const [liv] = (await client.call('listGuests', pb.ListGuestsRequest.create({ workspaceId: 'ws_o' }))).guests;
      const eventsBefore = published.filter((p) => p.key === liv!.id).length;
      // The creation event again, after the move.
      await reservationEvent('ws_o', { id: 'res_o', propertyId: 'lst_on', primaryGuest: guest, updatedAt: new Date('2026-01-01T10:00:00Z') });
      await bus.whenIdle();
      expect((await client.call('listGuests', pb.ListGuestsRequest.create({ workspaceId: 'ws_o' }))).guests[0]!.listingIds).toEqual(['lst_plain']);
      const { conversations } = await client.call('listConversations', { workspaceId: 'ws_o', listingId: '', reservationId: 'res_o', guestId: '' });
      expect(conversations.map((c) => c.listingId)).toEqual(['lst_plain']);
      expect(published.filter((p) => p.key === liv!.id)).toHaveLength(eventsBefore); // no guest.updated for it
    });
  });

  describe('conversations and messages', () => {
    async function conversationOn(workspaceId: string, listingId: string) {
      const id = newId('res');
      await reservationEvent(workspaceId, { id, propertyId: listingId, primaryGuest: guestOf('Guest', listingId, `${id}@example.com`) });
      return (await client.call('listConversations', { workspaceId, reservationId: id, listingId: '', guestId: '' })).conversations[0]!;
    }
    const send = (workspaceId: string, conversationId: string, body: string, attachments: pb.Attachment[] = []) =>
      client.call('sendMessage', pb.SendMessageRequest.create({ workspaceId, conversationId, body, attachments }));

    it('sends on a listing without a PMS (nothing relayed), lists messages oldest first, publishes message.sent', async () => {
      const c = await conversationOn('ws_msg', 'lst_plain');
      const before = fake.relayed.length;
      const { message } = await send('ws_msg', c.id, 'Welcome!', [{ url: 'https://example.com/map.pdf', name: 'map.pdf', contentType: 'application/pdf' }]);
      await send('ws_msg', c.id, 'Check-in is at 3pm.');
      expect(fake.relayed.length).toBe(before);
      expect(message).toMatchObject({ direction: 'outbound', body: 'Welcome!', provider: '', listingId: 'lst_plain' });
      const { messages, page } = await client.call('listMessages', { workspaceId: 'ws_msg', conversationId: c.id, page: { limit: 1, offset: 1 } });
      expect(messages.map((m) => m.body)).toEqual(['Check-in is at 3pm.']);
      expect(page).toEqual({ total: 2, limit: 1, offset: 1, hasMore: false });
      expect((await client.call('getConversation', { workspaceId: 'ws_msg', id: c.id })).conversation!.messageCount).toBe(2);
      await bus.whenIdle();
      expect(published).toContainEqual({ topic: TOPICS.messageEvents.name, key: 'lst_plain', type: 'message.sent' });
    });

    it('relays a send through the listing’s PMS', async () => {
      const c = await conversationOn('ws_msg', 'lst_a');
      const { message } = await send('ws_msg', c.id, 'Hi from PMS-A', [{ url: 'https://example.com/a.png', name: '', contentType: '' }]);
      expect(fake.relayed.at(-1)).toMatchObject({ provider: 'PMS-A', operation: 'message.send', listingExternalId: 'ext-lst_a' });
      expect(message!.provider).toBe('PMS-A');
    });

    it('refuses attachments on PMS-G and PMS-F, and sends nothing', async () => {
      for (const listingId of ['lst_g', 'lst_f']) {
        const c = await conversationOn('ws_msg', listingId);
        const before = fake.relayed.length;
        const err = await errorOf(send('ws_msg', c.id, 'See attached', [{ url: 'https://example.com/x.pdf', name: 'x.pdf', contentType: '' }]));
        expect(err.code).toBe('pms_write_unsupported');
        expect(err.details.provider).toBe(fake.listings.get(listingId)!.provider);
        expect(fake.relayed.length).toBe(before);
        expect((await client.call('listMessages', { workspaceId: 'ws_msg', conversationId: c.id })).messages).toEqual([]);
        // Without attachments the same PMS relays the message.
        await send('ws_msg', c.id, 'Plain text');
        expect(fake.relayed.length).toBe(before + 1);
      }
    });

    it('validates the message, 404s a foreign conversation, and 403s data of an inactive listing', async () => {
      const c = await conversationOn('ws_msg', 'lst_off');
      expect((await errorOf(send('ws_msg', c.id, '  '))).details.fields).toEqual({ body: expect.any(String) });
      expect((await errorOf(send('ws_msg', c.id, 'x', [{ url: 'ftp://x', name: '', contentType: '' }]))).details.fields).toEqual({
        'attachments.0.url': 'must be an http(s) URL',
      });
      const longUrl = `https://files.test/${'a'.repeat(MAX_ATTACHMENT_URL_LENGTH)}`;
      expect((await errorOf(send('ws_msg', c.id, 'x', [{ url: longUrl, name: '', contentType: '' }]))).details.fields).toEqual({
        'attachments.0.url': 'must be at most 2000 characters',
      });
      expect((await errorOf(send('ws_other', c.id, 'hello'))).code).toBe('not_found');

      await setActive('ws_msg', 'lst_off', false);
      for (const call of [
        client.call('getConversation', { workspaceId: 'ws_msg', id: c.id }),
        client.call('listMessages', { workspaceId: 'ws_msg', conversationId: c.id }),
        send('ws_msg', c.id, 'hello'),
        client.call('listConversations', { workspaceId: 'ws_msg', listingId: 'lst_off', reservationId: '', guestId: '' }),
      ]) {
        const err = await errorOf(call);
        expect(err.code).toBe('listing_inactive');
        expect(err.details.listingIds).toEqual(['lst_off']);
      }
      // Still 404 for another workspace.
      expect((await errorOf(client.call('getConversation', { workspaceId: 'ws_other', id: c.id }))).code).toBe('not_found');
      const { conversations } = await client.call('listConversations', { workspaceId: 'ws_msg', listingId: '', reservationId: '', guestId: '' });
      expect(conversations.map((x) => x.listingId)).not.toContain('lst_off');
      await setActive('ws_msg', 'lst_off', true);
      expect(
        (await client.call('listConversations', { workspaceId: 'ws_msg', listingId: 'lst_off', reservationId: '', guestId: '' })).conversations,
      ).toHaveLength(1);
    });

    it('answers not_found for a listing filter naming no listing of the workspace, before any 403', async () => {
      for (const call of [
        client.call('listConversations', { workspaceId: 'ws_msg', listingId: 'lst_nowhere', reservationId: '', guestId: '' }),
        client.call('listReviews', { workspaceId: 'ws_msg', listingId: 'lst_nowhere' }),
        client.call('listRequests', { workspaceId: 'ws_msg', listingId: 'lst_nowhere', status: '', kind: '' }),
      ]) {
        const err = await errorOf(call);
        expect(err.code).toBe('not_found');
      }
    });

    it('stores an inbound PMS message once, in the conversation of its PMS thread, and publishes message.received', async () => {
      const payload = {
        externalId: 'm-1',
        conversationExternalId: 'thr-1',
        direction: 'inbound',
        body: 'Is parking included?',
        sentAt: '2025-06-01T10:00:00Z',
      };
      const value = await syncChange('ws_msg', 'PMS-A', 'message', payload, 'ext-lst_a');
      await bus.publish(TOPICS.pmsSync.name, [{ key: 'ext-lst_a', value }]);
      await bus.whenIdle();
      const { conversations } = await client.call('listConversations', { workspaceId: 'ws_msg', listingId: 'lst_a', reservationId: '', guestId: '' });
      // The only conversation on lst_a tied to no reservation: the PMS thread's.
      const c = conversations.find((x) => !x.reservationId)!;
      expect(c).toMatchObject({ listingId: 'lst_a' });
      const { messages } = await client.call('listMessages', { workspaceId: 'ws_msg', conversationId: c.id });
      expect(messages.map((m) => [m.direction, m.body])).toEqual([['inbound', 'Is parking included?']]);
      expect(published).toContainEqual({ topic: TOPICS.messageEvents.name, key: 'lst_a', type: 'message.received' });
    });

    it('files a PMS thread of a PMS reservation in that reservation’s conversation, whichever arrives first', async () => {
      const conversationsOf = async (reservationId: string) =>
        (await client.call('listConversations', { workspaceId: 'ws_msg', listingId: '', reservationId, guestId: '' })).conversations;
      const messagesOf = async (conversationId: string) =>
        (await client.call('listMessages', { workspaceId: 'ws_msg', conversationId })).messages.map((m) => m.body);
      const guest = { firstName: 'Pia', lastName: '', email: '', phone: '', language: '' };
      // The reservation first, then the guest's message in the PMS thread of that reservation.
      await reservationEvent('ws_msg', { id: 'res_pms_1', propertyId: 'lst_a', pmsProvider: 'PMS-A', pmsExternalId: 'R-77', primaryGuest: guest });
      await syncChange(
        'ws_msg',
        'PMS-A',
        'message',
        {
          externalId: 'm-r77',
          conversationExternalId: 'thr-r77',
          reservationExternalId: 'R-77',
          direction: 'inbound',
          body: 'Arriving at 9pm',
          sentAt: '2025-06-02T10:00:00Z',
        },
        'ext-lst_a',
      );
      const [first] = await conversationsOf('res_pms_1');
      expect(await messagesOf(first!.id)).toEqual(['Arriving at 9pm']);
      // The message first (the reservation's event comes later): the thread's conversation is adopted, not doubled.
      await syncChange(
        'ws_msg',
        'PMS-A',
        'message',
        {
          externalId: 'm-r78',
          conversationExternalId: 'thr-r78',
          reservationExternalId: 'R-78',
          direction: 'inbound',
          body: 'Is there a cot?',
          sentAt: '2025-06-03T10:00:00Z',
        },
        'ext-lst_a',
      );
      await reservationEvent('ws_msg', { id: 'res_pms_2', propertyId: 'lst_a', pmsProvider: 'PMS-A', pmsExternalId: 'R-78', primaryGuest: guest });
      const adopted = await conversationsOf('res_pms_2');
      expect(adopted).toHaveLength(1);
      expect(await messagesOf(adopted[0]!.id)).toEqual(['Is there a cot?']);
      // The same PMS reservation id of another PMS is another reservation.
      await syncChange(
        'ws_msg',
        'PMS-G',
        'message',
        {
          externalId: 'm-g-r77',
          conversationExternalId: 'thr-g-r77',
          reservationExternalId: 'R-77',
          direction: 'inbound',
          body: 'Other PMS',
          sentAt: '2025-06-04T10:00:00Z',
        },
        'ext-lst_g',
      );
      expect(await messagesOf(first!.id)).toEqual(['Arriving at 9pm']);
    });
  });

  describe('reviews', () => {
    const review = (externalId: string, listingId: string, extra: object = {}) => ({
      externalId,
      listingId,
      guestName: 'Sam',
      rating: 5,
      body: 'Lovely stay',
      submittedAt: '2025-05-01T00:00:00Z',
      updatedAt: '2025-05-01T00:00:00Z',
      ...extra,
    });
    const reviewsOf = async (workspaceId: string) => (await client.call('listReviews', { workspaceId, listingId: '' })).reviews;

    it('applies review sync idempotently (by updatedAt) and publishes review.created', async () => {
      const value = await syncChange('ws_rev', 'PMS-A', 'review', review('r-1', 'lst_a'));
      await bus.publish(TOPICS.pmsSync.name, [{ key: 'x', value }]);
      await bus.whenIdle();
      expect((await reviewsOf('ws_rev')).map((r) => r.externalId)).toEqual(['r-1']);
      // An older change is ignored; a newer one updates.
      await syncChange('ws_rev', 'PMS-A', 'review', review('r-1', 'lst_a', { body: 'old', updatedAt: '2025-04-01T00:00:00Z' }));
      expect((await reviewsOf('ws_rev'))[0]!.body).toBe('Lovely stay');
      await syncChange('ws_rev', 'PMS-A', 'review', review('r-1', 'lst_a', { body: 'Lovely stay, edited', updatedAt: '2025-05-02T00:00:00Z' }));
      expect((await reviewsOf('ws_rev'))[0]!.body).toBe('Lovely stay, edited');
      expect(published.filter((p) => p.topic === TOPICS.reviewEvents.name && p.type === 'review.created')).toHaveLength(1);
      // The listing resolved from the PMS listing id of the change.
      await syncChange('ws_rev', 'PMS-G', 'review', { ...review('r-2', ''), submittedAt: '2025-05-03T00:00:00Z' }, 'ext-lst_g');
      expect((await reviewsOf('ws_rev')).map((r) => [r.externalId, r.listingId])).toEqual([
        ['r-2', 'lst_g'],
        ['r-1', 'lst_a'],
      ]);
    });

    it('relays a reply on PMS-A; refuses a reply on PMS-F and sends nothing; replies once', async () => {
      await syncChange('ws_rev', 'PMS-F', 'review', review('r-f', 'lst_f', { submittedAt: '2025-01-01T00:00:00Z' }));
      const all = await reviewsOf('ws_rev');
      const onA = all.find((r) => r.externalId === 'r-1')!;
      const onF = all.find((r) => r.externalId === 'r-f')!;
      const { review: replied } = await client.call('replyToReview', { idempotencyKey: '', workspaceId: 'ws_rev', id: onA.id, body: 'Thank you!' });
      expect(replied!.reply!.body).toBe('Thank you!');
      expect(fake.relayed.at(-1)).toMatchObject({ provider: 'PMS-A', operation: 'review.reply', entityExternalId: 'r-1' });
      expect((await errorOf(client.call('replyToReview', { idempotencyKey: '', workspaceId: 'ws_rev', id: onA.id, body: 'Again' }))).code).toBe('conflict');
      const before = fake.relayed.length;
      const err = await errorOf(client.call('replyToReview', { idempotencyKey: '', workspaceId: 'ws_rev', id: onF.id, body: 'Thanks' }));
      expect(err.code).toBe('pms_write_unsupported');
      expect(err.details.provider).toBe('PMS-F');
      expect(fake.relayed.length).toBe(before);
      expect((await client.call('getReview', { workspaceId: 'ws_rev', id: onF.id })).review!.reply).toBeUndefined();
      expect((await errorOf(client.call('replyToReview', { idempotencyKey: '', workspaceId: 'ws_rev', id: onF.id, body: ' ' }))).details.fields).toEqual({
        body: 'is required',
      });
    });

    it('leaves out reviews of inactive listings; direct reads and filters are 403', async () => {
      await syncChange('ws_rev', 'PMS-A', 'review', review('r-off', 'lst_a_off'));
      const off = (await reviewsOf('ws_rev')).find((r) => r.externalId === 'r-off')!;
      await setActive('ws_rev', 'lst_a_off', false);
      expect((await reviewsOf('ws_rev')).map((r) => r.externalId)).not.toContain('r-off');
      expect((await errorOf(client.call('getReview', { workspaceId: 'ws_rev', id: off.id }))).code).toBe('listing_inactive');
      expect((await errorOf(client.call('replyToReview', { idempotencyKey: '', workspaceId: 'ws_rev', id: off.id, body: 'x' }))).code).toBe('listing_inactive');
      expect((await errorOf(client.call('listReviews', { workspaceId: 'ws_rev', listingId: 'lst_a_off' }))).code).toBe('listing_inactive');
      expect((await errorOf(client.call('getReview', { workspaceId: 'ws_other', id: off.id }))).code).toBe('not_found');
    });
  });

  /** A pending PMS request of Ria's (pms.sync payload), for the requests tests and the sync-idempotency tests. */
  const request = (externalId: string, listingId: string) => ({
    externalId,
    listingId,
    guest: { firstName: 'Ria' },
    checkIn: '2025-08-01',
    checkOut: '2025-08-05',
    guests: 2,
    status: 'pending',
    updatedAt: '2025-07-01T00:00:00Z',
  });

  describe('reservation requests and inquiries', () => {
    const byExternal = async (externalId: string) =>
      (await client.call('listRequests', { workspaceId: 'ws_req', listingId: '', status: '', kind: '' })).requests.find((r) => r.externalId === externalId)!;

    beforeAll(async () => {
      await syncChange('ws_req', 'PMS-A', 'request', request('q-a', 'lst_a'));
      await syncChange('ws_req', 'PMS-F', 'request', request('q-f', 'lst_f'));
      await syncChange('ws_req', 'PMS-F', 'inquiry', request('i-f', 'lst_f'));
      await syncChange('ws_req', 'PMS-G', 'inquiry', request('i-g', 'lst_g'));
      await syncChange('ws_req', 'PMS-A', 'inquiry', request('i-a', 'lst_a'));
    });

    it('accepts a PMS-A request (relayed), and refuses a second answer; request.created then request.updated, once each, the PMS echo adding none', async () => {
      const q = await byExternal('q-a');
      expect(q).toMatchObject({ kind: 'request', status: 'pending', provider: 'PMS-A' });
      const { request: done } = await client.call('answerRequest', { idempotencyKey: '', workspaceId: 'ws_req', id: q.id, decision: 'accept', message: '' });
      expect(done!.status).toBe('accepted');
      expect(fake.relayed.at(-1)).toMatchObject({ operation: 'request.answer', provider: 'PMS-A', entityExternalId: 'q-a' });
      expect(
        (await errorOf(client.call('answerRequest', { idempotencyKey: '', workspaceId: 'ws_req', id: q.id, decision: 'decline', message: '' }))).code,
      ).toBe('conflict');
      // The PMS reports the answer back with its next sync: already applied, no news.
      await syncChange('ws_req', 'PMS-A', 'request', { ...request('q-a', 'lst_a'), status: 'accepted', updatedAt: '2025-07-02T00:00:00Z' });
      await bus.whenIdle();
      expect(
        published
          .filter((p) => p.topic === TOPICS.requestEvents.name && p.key === 'lst_a')
          .map((p) => p.type)
          .filter((t, i, all) => all.indexOf(t) === i),
      ).toEqual(['request.created', 'request.updated']);
      expect(published.filter((p) => p.topic === TOPICS.requestEvents.name && p.type === 'request.updated' && p.key === 'lst_a')).toHaveLength(1);
    });

    it('refuses answering a request and pre-approving an inquiry relayed by PMS-F, sending nothing', async () => {
      const before = fake.relayed.length;
      for (const decision of ['accept', 'decline']) {
        const err = await errorOf(
          client.call('answerRequest', { idempotencyKey: '', workspaceId: 'ws_req', id: (await byExternal('q-f')).id, decision, message: '' }),
        );
        expect([err.code, err.details.provider]).toEqual(['pms_write_unsupported', 'PMS-F']);
      }
      const err = await errorOf(
        client.call('preApproveInquiry', {
          idempotencyKey: '',
          workspaceId: 'ws_req',
          id: (await byExternal('i-f')).id,
          blockInstantBooking: false,
          message: '',
        }),
      );
      expect([err.code, err.details.provider]).toEqual(['pms_write_unsupported', 'PMS-F']);
      expect(fake.relayed.length).toBe(before);
      expect((await byExternal('q-f')).status).toBe('pending');
    });

    it('refuses blockInstantBooking on a PMS-G pre-approval; without it PMS-G pre-approves', async () => {
      const i = await byExternal('i-g');
      const before = fake.relayed.length;
      const err = await errorOf(
        client.call('preApproveInquiry', { idempotencyKey: '', workspaceId: 'ws_req', id: i.id, blockInstantBooking: true, message: '' }),
      );
      expect([err.code, err.details.provider]).toEqual(['pms_write_unsupported', 'PMS-G']);
      expect(fake.relayed.length).toBe(before);
      const { request: done } = await client.call('preApproveInquiry', {
        idempotencyKey: '',
        workspaceId: 'ws_req',
        id: i.id,
        blockInstantBooking: false,
        message: '',
      });
      expect(done!.status).toBe('pre_approved');
      const { request: a } = await client.call('preApproveInquiry', {
        idempotencyKey: '',
        workspaceId: 'ws_req',
        id: (await byExternal('i-a')).id,
        blockInstantBooking: true,
        message: '',
      });
      expect(a).toMatchObject({ status: 'pre_approved', blockInstantBooking: true });
    });

    it('refuses the wrong action for the kind, and a bad decision', async () => {
      const i = await byExternal('i-g');
      expect((await errorOf(client.call('answerRequest', { idempotencyKey: '', workspaceId: 'ws_req', id: i.id, decision: 'accept', message: '' }))).code).toBe(
        'conflict',
      );
      expect(
        (await errorOf(client.call('answerRequest', { idempotencyKey: '', workspaceId: 'ws_req', id: i.id, decision: 'maybe', message: '' }))).details.fields,
      ).toEqual({ decision: 'must be accept or decline' });
      const longNote = 'x'.repeat(MAX_REQUEST_NOTE_LENGTH + 1);
      expect(
        (
          await errorOf(
            client.call('preApproveInquiry', { idempotencyKey: '', workspaceId: 'ws_req', id: i.id, blockInstantBooking: false, message: longNote }),
          )
        ).details.fields,
      ).toEqual({ message: 'must be at most 5000 characters' });
      expect((await errorOf(client.call('listRequests', { workspaceId: 'ws_req', listingId: '', status: 'open', kind: '' }))).details.fields).toEqual({
        status: expect.any(String),
      });
    });
  });

  describe('guest sync from a PMS', () => {
    it('replaces the email the PMS guest record reported before, keeping what a stay still reports', async () => {
      const record = { externalId: 'g-90', firstName: 'Ren', email: 'ren@old.example', phone: '+81 90 1111 2222', updatedAt: '2025-04-01T00:00:00Z' };
      await syncChange('ws_gr', 'PMS-B', 'guest', record);
      // A stay of the same guest reports the old phone too.
      await reservationEvent('ws_gr', { id: 'res_gr', propertyId: 'lst_on', primaryGuest: guestOf('Ren', '', '', '+81 90 1111 2222') });
      await syncChange('ws_gr', 'PMS-B', 'guest', { ...record, email: 'ren@new.example', phone: '+81 90 3333 4444', updatedAt: '2025-04-02T00:00:00Z' });
      const [g] = (await client.call('listGuests', pb.ListGuestsRequest.create({ workspaceId: 'ws_gr' }))).guests;
      expect(g!.contacts).toEqual([
        { type: 'EMAIL', value: 'ren@new.example', isPrimary: true },
        { type: 'PHONE', value: '+81 90 1111 2222', isPrimary: false },
        { type: 'PHONE', value: '+81 90 3333 4444', isPrimary: false },
      ]);
    });

    it('creates, matches and updates PMS guests idempotently, publishing guest events', async () => {
      const payload = { externalId: 'g-77', firstName: 'Hana', lastName: 'Sato', email: 'hana@example.jp', updatedAt: '2025-03-01T00:00:00Z' };
      const value = await syncChange('ws_gs', 'PMS-B', 'guest', payload);
      await bus.publish(TOPICS.pmsSync.name, [{ key: 'none', value }]);
      await bus.whenIdle();
      let guests = (await client.call('listGuests', pb.ListGuestsRequest.create({ workspaceId: 'ws_gs' }))).guests;
      expect(guests).toHaveLength(1);
      expect(guests[0]).toMatchObject({ firstName: 'Hana', provider: 'PMS-B', externalId: 'g-77' });
      await syncChange('ws_gs', 'PMS-B', 'guest', { ...payload, firstName: 'Hanako', updatedAt: '2025-03-02T00:00:00Z' });
      await syncChange('ws_gs', 'PMS-B', 'guest', { ...payload, firstName: 'Stale', updatedAt: '2025-02-01T00:00:00Z' });
      guests = (await client.call('listGuests', pb.ListGuestsRequest.create({ workspaceId: 'ws_gs' }))).guests;
      expect(guests.map((g) => g.firstName)).toEqual(['Hanako']);
      // A reservation with the same email lands on the PMS profile.
      await reservationEvent('ws_gs', { id: 'res_gs', propertyId: 'lst_on', primaryGuest: guestOf('H', '', 'HANA@example.jp') });
      guests = (await client.call('listGuests', pb.ListGuestsRequest.create({ workspaceId: 'ws_gs' }))).guests;
      expect(guests).toHaveLength(1);
      expect(guests[0]!.listingIds).toEqual(['lst_on']);
      const types = published.filter((p) => p.key === guests[0]!.id).map((p) => p.type);
      expect(types).toEqual(['guest.created', 'guest.updated', 'guest.updated']);
      // A malformed change is a dead letter at once, not retried forever; the sync goes on.
      await syncChange('ws_gs', 'PMS-B', 'guest', { externalId: 'g-bad', firstName: 'X', updatedAt: 'not a date' });
      await syncChange('ws_gs', 'PMS-B', 'guest', { externalId: 'g-78', firstName: 'Kei', updatedAt: '2025-03-01T00:00:00Z' });
      expect((await client.call('listGuests', pb.ListGuestsRequest.create({ workspaceId: 'ws_gs' }))).guests.map((g) => g.firstName).sort()).toEqual([
        'Hanako',
        'Kei',
      ]);
      const deadLetters = createUpstream(ops.DeadLetterServiceClient, { name: 'guest-dead-letters', address: `127.0.0.1:${running.grpcPort}` });
      try {
        const found = (await deadLetters.call('listDeadLetters', ops.ListDeadLettersRequest.create({ workspaceId: 'ws_gs' }))).deadLetters;
        expect(found).toEqual([
          expect.objectContaining({
            service: 'guest',
            consumerGroup: 'guest-pms-sync',
            topic: TOPICS.pmsSync.name,
            errorCode: 'malformed_payload',
            reason: 'permanent',
            attempts: 1,
          }),
        ]);
        expect(found[0]!.errorMessage).toContain('not a time');
        // A reservation event without its reservation cannot be applied either.
        const empty = reservationEvents.ReservationEvent.create({
          eventId: newId('evt'),
          workspaceId: 'ws_gs',
          listingId: 'lst_on',
          type: reservationEvents.ReservationEventType.RESERVATION_EVENT_TYPE_CREATED,
        });
        await bus.publish(TOPICS.reservationEvents.name, [{ key: 'lst_on', value: reservationEvents.ReservationEvent.encode(empty).finish() }]);
        await bus.whenIdle();
        const events = (
          await deadLetters.call('listDeadLetters', ops.ListDeadLettersRequest.create({ workspaceId: 'ws_gs', consumerGroup: 'guest-reservation-events' }))
        ).deadLetters;
        expect(events).toEqual([expect.objectContaining({ topic: TOPICS.reservationEvents.name, errorCode: 'malformed_payload', listingId: 'lst_on' })]);
      } finally {
        deadLetters.close();
      }
    });
  });

  describe('Idempotency-Key stored with every write (a retry the gateway could not answer writes nothing)', () => {
    const WS = 'ws_idem';
    const relayedNow = () => fake.relayed.length;
    const eventsOn = async (topic: string) => {
      await bus.whenIdle();
      return published.filter((p) => p.topic === topic).length;
    };
    const withSync = async (entity: string, externalId: string, listingId: string) => {
      const payload =
        entity === 'review'
          ? { externalId, listingId, guestName: 'Sam', rating: 4, body: 'Nice', submittedAt: '2025-05-01T00:00:00Z', updatedAt: '2025-05-01T00:00:00Z' }
          : request(externalId, listingId);
      await syncChange(WS, 'PMS-A', entity, payload);
    };

    it('a message sent again with its key answers the first message: one message, one event, one PMS relay', async () => {
      const id = newId('res');
      await reservationEvent(WS, { id, propertyId: 'lst_a', primaryGuest: guestOf('Kai', 'Idem', `${id}@example.com`) });
      const c = (await client.call('listConversations', { workspaceId: WS, reservationId: id, listingId: '', guestId: '' })).conversations[0]!;
      const send = (body: string) =>
        client.call('sendMessage', pb.SendMessageRequest.create({ workspaceId: WS, conversationId: c.id, body, idempotencyKey: 'msg-key-1' }));
      const relays = relayedNow();
      const events = await eventsOn(TOPICS.messageEvents.name);
      const first = await send('Hello once');
      const again = await send('Hello once');
      expect(again.message!.id).toBe(first.message!.id);
      expect(relayedNow()).toBe(relays + 1);
      expect((await client.call('listMessages', { workspaceId: WS, conversationId: c.id })).messages.map((m) => m.id)).toEqual([first.message!.id]);
      expect(await eventsOn(TOPICS.messageEvents.name)).toBe(events + 1);
      // The same key with another body is refused as the gateway refuses it; nothing is sent.
      expect((await errorOf(send('Hello twice'))).code).toBe('idempotency_conflict');
      expect(relayedNow()).toBe(relays + 1);
    });

    it('concurrent sends with one key store one message', async () => {
      const id = newId('res');
      await reservationEvent(WS, { id, propertyId: 'lst_plain', primaryGuest: guestOf('Lou', 'Idem', `${id}@example.com`) });
      const c = (await client.call('listConversations', { workspaceId: WS, reservationId: id, listingId: '', guestId: '' })).conversations[0]!;
      const sent = await Promise.all(
        Array.from({ length: 5 }, () =>
          client.call('sendMessage', pb.SendMessageRequest.create({ workspaceId: WS, conversationId: c.id, body: 'Once', idempotencyKey: 'msg-key-2' })),
        ),
      );
      expect(new Set(sent.map((r) => r.message!.id)).size).toBe(1);
      expect((await client.call('listMessages', { workspaceId: WS, conversationId: c.id })).messages).toHaveLength(1);
    });

    it('a review reply sent again with its key answers the replied review: one relay, one event, no 409', async () => {
      await withSync('review', 'idem-r-1', 'lst_a');
      const r = (await client.call('listReviews', { workspaceId: WS, listingId: '' })).reviews.find((x) => x.externalId === 'idem-r-1')!;
      const relays = relayedNow();
      const events = await eventsOn(TOPICS.reviewEvents.name);
      const reply = (body: string) => client.call('replyToReview', { workspaceId: WS, id: r.id, body, idempotencyKey: 'reply-key-1' });
      const first = await reply('Thanks!');
      const again = await reply('Thanks!');
      expect(again.review!.reply!.body).toBe('Thanks!');
      expect(again.review!.id).toBe(first.review!.id);
      expect(relayedNow()).toBe(relays + 1);
      expect(await eventsOn(TOPICS.reviewEvents.name)).toBe(events + 1);
      expect((await errorOf(reply('Thanks again!'))).code).toBe('idempotency_conflict');
      expect(relayedNow()).toBe(relays + 1);
    });

    it('a request answer and a pre-approval sent again with their keys answer the first outcome: one relay each', async () => {
      await withSync('request', 'idem-q-1', 'lst_a');
      await withSync('inquiry', 'idem-i-1', 'lst_a');
      const all = (await client.call('listRequests', { workspaceId: WS, listingId: '', status: '', kind: '' })).requests;
      const q = all.find((x) => x.externalId === 'idem-q-1')!;
      const i = all.find((x) => x.externalId === 'idem-i-1')!;
      const relays = relayedNow();
      const accept = () => client.call('answerRequest', { workspaceId: WS, id: q.id, decision: 'accept', message: '', idempotencyKey: 'answer-key-1' });
      expect((await accept()).request!.status).toBe('accepted');
      expect((await accept()).request!.status).toBe('accepted');
      expect(relayedNow()).toBe(relays + 1);
      const decline = await errorOf(
        client.call('answerRequest', { workspaceId: WS, id: q.id, decision: 'decline', message: '', idempotencyKey: 'answer-key-1' }),
      );
      expect(decline.code).toBe('idempotency_conflict');
      const preApprove = () =>
        client.call('preApproveInquiry', { workspaceId: WS, id: i.id, blockInstantBooking: false, message: 'Welcome', idempotencyKey: 'pre-key-1' });
      expect((await preApprove()).request!.status).toBe('pre_approved');
      expect((await preApprove()).request!.status).toBe('pre_approved');
      expect(relayedNow()).toBe(relays + 2);
      // Without a key a second answer is still refused: the rule is unchanged.
      expect((await errorOf(client.call('answerRequest', { workspaceId: WS, id: q.id, decision: 'accept', message: '', idempotencyKey: '' }))).code).toBe(
        'conflict',
      );
    });
  });

  it('decodes the published events as their proto messages', async () => {
    const seen: guestEvents.GuestEvent[] = [];
    const sub = await bus.subscribe({
      groupId: 'decode-check',
      topics: [TOPICS.guestEvents.name],
      fromBeginning: true,
      handler: async (m) => void seen.push(guestEvents.GuestEvent.decode(m.value)),
    });
    await bus.whenIdle();
    await sub.stop();
    const created = seen.find((e) => e.guest?.firstName === 'Mia')!;
    expect(created.type).toBe(guestEvents.GuestEventType.GUEST_EVENT_TYPE_CREATED);
    expect(created.workspaceId).toBe('ws_c');
    expect(created.listingIds).toEqual([]);
  });
});
