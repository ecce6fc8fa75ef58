// The night-occupancy backfill on a store seeded with reservations as they were stored before
// `booked_nights` existed (engine-level documents: no nights, no version, no conflictsWith).
// Through the service start (gRPC reads), and the use case itself for resume and concurrency.
import { reservationEvents, TOPICS } from '@vrp/contracts';
import { createLogger } from '@vrp/platform/logging';
import { createMemoryBus } from '@vrp/engines/bus';
import { createMemoryStore, type MemoryDocumentStore } from '@vrp/engines/store';
import { Outbox } from '@vrp/platform/outbox';
import { sampleReservation, startReservationUnderTest, type ReservationUnderTest } from './support';
import type { ListingDirectory } from '../src/ports/listings';
import type { PmsRelay } from '@vrp/pms-relay';
import { MigrationStore } from '../src/store/migration-store';
import { NightStore } from '../src/store/night-store';
import { ReservationStore } from '../src/store/reservation-store';
import { SettingsStore } from '../src/store/settings-store';
import { NIGHT_BACKFILL, NightBackfill } from '../src/use-cases/backfill-nights';

const logger = createLogger('reservation', 'silent');

/** A reservation document as stored before booked_nights existed: no version, conflicts, key or nights. */
function legacyDoc(id: string, extra: Record<string, unknown>): Record<string, unknown> & { _id: string } {
  const {
    id: _id,
    version: _version,
    conflictsWith: _conflicts,
    idempotencyKey: _key,
    ...doc
  } = sampleReservation({ id, workspaceId: 'ws_old', confirmationCode: `C${id.slice(-6).toUpperCase()}` });
  return { _id, ...doc, ...extra };
}

async function seed(store: MemoryDocumentStore, docs: (Record<string, unknown> & { _id: string })[]): Promise<void> {
  const reservations = new ReservationStore(store);
  await store.init();
  // Engine level, as the data was: the collection's own insert, no use case, no nights.
  await reservations.reservations.insertMany(docs as never[]);
  // The schema's defaults fill in the newer fields; the documents had none of them.
  await reservations.reservations.updateMany({}, { $unset: { version: '', conflictsWith: '', idempotencyKey: '' } });
}

const listings: ListingDirectory = {
  resolve: async (_workspaceId, id) => ({
    id,
    name: id,
    active: true,
    pmsProvider: '',
    pmsExternalId: '',
    currency: 'EUR',
    defaultNightlyPrice: 100,
    cleaningFee: 0,
    taxRate: 0,
  }),
  nights: async () => [],
  stay: async (workspaceId, id) => ({ listing: await listings.resolve(workspaceId, id), nights: [] }),
  byPmsId: async () => ({ listing: null, deleted: false }),
};
// No listing here has a PMS: nothing is ever relayed.
const relay: PmsRelay = {
  relay: async () => {
    throw new Error('nothing is relayed in this test');
  },
};

describe('night occupancy backfill at service start', () => {
  const bus = createMemoryBus();
  const store = createMemoryStore();
  let sut: ReservationUnderTest;
  const events: reservationEvents.ReservationEvent[] = [];

  const start = async () => {
    sut = await startReservationUnderTest({ store, bus, listings, relay });
  };
  const stop = () => sut.stop();
  const get = async (id: string) => (await sut.client.call('getReservation', { workspaceId: 'ws_old', id })).reservation!;
  const nightsOf = async (listingId: string, from: string, to: string) =>
    (await sut.client.call('listBookedNights', { workspaceId: 'ws_old', listingId, from, to })).nights.map((n) => [n.date, n.reservationId]);
  const eventsOf = async (id: string) => {
    await bus.whenIdle();
    return events.filter((e) => e.reservation?.id === id).map((e) => e.type);
  };

  beforeAll(async () => {
    await seed(store, [
      legacyDoc('res_old_1', { checkIn: '2025-07-01', checkOut: '2025-07-05' }),
      // Overlaps res_old_1 on 07-04: both kept, both flagged.
      legacyDoc('res_old_2', { status: 'PENDING', checkIn: '2025-07-04', checkOut: '2025-07-07' }),
      // Cancelled: holds nothing, overlaps nobody.
      legacyDoc('res_old_3', { status: 'CANCELLED', checkIn: '2025-07-02', checkOut: '2025-07-03' }),
      legacyDoc('res_old_4', { propertyId: 'lst_town', checkIn: '2025-07-01', checkOut: '2025-07-03' }),
    ]);
    await bus.ensureTopics([TOPICS.reservationEvents]);
    await bus.subscribe({
      groupId: 'test-backfill-events',
      topics: [TOPICS.reservationEvents.name],
      fromBeginning: true,
      handler: async (m) => {
        const event = reservationEvents.ReservationEvent.decode(m.value);
        if (!events.some((e) => e.eventId === event.eventId)) events.push(event);
      },
    });
    await start();
  });
  afterAll(async () => {
    await stop();
    await bus.close();
    await store.close();
  });

  it('gives every PENDING / CONFIRMED reservation its nights; the first one (by id) keeps a shared night', async () => {
    expect(await nightsOf('lst_sea', '2025-07-01', '2025-07-07')).toEqual([
      ['2025-07-01', 'res_old_1'],
      ['2025-07-02', 'res_old_1'],
      ['2025-07-03', 'res_old_1'],
      ['2025-07-04', 'res_old_1'],
      ['2025-07-05', 'res_old_2'],
      ['2025-07-06', 'res_old_2'],
    ]);
    expect(await nightsOf('lst_town', '2025-07-01', '2025-07-03')).toEqual([
      ['2025-07-01', 'res_old_4'],
      ['2025-07-02', 'res_old_4'],
    ]);
  });

  it('flags two old reservations that overlap as a PMS overlap is flagged: conflict on both, a new version, reservation.updated', async () => {
    const [one, two, cancelled, other] = await Promise.all(['res_old_1', 'res_old_2', 'res_old_3', 'res_old_4'].map(get));
    expect([one!.conflictsWith, one!.version]).toEqual([['res_old_2'], 1]);
    expect([two!.conflictsWith, two!.version]).toEqual([['res_old_1'], 1]);
    expect([cancelled!.conflictsWith, cancelled!.version]).toEqual([[], 0]);
    expect([other!.conflictsWith, other!.version]).toEqual([[], 0]);
    const UPDATED = reservationEvents.ReservationEventType.RESERVATION_EVENT_TYPE_UPDATED;
    expect(await eventsOf('res_old_1')).toEqual([UPDATED]);
    expect(await eventsOf('res_old_2')).toEqual([UPDATED]);
    expect(await eventsOf('res_old_4')).toEqual([]);
  });

  it('a restart runs it again and changes nothing (no version, no event)', async () => {
    // Forget that it finished: the scan runs over everything again.
    await new MigrationStore(store).migrations.deleteOne({ _id: NIGHT_BACKFILL });
    await stop();
    await start();
    expect((await get('res_old_1')).version).toBe(1);
    expect((await get('res_old_2')).version).toBe(1);
    expect(await eventsOf('res_old_1')).toHaveLength(1);
    expect(await nightsOf('lst_sea', '2025-07-01', '2025-07-07')).toHaveLength(6);
  });
});

describe('night occupancy backfill: resumable and safe on concurrent replicas', () => {
  const COUNT = 230; // more than two batches
  const stays = Array.from({ length: COUNT }, (_, i) => {
    const day = new Date(Date.UTC(2026, 0, 1) + i * 2 * 86_400_000).toISOString().slice(0, 10);
    const out = new Date(Date.UTC(2026, 0, 1) + (i * 2 + 2) * 86_400_000).toISOString().slice(0, 10);
    return legacyDoc(`res_${String(i).padStart(4, '0')}`, { checkIn: day, checkOut: out });
  });

  const backfillOn = (store: MemoryDocumentStore) =>
    new NightBackfill({
      store,
      reservations: new ReservationStore(store),
      nights: new NightStore(store),
      settings: new SettingsStore(store),
      migrations: new MigrationStore(store),
      outbox: new Outbox(store, createMemoryBus(), logger),
      logger,
      now: () => new Date('2026-01-01T00:00:00Z'),
    });
  const heldCount = (store: MemoryDocumentStore) => new NightStore(store).nights.countDocuments({});

  it('stops when out of time, keeps its cursor, and the next run resumes after it to the end', async () => {
    const store = createMemoryStore();
    await seed(store, stays);
    let batches = 0;
    // Out of time after the first batch.
    expect(await backfillOn(store).run(() => batches++ >= 1)).toBe(false);
    const progress = await new MigrationStore(store).progress(NIGHT_BACKFILL);
    expect(progress).toEqual({ after: 'res_0099', done: false });
    expect(await heldCount(store)).toBe(100 * 2);
    expect(await backfillOn(store).run(() => false)).toBe(true);
    expect(await heldCount(store)).toBe(COUNT * 2);
    expect(await new MigrationStore(store).progress(NIGHT_BACKFILL)).toEqual({ after: `res_0${COUNT - 1}`, done: true });
    await store.close();
  });

  it('two replicas running it at once hold every night exactly once and flag nothing', async () => {
    const store = createMemoryStore();
    await seed(store, stays);
    const [a, b] = await Promise.all([backfillOn(store).run(() => false), backfillOn(store).run(() => false)]);
    expect([a, b]).toEqual([true, true]);
    expect(await heldCount(store)).toBe(COUNT * 2);
    const reservations = new ReservationStore(store);
    expect(await reservations.reservations.countDocuments({ conflictsWith: { $ne: [] } })).toBe(0);
    expect(await reservations.reservations.countDocuments({ version: { $gt: 0 } })).toBe(0);
    await store.close();
  });
});
