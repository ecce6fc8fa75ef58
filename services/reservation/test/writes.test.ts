// Component test of reservation writes over real gRPC with embedded engines: create, change,
// cancel, quote, the PMS refusals (docs/api.md, writes that a PMS cannot perform) against a fake pms-adapter gRPC server that records
// every RelayWrite it receives, the outbox events, and the pms.sync.v1 consumer.
import { listingEvents, ops, pms, pmsSync, reservation as pb, reservationEvents, TOPICS, type ReservationSyncPayload } from '@vrp/contracts';
import { AppError } from '@vrp/platform/errors';
import { createMemoryBus } from '@vrp/engines/bus';
import { createMemoryStore } from '@vrp/engines/store';
import { createUpstream, type Upstream } from '@vrp/platform/grpc';
import { DEFAULT_ADDRESSES, type RunningService } from '@vrp/platform/service';
import { startReservationUnderTest } from './support';
import { CONFIRMATION_ALPHABET } from '../src/domain/confirmation-code';
import type { NightPrice } from '../src/domain/pricing';
import type { ListingDirectory, ListingInfo } from '../src/ports/listings';
import { errorOf, startFakeService } from '@vrp/testkit';

const WS = 'ws_w';

const listing = (id: string, extra: Partial<ListingInfo> = {}): ListingInfo => ({
  id,
  name: `Listing ${id}`,
  active: true,
  pmsProvider: '',
  pmsExternalId: '',
  currency: 'EUR',
  defaultNightlyPrice: 100,
  cleaningFee: 40,
  taxRate: 0.1,
  ...extra,
});

describe('reservation writes over gRPC', () => {
  const bus = createMemoryBus();
  const store = createMemoryStore();
  const listings = new Map<string, ListingInfo>();
  /** PMS listings (provider/external id) the workspace deleted after their import. */
  const deletedPms = new Set<string>();
  /** Lookups of PMS listings by the sync consumer, per PMS listing id; onLookup runs on each. */
  const lookups = new Map<string, number>();
  let onLookup: (externalId: string) => void = () => undefined;
  for (const l of [
    listing('lst_plain'),
    listing('lst_other'),
    listing('lst_off', { active: false }),
    // Inactive as the activity cache knows it; the listing service's answer (active) is not asked for activity.
    listing('lst_cacheoff'),
    // Imported unlisted a moment ago: inactive at the listing service, its activity event not received yet.
    listing('lst_newoff', { active: false }),
    ...['A', 'B', 'C', 'D', 'E', 'F'].map((p) => listing(`lst_pms${p.toLowerCase()}`, { pmsProvider: `PMS-${p}`, pmsExternalId: `ext-${p}` })),
  ])
    listings.set(l.id, l);
  /** Nights priced 100, except 2026-03-02 at 150; 2026-03-03 is closed on lst_plain. */
  const directory: ListingDirectory = {
    async resolve(ws, id) {
      const l = ws === WS ? listings.get(id) : undefined;
      if (!l) throw new AppError('not_found', `No listing with id '${id}' exists in this workspace.`);
      return l;
    },
    async nights(_ws, id, from, to) {
      const out: NightPrice[] = [];
      for (let d = new Date(`${from}T00:00:00Z`); d.toISOString().slice(0, 10) <= to; d = new Date(d.getTime() + 86_400_000)) {
        const date = d.toISOString().slice(0, 10);
        out.push({ date, price: date === '2026-03-02' ? 150 : 100, available: !(id === 'lst_plain' && date === '2026-03-03') });
      }
      return out;
    },
    async stay(ws, id, from, to) {
      const listing = await directory.resolve(ws, id);
      return { listing, nights: await directory.nights(ws, listing.id, from, to) };
    },
    async byPmsId(ws, provider, externalId) {
      lookups.set(externalId, (lookups.get(externalId) ?? 0) + 1);
      onLookup(externalId);
      const listing = [...listings.values()].find((l) => ws === WS && l.pmsProvider === provider && l.pmsExternalId === externalId) ?? null;
      return { listing, deleted: !listing && ws === WS && deletedPms.has(`${provider}/${externalId}`) };
    },
  };

  // The fake pms-adapter: records every relayed write; `pmsDown` makes it answer what the
  // pms-adapter answers for a PMS that is down (an error of the PMS, then its open breaker).
  const relayed: pms.RelayWriteRequest[] = [];
  let pmsDown: AppError | null = null;
  const START = new Date('2026-01-10T09:00:00Z');
  let clockNow = START;
  const inFlight = new Map<string, number>();
  const maxInFlight = new Map<string, number>();
  let pmsAdapter: RunningService;
  let running: RunningService;
  let client: Upstream<pb.ReservationServiceClient>;
  let deadLetters: Upstream<ops.DeadLetterServiceClient>;
  const events: reservationEvents.ReservationEvent[] = [];

  beforeAll(async () => {
    pmsAdapter = await startFakeService('fake-pms-adapter', pms.PmsAdapterServiceService, {
      async relayWrite(req: pms.RelayWriteRequest) {
        if (pmsDown) throw pmsDown;
        // A PMS takes a moment; concurrent writes of one reservation would overlap here.
        const entity = req.entityExternalId;
        if (entity) {
          inFlight.set(entity, (inFlight.get(entity) ?? 0) + 1);
          maxInFlight.set(entity, Math.max(maxInFlight.get(entity) ?? 0, inFlight.get(entity)!));
          await new Promise((resolve) => setTimeout(resolve, 3));
          inFlight.set(entity, inFlight.get(entity)! - 1);
        }
        relayed.push(req);
        return { entityExternalId: req.entityExternalId || `pmsres-${relayed.length}`, resultJson: '{}' };
      },
    });
    const sut = await startReservationUnderTest({
      store,
      bus,
      addresses: { ...DEFAULT_ADDRESSES, pmsAdapter: `127.0.0.1:${pmsAdapter.grpcPort}` },
      listings: directory,
      clock: () => clockNow,
      // Short backoffs: the budget (5 attempts) is what the sync tests exercise, not the waiting.
      consumerRetry: { baseDelayMs: 5, maxDelayMs: 20 },
    });
    ({ running, client } = sut);
    deadLetters = createUpstream(ops.DeadLetterServiceClient, { name: 'reservation-dead-letters', address: sut.address });
    await bus.subscribe({
      groupId: 'test-reservation-events',
      topics: [TOPICS.reservationEvents.name],
      fromBeginning: true,
      // At-least-once: a redelivered event (same event id) is counted once.
      handler: async (m) => {
        const event = reservationEvents.ReservationEvent.decode(m.value);
        if (!events.some((e) => e.eventId === event.eventId)) events.push(event);
      },
    });
    // lst_off is inactive as far as the activity cache knows.
    await bus.ensureTopics([TOPICS.listingActivity]);
    await bus.publish(TOPICS.listingActivity.name, [
      {
        key: 'lst_off',
        value: listingEvents.ListingActivityChanged.encode(
          listingEvents.ListingActivityChanged.create({ workspaceId: WS, listingId: 'lst_off', listingName: 'Listing lst_off', active: false, version: 2 }),
        ).finish(),
      },
      {
        key: 'lst_cacheoff',
        value: listingEvents.ListingActivityChanged.encode(
          listingEvents.ListingActivityChanged.create({ workspaceId: WS, listingId: 'lst_cacheoff', listingName: 'Cache Off', active: false, version: 2 }),
        ).finish(),
      },
    ]);
    await bus.whenIdle();
  });
  afterAll(async () => {
    client.close();
    deadLetters.close();
    await running.stop();
    await pmsAdapter.stop();
    await bus.close();
    await store.close();
  });

  // Each create gets nights of its own unless a test names them: a night is held by one stay only.
  let stays = 0;
  const freshStay = () => {
    const checkIn = new Date(Date.UTC(2028, 0, 1) + 3 * 86_400_000 * stays++).toISOString().slice(0, 10);
    return { checkIn, checkOut: new Date(Date.parse(`${checkIn}T00:00:00Z`) + 2 * 86_400_000).toISOString().slice(0, 10) };
  };
  const MARCH = { checkIn: '2026-03-01', checkOut: '2026-03-03' };
  const base = (extra: Partial<pb.NewReservation> = {}): pb.NewReservation =>
    pb.NewReservation.create({ propertyId: 'lst_plain', ...freshStay(), primaryGuest: { firstName: 'Ana' }, ...extra });
  const create = (extra: Partial<pb.NewReservation> = {}, idempotencyKey = '') =>
    client.call('createReservation', { workspaceId: WS, reservation: base(extra), idempotencyKey });
  const update = (id: string, extra: Partial<pb.UpdateReservationRequest>) =>
    client.call('updateReservation', pb.UpdateReservationRequest.create({ workspaceId: WS, id, ...extra }));
  const eventsOf = async (id: string) => {
    await bus.whenIdle();
    return events.filter((e) => e.reservation?.id === id).map((e) => e.type);
  };

  it('creates a CONFIRMED reservation priced from the calendar, with a confirmation code, and publishes created', async () => {
    const { reservation: r } = await create({
      ...MARCH,
      occupancy: { adults: 2, children: 1, infants: 0, pets: 0 },
      notes: { host: 'late arrival', guest: '' },
      customFields: { door: '1234' },
    });
    expect(r?.status).toBe('CONFIRMED');
    expect(r?.confirmationCode).toMatch(new RegExp(`^[${CONFIRMATION_ALPHABET}]{8}$`));
    // 100 + 150 nights, 40 cleaning, 10 % tax on both = 29.
    expect(r?.financials).toEqual({
      totalPrice: 319,
      currency: 'EUR',
      paymentStatus: 'UNPAID',
      breakdown: { basePrice: 250, cleaningFee: 40, fees: [], taxes: [{ type: 'TAX', amount: 29, rate: 0.1 }], discounts: [] },
    });
    expect(r?.notes).toEqual({ host: 'late arrival', guest: '' });
    expect(r?.customFields).toEqual({ door: '1234' });
    expect(r?.bookedAt).toEqual(new Date('2026-01-10T09:00:00Z'));
    expect(await eventsOf(r!.id)).toEqual([reservationEvents.ReservationEventType.RESERVATION_EVENT_TYPE_CREATED]);
    const created = events.find((e) => e.reservation?.id === r!.id)!;
    expect(created).toMatchObject({ workspaceId: WS, listingId: 'lst_plain' });
    expect(relayed).toHaveLength(0); // no PMS on this listing
  });

  it('a custom total keeps the breakdown adding up with a CUSTOM_PRICE line', async () => {
    const { reservation: r } = await create({ ...MARCH, propertyId: 'lst_other', totalPrice: 300, currency: 'USD' });
    expect(r?.financials?.totalPrice).toBe(300);
    expect(r?.financials?.currency).toBe('USD');
    expect(r?.financials?.breakdown?.discounts).toEqual([{ type: 'CUSTOM_PRICE', amount: 19 }]);
  });

  it('names every invalid create field', async () => {
    const err = await errorOf(
      create({
        propertyId: '',
        checkIn: '2026-02-30',
        checkOut: '',
        primaryGuest: { firstName: ' ', lastName: '', email: '', language: '', phone: '' },
        source: 'FAX',
        platform: 'agent',
        occupancy: { adults: -1, children: 0, infants: 0, pets: 0 },
        currency: 'euro',
      }),
    );
    expect(err.code).toBe('validation_failed');
    expect(Object.keys(err.details.fields ?? {}).sort()).toEqual(
      ['checkIn', 'checkOut', 'financials.currency', 'occupancy.adults', 'platform', 'primaryGuest.firstName', 'propertyId', 'source'].sort(),
    );
    expect((await errorOf(create({ checkIn: '2026-03-05', checkOut: '2026-03-05' }))).details.fields).toEqual({ checkOut: 'must be after checkIn' });
  });

  it('accepts MANUAL as a source on create', async () => {
    expect((await create({ source: 'MANUAL' })).reservation?.source).toBe('MANUAL');
  });

  it('an unknown listing is 404, an inactive one 403', async () => {
    expect((await errorOf(create({ propertyId: 'lst_nope' }))).code).toBe('not_found');
    const inactive = await errorOf(create({ propertyId: 'lst_off' }));
    expect(inactive.code).toBe('listing_inactive');
    expect(inactive.details.listingIds).toEqual(['lst_off']);
  });

  it('writes decide listing_inactive as reads do: by the activity cache, and by the listing service for a listing the cache has not seen', async () => {
    const byCache = await errorOf(create({ propertyId: 'lst_cacheoff' }));
    expect([byCache.code, byCache.details.listings]).toEqual(['listing_inactive', [{ id: 'lst_cacheoff', name: 'Cache Off' }]]);
    const notSeenYet = await errorOf(create({ propertyId: 'lst_newoff' }));
    expect([notSeenYet.code, notSeenYet.details.listingIds]).toEqual(['listing_inactive', ['lst_newoff']]);
    // Moving a stay onto either is refused the same way.
    const r = (await create()).reservation!;
    for (const target of ['lst_cacheoff', 'lst_newoff']) expect((await errorOf(update(r.id, { propertyId: target }))).code).toBe('listing_inactive');
  });

  describe('PMS refusals are decided before anything reaches the PMS', () => {
    const refusals: [string, () => Promise<unknown>, string][] = [
      ['platform: owner on a PMS listing', () => create({ propertyId: 'lst_pmsb', platform: 'owner' }), 'PMS-B'],
      ['unitId on PMS-F', () => create({ propertyId: 'lst_pmsf', unitId: 'unit-2' }), 'PMS-F'],
      ['unitId on PMS-E', () => create({ propertyId: 'lst_pmse', unitId: 'unit-2', totalPrice: 300 }), 'PMS-E'],
      ['tentative hold on PMS-E', () => create({ propertyId: 'lst_pmse', tentativeHold: true, totalPrice: 300 }), 'PMS-E'],
      ['group booking on PMS-A', () => create({ propertyId: 'lst_pmsa', groupId: 'grp-1' }), 'PMS-A'],
      [
        'quote on PMS-C',
        () => client.call('quoteReservation', { workspaceId: WS, propertyId: 'lst_pmsc', checkIn: '2026-03-01', checkOut: '2026-03-03' }),
        'PMS-C',
      ],
      [
        'quote on PMS-D',
        () => client.call('quoteReservation', { workspaceId: WS, propertyId: 'lst_pmsd', checkIn: '2026-03-01', checkOut: '2026-03-03' }),
        'PMS-D',
      ],
      [
        'quote on PMS-E',
        () => client.call('quoteReservation', { workspaceId: WS, propertyId: 'lst_pmse', checkIn: '2026-03-01', checkOut: '2026-03-03' }),
        'PMS-E',
      ],
    ];
    it.each(refusals)('%s -> 422 pms_write_unsupported naming the PMS, nothing relayed', async (_what, call, provider) => {
      const before = relayed.length;
      const err = await errorOf(call());
      expect(err.code).toBe('pms_write_unsupported');
      expect(err.details.provider).toBe(provider);
      expect(relayed.length).toBe(before);
    });

    it('a group booking on PMS-D is relayed', async () => {
      const { reservation: r } = await create({ propertyId: 'lst_pmsd', groupId: 'grp-1' });
      expect(r?.groupId).toBe('grp-1');
      expect(relayed.at(-1)).toMatchObject({ provider: 'PMS-D', operation: 'reservation.create', listingExternalId: 'ext-D' });
    });

    it('PMS-E requires totalPrice; with it the create is relayed with the caller’s idempotency key', async () => {
      const before = relayed.length;
      expect((await errorOf(create({ propertyId: 'lst_pmse' }))).details.fields).toEqual({
        'financials.totalPrice': 'is required on listings managed by PMS-E',
      });
      expect(relayed.length).toBe(before);
      const { reservation: r } = await create({ ...MARCH, propertyId: 'lst_pmse', totalPrice: 300 }, 'key-1');
      expect(r).toMatchObject({ pmsProvider: 'PMS-E', pmsExternalId: `pmsres-${before + 1}` });
      expect(relayed.at(-1)).toMatchObject({ operation: 'reservation.create', idempotencyKey: `${WS}:key-1` });
      expect(JSON.parse(relayed.at(-1)!.payloadJson)).toMatchObject({ checkIn: '2026-03-01', checkOut: '2026-03-03', totalPrice: 300 });
    });

    it('cancel on PMS-A, date changes on PMS-B, moving and time changes on any PMS are refused; supported changes are relayed', async () => {
      const onA = (await create({ ...MARCH, propertyId: 'lst_pmsa' })).reservation!;
      const onB = (await create({ ...MARCH, propertyId: 'lst_pmsb' })).reservation!;
      const before = relayed.length;
      const refused = [
        await errorOf(client.call('cancelReservation', { workspaceId: WS, id: onA.id, idempotencyKey: '', expectedVersion: 0 })),
        await errorOf(update(onA.id, { status: 'CANCELLED' })),
        await errorOf(update(onB.id, { checkOut: '2026-03-04' })),
        await errorOf(update(onB.id, { propertyId: 'lst_plain' })),
        await errorOf(update(onB.id, { checkInTime: '17:00' })),
        await errorOf(update(onA.id, { checkOutTime: '09:00' })),
      ];
      expect(refused.map((e) => [e.code, e.details.provider])).toEqual([
        ['pms_write_unsupported', 'PMS-A'],
        ['pms_write_unsupported', 'PMS-A'],
        ['pms_write_unsupported', 'PMS-B'],
        ['pms_write_unsupported', 'PMS-B'],
        ['pms_write_unsupported', 'PMS-B'],
        ['pms_write_unsupported', 'PMS-A'],
      ]);
      expect(relayed.length).toBe(before);
      expect((await client.call('getReservation', { workspaceId: WS, id: onB.id })).reservation?.checkOut).toBe('2026-03-03');

      // What the PMS can do goes through: dates on PMS-A, cancel on PMS-B.
      const moved = await update(onA.id, { checkOut: '2026-03-04' });
      expect(moved.reservation?.checkOut).toBe('2026-03-04');
      expect(relayed.at(-1)).toMatchObject({ provider: 'PMS-A', operation: 'reservation.modify', entityExternalId: onA.pmsExternalId });
      const cancelled = await client.call('cancelReservation', { workspaceId: WS, id: onB.id, idempotencyKey: '', expectedVersion: 0 });
      expect(cancelled.reservation?.status).toBe('CANCELLED');
      expect(relayed.at(-1)).toMatchObject({ provider: 'PMS-B', operation: 'reservation.cancel', entityExternalId: onB.pmsExternalId });
    });

    it('moving a plain stay onto a PMS listing is refused too', async () => {
      const r = (await create()).reservation!;
      expect((await errorOf(update(r.id, { propertyId: 'lst_pmsd' }))).details.provider).toBe('PMS-D');
    });

    // The one PMS relay client's policy (@vrp/pms-relay): the pms-adapter's answer is the answer,
    // as for content (listing) and guest-side writes.
    it.each([
      [
        'a PMS that fails: 502 pms_unavailable with its reason',
        new AppError('pms_unavailable', 'PMS-D did not accept the request: connect ECONNREFUSED. Nothing was changed here.'),
        502,
      ],
      [
        'a PMS whose breaker is open: 503 service_unavailable with Retry-After',
        new AppError('service_unavailable', 'PMS-D is unavailable; calls to it are paused for a few seconds. Nothing was changed.', { retryAfterSeconds: 5 }),
        503,
      ],
    ])('%s; nothing stored, no event', async (_what, failure, status) => {
      const count = async () =>
        (await client.call('listReservations', pb.ListReservationsRequest.create({ workspaceId: WS, page: { limit: 200, offset: 0 } }))).page?.total;
      const before = await count();
      const eventsBefore = (await bus.whenIdle(), events.length);
      pmsDown = failure;
      try {
        const err = await errorOf(create({ propertyId: 'lst_pmsd' }));
        expect([err.code, err.httpStatus, err.message]).toEqual([failure.code, status, failure.message]);
        expect(err.details.retryAfterSeconds).toBe(failure.details.retryAfterSeconds);
      } finally {
        pmsDown = null;
      }
      expect(await count()).toBe(before);
      await bus.whenIdle();
      expect(events.length).toBe(eventsBefore);
    });
  });

  it('PATCH changes status, dates, times, listing, notes and custom fields; POST_STAY is refused', async () => {
    const r = (await create({ customFields: { a: '1', b: '2' } })).reservation!;
    const res = await update(r.id, {
      status: 'PENDING',
      checkIn: '2026-06-02',
      checkOut: '2026-06-06',
      checkInTime: '16:30',
      propertyId: 'lst_other',
      notes: { host: 'vip' },
      customFields: { b: '', c: '3' },
    });
    expect(res.reservation).toMatchObject({
      status: 'PENDING',
      checkIn: '2026-06-02',
      checkOut: '2026-06-06',
      checkInTime: '16:30',
      propertyId: 'lst_other',
      notes: { host: 'vip', guest: '' },
      customFields: { a: '1', c: '3' },
    });
    const err = await errorOf(update(r.id, { status: 'POST_STAY', checkOut: '2026-06-01', checkInTime: '25:00' }));
    expect(Object.keys(err.details.fields ?? {}).sort()).toEqual(['checkInTime', 'checkOut', 'status']);
    expect((await errorOf(update('res_missing', { status: 'PENDING' }))).code).toBe('not_found');
    const cancelled = await client.call('cancelReservation', { workspaceId: WS, id: r.id, idempotencyKey: '', expectedVersion: 0 });
    expect(cancelled.reservation?.status).toBe('CANCELLED');
    const T = reservationEvents.ReservationEventType;
    expect(await eventsOf(r.id)).toEqual([T.RESERVATION_EVENT_TYPE_CREATED, T.RESERVATION_EVENT_TYPE_UPDATED, T.RESERVATION_EVENT_TYPE_CANCELLED]);
    // Cancelling again changes nothing and publishes nothing.
    await client.call('cancelReservation', { workspaceId: WS, id: r.id, idempotencyKey: '', expectedVersion: 0 });
    expect(await eventsOf(r.id)).toHaveLength(3);
  });

  it('quotes nights x nightly price + cleaning + taxes, and refuses booked and closed nights as a create does', async () => {
    const { quote } = await client.call('quoteReservation', { workspaceId: WS, propertyId: 'lst_other', checkIn: '2026-02-26', checkOut: '2026-03-01' });
    expect(quote).toEqual(
      pb.Quote.create({
        propertyId: 'lst_other',
        checkIn: '2026-02-26',
        checkOut: '2026-03-01',
        nights: 3,
        currency: 'EUR',
        totalPrice: 374,
        breakdown: { basePrice: 300, cleaningFee: 40, fees: [], taxes: [{ type: 'TAX', amount: 34, rate: 0.1 }], discounts: [] },
        available: true,
        unavailableDates: [],
      }),
    );
    const holder = (await create({ propertyId: 'lst_plain', checkIn: '2026-08-01', checkOut: '2026-08-03' })).reservation!;
    const refused = await errorOf(client.call('quoteReservation', { workspaceId: WS, propertyId: 'lst_plain', checkIn: '2026-08-02', checkOut: '2026-08-04' }));
    expect(refused.code).toBe('dates_unavailable');
    expect(refused.details.conflicts).toEqual([{ date: '2026-08-02', reason: 'booked', reservationId: holder.id }]);
    const closed = await errorOf(client.call('quoteReservation', { workspaceId: WS, propertyId: 'lst_plain', checkIn: '2026-03-03', checkOut: '2026-03-04' }));
    expect(closed.details.conflicts).toEqual([{ date: '2026-03-03', reason: 'closed' }]);
    expect(
      (await errorOf(client.call('quoteReservation', { workspaceId: WS, propertyId: 'lst_off', checkIn: '2026-03-01', checkOut: '2026-03-05' }))).code,
    ).toBe('listing_inactive');
    expect(
      (await errorOf(client.call('quoteReservation', { workspaceId: WS, propertyId: 'lst_plain', checkIn: '2026-03-05', checkOut: '2026-03-01' }))).details
        .fields,
    ).toEqual({ checkOut: 'must be after checkIn' });
  });

  describe('night occupancy (one stay per night, atomically with the write)', () => {
    const get = async (id: string) => (await client.call('getReservation', { workspaceId: WS, id })).reservation!;

    it('20 concurrent creates for the same nights: exactly one succeeds, the others are dates_unavailable naming it', async () => {
      const stay = { propertyId: 'lst_other', checkIn: '2027-05-01', checkOut: '2027-05-04' };
      const results = await Promise.allSettled(Array.from({ length: 20 }, () => create(stay)));
      const ok = results.filter((r) => r.status === 'fulfilled');
      expect(ok).toHaveLength(1);
      const winner = (ok[0] as PromiseFulfilledResult<pb.CreateReservationResponse>).value.reservation!;
      for (const r of results.filter((x) => x.status === 'rejected')) {
        const err = (r as PromiseRejectedResult).reason as AppError;
        expect(err.code).toBe('dates_unavailable');
        expect(err.details.conflicts?.map((c) => [c.date, c.reason, c.reservationId])).toEqual([
          ['2027-05-01', 'booked', winner.id],
          ['2027-05-02', 'booked', winner.id],
          ['2027-05-03', 'booked', winner.id],
        ]);
      }
      const nights = await client.call('listBookedNights', { workspaceId: WS, listingId: 'lst_other', from: '2027-04-30', to: '2027-05-04' });
      expect(nights.nights).toEqual(['2027-05-01', '2027-05-02', '2027-05-03'].map((date) => ({ date, reservationId: winner.id })));
    });

    it('a closed night refuses a create and a date change; nothing is written', async () => {
      const closed = await errorOf(create({ checkIn: '2026-03-03', checkOut: '2026-03-05' }));
      expect(closed.code).toBe('dates_unavailable');
      expect(closed.details.conflicts).toEqual([{ date: '2026-03-03', reason: 'closed' }]);
      const r = (await create({ checkIn: '2026-03-10', checkOut: '2026-03-12' })).reservation!;
      expect((await errorOf(update(r.id, { checkIn: '2026-03-03' }))).details.conflicts).toEqual([{ date: '2026-03-03', reason: 'closed' }]);
      expect((await get(r.id)).checkIn).toBe('2026-03-10');
    });

    it('cancel frees the nights; un-cancelling onto nights booked meanwhile is refused', async () => {
      const stay = { propertyId: 'lst_other', checkIn: '2027-06-01', checkOut: '2027-06-03' };
      const first = (await create(stay)).reservation!;
      await client.call('cancelReservation', { workspaceId: WS, id: first.id, idempotencyKey: '', expectedVersion: 0 });
      const second = (await create(stay)).reservation!;
      const err = await errorOf(update(first.id, { status: 'CONFIRMED' }));
      expect(err.code).toBe('dates_unavailable');
      expect(err.details.conflicts?.map((c) => c.reservationId)).toEqual([second.id, second.id]);
      expect((await get(first.id)).status).toBe('CANCELLED');
    });

    it('a date change keeps its own nights and takes the new ones; moving frees the old listing', async () => {
      const r = (await create({ propertyId: 'lst_other', checkIn: '2027-07-01', checkOut: '2027-07-04' })).reservation!;
      await update(r.id, { checkIn: '2027-07-02', checkOut: '2027-07-06' });
      const held = await client.call('listBookedNights', { workspaceId: WS, listingId: 'lst_other', from: '2027-07-01', to: '2027-07-07' });
      expect(held.nights.map((n) => n.date)).toEqual(['2027-07-02', '2027-07-03', '2027-07-04', '2027-07-05']);
      await update(r.id, { propertyId: 'lst_plain' });
      expect((await client.call('listBookedNights', { workspaceId: WS, listingId: 'lst_other', from: '2027-07-01', to: '2027-07-07' })).nights).toEqual([]);
      expect((await create({ propertyId: 'lst_other', checkIn: '2027-07-01', checkOut: '2027-07-06' })).reservation?.id).toBeDefined();
    });
  });

  describe('versions, If-Match and concurrent changes', () => {
    it('every change increments the version; a stale expected version is 412 and changes nothing', async () => {
      const r = (await create()).reservation!;
      expect(r.version).toBe(1);
      const changed = await update(r.id, { notes: { host: 'a' }, expectedVersion: 1 });
      expect(changed.reservation?.version).toBe(2);
      const stale = await errorOf(update(r.id, { notes: { host: 'b' }, expectedVersion: 1 }));
      expect(stale.code).toBe('precondition_failed');
      expect(stale.httpStatus).toBe(412);
      expect((await client.call('getReservation', { workspaceId: WS, id: r.id })).reservation?.notes?.host).toBe('a');
    });

    it('changes of a PMS stay reach the PMS one at a time, and none is lost', async () => {
      const r = (await create({ propertyId: 'lst_pmsd' })).reservation!;
      await Promise.all(Array.from({ length: 5 }, (_, i) => update(r.id, { customFields: { [`p${i}`]: `${i}` } })));
      expect(maxInFlight.get(r.pmsExternalId)).toBe(1);
      const after = (await client.call('getReservation', { workspaceId: WS, id: r.id })).reservation!;
      expect(after.customFields).toEqual({ p0: '0', p1: '1', p2: '2', p3: '3', p4: '4' });
      // Each relay carries its own patch; the PMS applies it to its current record.
      const last = relayed.filter((w) => w.entityExternalId === r.pmsExternalId).at(-1)!;
      expect(Object.keys(JSON.parse(last.payloadJson).customFields as object)).toHaveLength(1);
    });

    it('concurrent changes of different fields all survive', async () => {
      const r = (await create()).reservation!;
      await Promise.all(Array.from({ length: 6 }, (_, i) => update(r.id, { customFields: { [`k${i}`]: `v${i}` } })));
      const after = (await client.call('getReservation', { workspaceId: WS, id: r.id })).reservation!;
      expect(after.customFields).toEqual({ k0: 'v0', k1: 'v1', k2: 'v2', k3: 'v3', k4: 'v4', k5: 'v5' });
      expect(after.version).toBe(7);
    });
  });

  describe('idempotency keys stored with the record', () => {
    it('a create retried with the same key answers the first reservation and writes nothing more', async () => {
      const stay = { propertyId: 'lst_other', checkIn: '2027-08-01', checkOut: '2027-08-03' };
      const [a, b] = await Promise.all([create(stay, 'idem-create-1'), create(stay, 'idem-create-1')]);
      expect(a.reservation?.id).toBe(b.reservation?.id);
      const again = await create(stay, 'idem-create-1');
      expect(again.reservation?.id).toBe(a.reservation?.id);
      const page = await client.call(
        'listReservations',
        pb.ListReservationsRequest.create({ workspaceId: WS, propertyId: 'lst_other', checkInAfter: '2027-08-01', checkInBefore: '2027-08-01' }),
      );
      expect(page.reservations).toHaveLength(1);
    });

    it('a create key expires after 24 hours: then it writes a new reservation', async () => {
      // The same request each time (a key bound to another body is idempotency_conflict).
      const firstStay = freshStay();
      const first = (await create(firstStay, 'idem-expiring')).reservation!;
      expect((await create(firstStay, 'idem-expiring')).reservation?.id).toBe(first.id);
      clockNow = new Date(START.getTime() + 24 * 3600 * 1000 + 1);
      try {
        // After 24 h the key is free: here for another stay (the first one's nights are taken).
        const laterStay = freshStay();
        const later = (await create(laterStay, 'idem-expiring')).reservation!;
        expect(later.id).not.toBe(first.id);
        expect((await create(laterStay, 'idem-expiring')).reservation?.id).toBe(later.id);
      } finally {
        clockNow = START;
      }
    });

    it('a change retried with the same key is applied once', async () => {
      const r = (await create()).reservation!;
      await update(r.id, { customFields: { n: '1' }, idempotencyKey: 'idem-change-1' });
      const retried = await update(r.id, { customFields: { n: '1' }, idempotencyKey: 'idem-change-1' });
      expect(retried.reservation?.version).toBe(2);
      expect(await eventsOf(r.id)).toHaveLength(2);
    });
  });

  describe('Idempotency-Key in applied_requests (a retry the gateway could not answer writes and relays nothing)', () => {
    it('a PMS create retried with its key is relayed once; the key with another body is idempotency_conflict', async () => {
      const before = relayed.length;
      const stay = { ...freshStay(), propertyId: 'lst_pmsd' };
      const first = (await create(stay, 'idem-pms-create')).reservation!;
      expect((await create(stay, 'idem-pms-create')).reservation!.id).toBe(first.id);
      expect(relayed.length).toBe(before + 1);
      expect((await errorOf(create({ ...stay, notes: { host: 'other', guest: '' } }, 'idem-pms-create'))).code).toBe('idempotency_conflict');
      expect(relayed.length).toBe(before + 1);
      expect(await eventsOf(first.id)).toHaveLength(1);
    });

    it('a PMS change retried with its key is relayed once and stored once; another body is idempotency_conflict', async () => {
      const r = (await create({ propertyId: 'lst_pmsa' })).reservation!;
      const before = relayed.length;
      const change = (host: string) => update(r.id, { notes: { host, guest: '' }, idempotencyKey: 'idem-pms-change' });
      expect((await change('gate code 1')).reservation!.version).toBe(2);
      expect((await change('gate code 1')).reservation!.version).toBe(2);
      expect(relayed.length).toBe(before + 1);
      expect((await errorOf(change('gate code 2'))).code).toBe('idempotency_conflict');
      expect(relayed.length).toBe(before + 1);
      expect(await eventsOf(r.id)).toHaveLength(2);
    });

    it('a cancel retried with its key after the stay was re-confirmed cancels nothing (no write, no event, no relay)', async () => {
      const r = (await create({ propertyId: 'lst_pmsb' })).reservation!;
      const cancel = () => client.call('cancelReservation', { workspaceId: WS, id: r.id, idempotencyKey: 'idem-cancel-1', expectedVersion: 0 });
      expect((await cancel()).reservation!.status).toBe('CANCELLED');
      await update(r.id, { status: 'CONFIRMED' });
      const before = relayed.length;
      const events = (await eventsOf(r.id)).length;
      const again = (await cancel()).reservation!;
      expect([again.status, again.version]).toEqual(['CONFIRMED', 3]);
      expect(relayed.length).toBe(before);
      expect(await eventsOf(r.id)).toHaveLength(events);
    });
  });

  describe('pms.sync.v1 consumer', () => {
    const payload = (extra: Partial<ReservationSyncPayload> = {}): ReservationSyncPayload => ({
      externalId: 'pms-777',
      listingExternalId: 'ext-C',
      status: 'CONFIRMED',
      source: 'CHANNEL_B',
      checkIn: '2026-04-01',
      checkOut: '2026-04-04',
      guest: { firstName: 'Bo', lastName: 'Lind' },
      occupancy: { adults: 2, children: 0, infants: 0, pets: 0 },
      totalPrice: 420,
      currency: 'EUR',
      updatedAt: new Date('2026-01-05T10:00:00Z'),
      ...extra,
    });
    /** `null`: a change that names a reservation and carries none (malformed). */
    const changeOf = (p: ReservationSyncPayload | null, changeId: string, listingExternalId: string) => ({
      key: listingExternalId,
      value: pmsSync.PmsSyncChange.encode(
        pmsSync.PmsSyncChange.create({
          changeId,
          workspaceId: WS,
          provider: 'PMS-C',
          entity: 'reservation',
          externalId: p ? p.externalId : 'x',
          listingExternalId,
          reservation: p ?? undefined,
        }),
      ).finish(),
    });
    const sync = async (p: ReservationSyncPayload, changeId: string) => {
      await bus.ensureTopics([TOPICS.pmsSync]);
      await bus.publish(TOPICS.pmsSync.name, [changeOf(p, changeId, p.listingExternalId)]);
      await bus.whenIdle();
    };
    const synced = async () =>
      (await client.call('listReservations', pb.ListReservationsRequest.create({ workspaceId: WS, propertyId: 'lst_pmsc' }))).reservations;

    it('creates, ignores replays and older changes, applies newer ones, each change publishing its event', async () => {
      await sync(payload(), 'chg-1');
      let rows = await synced();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        pmsProvider: 'PMS-C',
        pmsExternalId: 'pms-777',
        status: 'CONFIRMED',
        source: 'CHANNEL_B',
        checkIn: '2026-04-01',
        primaryGuest: { firstName: 'Bo', lastName: 'Lind' },
      });
      expect(rows[0]?.financials?.totalPrice).toBe(420);
      const id = rows[0]!.id;
      await sync(payload(), 'chg-1'); // replay
      await sync(payload({ checkOut: '2026-04-09', updatedAt: new Date('2026-01-01T00:00:00Z') }), 'chg-0'); // older
      rows = await synced();
      expect(rows).toHaveLength(1);
      expect(rows[0]?.checkOut).toBe('2026-04-04');
      await sync(payload({ status: 'CANCELLED', updatedAt: new Date('2026-01-06T00:00:00Z') }), 'chg-2');
      expect((await synced())[0]?.status).toBe('CANCELLED');
      const T = reservationEvents.ReservationEventType;
      expect(await eventsOf(id)).toEqual([T.RESERVATION_EVENT_TYPE_CREATED, T.RESERVATION_EVENT_TYPE_CANCELLED]);
    });

    it('a PMS booking over a local one always applies; both are kept and flagged with conflictsWith', async () => {
      const local = (await create({ propertyId: 'lst_pmsc', checkIn: '2026-09-01', checkOut: '2026-09-04' })).reservation!;
      await sync(payload({ externalId: 'pms-overlap', checkIn: '2026-09-03', checkOut: '2026-09-06' }), 'chg-overlap');
      const rows = await synced();
      const pmsOne = rows.find((r) => r.pmsExternalId === 'pms-overlap')!;
      expect(pmsOne.conflictsWith).toEqual([local.id]);
      const flagged = (await client.call('getReservation', { workspaceId: WS, id: local.id })).reservation!;
      expect(flagged.conflictsWith).toEqual([pmsOne.id]);
      expect(flagged.version).toBe(2);
      const T = reservationEvents.ReservationEventType;
      expect(await eventsOf(local.id)).toEqual([T.RESERVATION_EVENT_TYPE_CREATED, T.RESERVATION_EVENT_TYPE_UPDATED]);
      // The local stay keeps its nights; the PMS booking holds the free ones.
      const nights = await client.call('listBookedNights', { workspaceId: WS, listingId: 'lst_pmsc', from: '2026-09-01', to: '2026-09-06' });
      expect(nights.nights.map((n) => [n.date, n.reservationId === local.id ? 'local' : 'pms'])).toEqual([
        ['2026-09-01', 'local'],
        ['2026-09-02', 'local'],
        ['2026-09-03', 'local'],
        ['2026-09-04', 'pms'],
        ['2026-09-05', 'pms'],
      ]);
    });

    it('cancelling the local stay ends the overlap: both lose the flag in that transaction (new version, event) and the PMS booking holds its whole stay', async () => {
      const T = reservationEvents.ReservationEventType;
      const local = (await create({ propertyId: 'lst_pmsc', checkIn: '2026-10-01', checkOut: '2026-10-04' })).reservation!;
      await sync(payload({ externalId: 'pms-ends-1', checkIn: '2026-10-03', checkOut: '2026-10-06' }), 'chg-ends-1');
      const pmsOne = (await synced()).find((r) => r.pmsExternalId === 'pms-ends-1')!;
      expect(pmsOne.conflictsWith).toEqual([local.id]);
      const pmsEvents = (await eventsOf(pmsOne.id)).length;
      const cancelled = (await client.call('cancelReservation', { workspaceId: WS, id: local.id, idempotencyKey: '', expectedVersion: 0 })).reservation!;
      expect([cancelled.status, cancelled.conflictsWith]).toEqual(['CANCELLED', []]);
      const cleared = (await client.call('getReservation', { workspaceId: WS, id: pmsOne.id })).reservation!;
      expect([cleared.conflictsWith, cleared.version]).toEqual([[], pmsOne.version + 1]);
      expect((await eventsOf(pmsOne.id)).slice(pmsEvents)).toEqual([T.RESERVATION_EVENT_TYPE_UPDATED]);
      const nights = await client.call('listBookedNights', { workspaceId: WS, listingId: 'lst_pmsc', from: '2026-10-01', to: '2026-10-06' });
      expect(nights.nights.map((n) => [n.date, n.reservationId === pmsOne.id])).toEqual([
        ['2026-10-03', true],
        ['2026-10-04', true],
        ['2026-10-05', true],
      ]);
    });

    it('a PMS booking moved away from the local stay clears the flag on the local one; an overlap that remains stays flagged', async () => {
      const local = (await create({ propertyId: 'lst_pmsc', checkIn: '2026-11-01', checkOut: '2026-11-04' })).reservation!;
      await sync(
        payload({ externalId: 'pms-ends-2', checkIn: '2026-11-02', checkOut: '2026-11-05', updatedAt: new Date('2026-01-05T10:00:00Z') }),
        'chg-ends-2a',
      );
      // Still overlapping after a newer change: both keep the flag.
      await sync(
        payload({ externalId: 'pms-ends-2', checkIn: '2026-11-03', checkOut: '2026-11-05', updatedAt: new Date('2026-01-05T11:00:00Z') }),
        'chg-ends-2b',
      );
      let pmsOne = (await synced()).find((r) => r.pmsExternalId === 'pms-ends-2')!;
      expect(pmsOne.conflictsWith).toEqual([local.id]);
      expect((await client.call('getReservation', { workspaceId: WS, id: local.id })).reservation!.conflictsWith).toEqual([pmsOne.id]);
      const flaggedVersion = (await client.call('getReservation', { workspaceId: WS, id: local.id })).reservation!.version;
      await sync(
        payload({ externalId: 'pms-ends-2', checkIn: '2026-11-10', checkOut: '2026-11-12', updatedAt: new Date('2026-01-05T12:00:00Z') }),
        'chg-ends-2c',
      );
      pmsOne = (await synced()).find((r) => r.pmsExternalId === 'pms-ends-2')!;
      expect(pmsOne.conflictsWith).toEqual([]);
      const cleared = (await client.call('getReservation', { workspaceId: WS, id: local.id })).reservation!;
      expect([cleared.conflictsWith, cleared.version]).toEqual([[], flaggedVersion + 1]);
    });

    it('applies on an inactive listing too (data keeps syncing), while reads of it stay 403', async () => {
      listings.set('lst_off', { ...listings.get('lst_off')!, pmsProvider: 'PMS-C', pmsExternalId: 'ext-off' });
      await sync(payload({ externalId: 'pms-888', listingExternalId: 'ext-off' }), 'chg-3');
      const all = await client.call('listReservations', pb.ListReservationsRequest.create({ workspaceId: WS, page: { limit: 200, offset: 0 } }));
      expect(all.reservations.some((r) => r.pmsExternalId === 'pms-888')).toBe(false); // left out of lists
      const id = events.find((e) => e.reservation?.pmsExternalId === 'pms-888')?.reservation?.id;
      expect(id).toBeDefined();
      expect((await errorOf(client.call('getReservation', { workspaceId: WS, id: id! }))).code).toBe('listing_inactive');
      expect((await errorOf(client.call('listReservations', pb.ListReservationsRequest.create({ workspaceId: WS, propertyId: 'lst_off' })))).code).toBe(
        'listing_inactive',
      );
    });

    const openDeadLetters = async () => (await deadLetters.call('listDeadLetters', ops.ListDeadLettersRequest.create({ workspaceId: WS }))).deadLetters;
    const byPms = async (externalId: string) =>
      (await client.call('listReservations', pb.ListReservationsRequest.create({ workspaceId: WS, page: { limit: 200, offset: 0 } }))).reservations.filter(
        (r) => r.pmsExternalId === externalId,
      );

    it('a change on a PMS listing the workspace deleted is a dead letter at once, the partition moves on, and a replay after the listing is back applies it once', async () => {
      deletedPms.add('PMS-C/ext-gone');
      // Both on the partition of ext-gone: the second waits behind the first.
      await bus.publish(TOPICS.pmsSync.name, [
        changeOf(payload({ externalId: 'pms-gone-1', listingExternalId: 'ext-gone' }), 'chg-g1', 'ext-gone'),
        changeOf(payload({ externalId: 'pms-after-1', listingExternalId: 'ext-C' }), 'chg-g2', 'ext-gone'),
      ]);
      await bus.whenIdle();
      expect(await byPms('pms-after-1')).toHaveLength(1);
      expect(lookups.get('ext-gone')).toBe(1); // not retried: permanent
      const [dl, ...others] = await openDeadLetters();
      expect(others).toEqual([]);
      expect(dl).toMatchObject({
        service: 'reservation',
        consumerGroup: 'reservation-pms-sync',
        topic: TOPICS.pmsSync.name,
        key: 'ext-gone',
        errorCode: 'listing_deleted',
        reason: 'permanent',
        attempts: 1,
        workspaceId: WS,
      });

      // The listing is imported again (a new listing id); the replay applies the change on it, once.
      listings.set('lst_back', listing('lst_back', { pmsProvider: 'PMS-C', pmsExternalId: 'ext-gone' }));
      deletedPms.delete('PMS-C/ext-gone');
      const replayed = (await deadLetters.call('replayDeadLetter', { id: dl!.id })).deadLetter!;
      expect(replayed.replayedAt).toBeInstanceOf(Date);
      const [applied] = await byPms('pms-gone-1');
      expect(applied).toMatchObject({ propertyId: 'lst_back', status: 'CONFIRMED' });
      expect((await errorOf(deadLetters.call('replayDeadLetter', { id: dl!.id }))).code).toBe('conflict');
      expect(await byPms('pms-gone-1')).toHaveLength(1);
      expect(await eventsOf(applied!.id)).toEqual([reservationEvents.ReservationEventType.RESERVATION_EVENT_TYPE_CREATED]);
      await deadLetters.call('deleteDeadLetter', { id: dl!.id });
    });

    it('a change whose listing is not imported yet is retried in place and applied when the import lands', async () => {
      onLookup = (id) => {
        // The listing service applies the import meanwhile (another consumer group).
        if (id === 'ext-late' && lookups.get(id) === 3) listings.set('lst_late', listing('lst_late', { pmsProvider: 'PMS-C', pmsExternalId: 'ext-late' }));
      };
      await sync(payload({ externalId: 'pms-late-1', listingExternalId: 'ext-late' }), 'chg-l1');
      onLookup = () => undefined;
      expect(await byPms('pms-late-1')).toEqual([expect.objectContaining({ propertyId: 'lst_late' })]);
      expect(await openDeadLetters()).toEqual([]);
    });

    it('a listing that never arrives is a dead letter past the retry budget; a malformed change is one at once', async () => {
      await sync(payload({ externalId: 'pms-never-1', listingExternalId: 'ext-never' }), 'chg-n1');
      // The budget (5 attempts); a redelivery of the dead-lettered message adds one look-up each, not another budget.
      expect(lookups.get('ext-never')).toBeGreaterThanOrEqual(5);
      expect(lookups.get('ext-never')).toBeLessThan(10);
      await bus.publish(TOPICS.pmsSync.name, [
        changeOf(null, 'chg-bad', 'ext-C'),
        changeOf({ ...payload({ externalId: 'pms-bad-2' }), checkIn: 'soon' }, 'chg-bad2', 'ext-C'),
      ]);
      await bus.whenIdle();
      const found = await openDeadLetters();
      expect(found.map((d) => [d.errorCode, d.reason, d.attempts])).toEqual([
        ['malformed_payload', 'permanent', 1],
        ['malformed_payload', 'permanent', 1],
        ['listing_not_imported', 'budget_exhausted', 5],
      ]);
      expect(found[1]!.errorMessage).toContain('no reservation in the change');
      // Held to the API's rules first: the refusal names the field.
      expect(found[0]!.errorMessage).toContain("reservation.checkIn is 'soon', not a date");
      for (const d of found) await deadLetters.call('deleteDeadLetter', { id: d.id });
    });
  });
});
