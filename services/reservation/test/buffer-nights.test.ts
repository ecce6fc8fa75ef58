// The bufferNights workspace setting over real gRPC with embedded engines: set through the
// service's settings RPC, applied by every local write on listings with and without a PMS,
// never refusing a booking a PMS reports, serialising concurrent writes that check buffer nights.
import { pmsSync, reservation as pb, TOPICS } from '@vrp/contracts';
import { AppError } from '@vrp/platform/errors';
import { createMemoryBus } from '@vrp/engines/bus';
import { createMemoryStore } from '@vrp/engines/store';
import type { PmsRelay } from '@vrp/pms-relay';
import { errorOf } from '@vrp/testkit';
import type { NightPrice } from '../src/domain/pricing';
import type { ListingDirectory, ListingInfo } from '../src/ports/listings';
import { startReservationUnderTest, type ReservationUnderTest } from './support';

const WS = 'ws_buffer';
const WS_OFF = 'ws_nobuffer';

const listing = (id: string, pmsProvider = '', pmsExternalId = ''): ListingInfo => ({
  id,
  name: id,
  active: true,
  pmsProvider,
  pmsExternalId,
  currency: 'EUR',
  defaultNightlyPrice: 100,
  cleaningFee: 0,
  taxRate: 0,
});
const LISTINGS = [listing('lst_local'), listing('lst_race'), listing('lst_pms', 'PMS-C', 'ext-buffer')];

describe('bufferNights: one free night before and after each stay', () => {
  const bus = createMemoryBus();
  const store = createMemoryStore();
  let sut: ReservationUnderTest;
  let relayed = 0;
  const directory: ListingDirectory = {
    async resolve(_ws, id) {
      const l = LISTINGS.find((x) => x.id === id);
      if (!l) throw new AppError('not_found', `No listing with id '${id}' exists in this workspace.`);
      return l;
    },
    async nights(_ws, _id, from, to) {
      const out: NightPrice[] = [];
      for (let d = Date.parse(`${from}T00:00:00Z`); new Date(d).toISOString().slice(0, 10) <= to; d += 86_400_000) {
        out.push({ date: new Date(d).toISOString().slice(0, 10), price: 100, available: true });
      }
      return out;
    },
    async stay(ws, id, from, to) {
      const listing = await directory.resolve(ws, id);
      return { listing, nights: await directory.nights(ws, listing.id, from, to) };
    },
    async byPmsId(_ws, provider, externalId) {
      return { listing: LISTINGS.find((l) => l.pmsProvider === provider && l.pmsExternalId === externalId) ?? null, deleted: false };
    },
  };
  const relay: PmsRelay = {
    async relay() {
      relayed += 1;
      return { entityExternalId: `pmsres-${relayed}` };
    },
  };

  beforeAll(async () => {
    sut = await startReservationUnderTest({ store, bus, listings: directory, relay });
    await sut.client.call('setWorkspaceSettings', { workspaceId: WS, settingsJson: JSON.stringify({ bufferNights: true }) });
  });
  afterAll(async () => {
    await sut.stop();
    await bus.close();
    await store.close();
  });

  const create = (workspaceId: string, propertyId: string, checkIn: string, checkOut: string) =>
    sut.client.call(
      'createReservation',
      pb.CreateReservationRequest.create({
        workspaceId,
        reservation: { propertyId, checkIn, checkOut, primaryGuest: { firstName: 'Ana' }, totalPrice: 200, currency: 'EUR' },
      }),
    );
  const conflictsOf = async (p: Promise<unknown>) => {
    const err = await errorOf(p);
    expect(err.code).toBe('dates_unavailable');
    return (err.details as { conflicts: { date: string; reason: string; reservationId?: string }[] }).conflicts;
  };
  const sync = async (externalId: string, checkIn: string, checkOut: string) => {
    await bus.ensureTopics([TOPICS.pmsSync]);
    const change = pmsSync.PmsSyncChange.create({
      changeId: `chg-${externalId}`,
      workspaceId: WS,
      provider: 'PMS-C',
      entity: 'reservation',
      externalId,
      listingExternalId: 'ext-buffer',
      reservation: {
        externalId,
        listingExternalId: 'ext-buffer',
        status: 'CONFIRMED',
        source: 'CHANNEL_A',
        checkIn,
        checkOut,
        guest: { firstName: 'Bo' },
        occupancy: { adults: 2, children: 0, infants: 0, pets: 0 },
        updatedAt: new Date('2030-01-01T00:00:00Z'),
      },
    });
    await bus.publish(TOPICS.pmsSync.name, [{ key: 'ext-buffer', value: pmsSync.PmsSyncChange.encode(change).finish() }]);
    await bus.whenIdle();
  };
  const byPmsId = async (externalId: string) =>
    (await sut.client.call('listReservations', pb.ListReservationsRequest.create({ workspaceId: WS, propertyId: 'lst_pms' }))).reservations.find(
      (r) => r.pmsExternalId === externalId,
    )!;

  it('on a local listing: a stay next to another is refused naming the buffer night and its holder; one free night between is enough', async () => {
    const first = (await create(WS, 'lst_local', '2030-06-10', '2030-06-12')).reservation!;
    expect(await conflictsOf(create(WS, 'lst_local', '2030-06-12', '2030-06-14'))).toEqual([{ date: '2030-06-11', reason: 'booked', reservationId: first.id }]);
    expect(await conflictsOf(create(WS, 'lst_local', '2030-06-07', '2030-06-10'))).toEqual([{ date: '2030-06-10', reason: 'booked', reservationId: first.id }]);
    expect(
      await conflictsOf(sut.client.call('quoteReservation', { workspaceId: WS, propertyId: 'lst_local', checkIn: '2030-06-12', checkOut: '2030-06-13' })),
    ).toHaveLength(1);
    const second = (await create(WS, 'lst_local', '2030-06-13', '2030-06-15')).reservation!;
    // A date change that would touch the first stay is refused too; the stay's own nights are no conflict.
    const moveCloser = sut.client.call('updateReservation', {
      workspaceId: WS,
      id: second.id,
      checkIn: '2030-06-12',
      customFields: {},
      expectedVersion: 0,
      idempotencyKey: '',
    });
    expect(await conflictsOf(moveCloser)).toEqual([{ date: '2030-06-11', reason: 'booked', reservationId: first.id }]);
    const longer = await sut.client.call('updateReservation', {
      workspaceId: WS,
      id: second.id,
      checkOut: '2030-06-16',
      customFields: {},
      expectedVersion: 0,
      idempotencyKey: '',
    });
    expect(longer.reservation!.checkOut).toBe('2030-06-16');
  });

  it('off by default: in another workspace stays may touch', async () => {
    await create(WS_OFF, 'lst_local', '2030-06-10', '2030-06-12');
    expect((await create(WS_OFF, 'lst_local', '2030-06-12', '2030-06-14')).reservation!.checkIn).toBe('2030-06-12');
  });

  it('on a PMS listing: a stay made here next to a PMS booking keeps the buffer (nothing reaches the PMS); a PMS booking next to a stay made here is applied, unflagged', async () => {
    await sync('pms-b1', '2030-07-10', '2030-07-12');
    const pmsStay = await byPmsId('pms-b1');
    const before = relayed;
    expect(await conflictsOf(create(WS, 'lst_pms', '2030-07-12', '2030-07-14'))).toEqual([{ date: '2030-07-11', reason: 'booked', reservationId: pmsStay.id }]);
    expect(relayed).toBe(before);
    const local = (await create(WS, 'lst_pms', '2030-08-10', '2030-08-12')).reservation!;
    expect(relayed).toBe(before + 1);
    await sync('pms-b2', '2030-08-12', '2030-08-14');
    const adjacent = await byPmsId('pms-b2');
    expect([adjacent.checkIn, adjacent.conflictsWith]).toEqual(['2030-08-12', []]);
    expect((await sut.client.call('getReservation', { workspaceId: WS, id: local.id })).reservation!.conflictsWith).toEqual([]);
  });

  it('twelve creates of neighbouring nights at once leave a free night between every two stays they made', async () => {
    const days = Array.from({ length: 12 }, (_, i) => new Date(Date.UTC(2030, 8, 1 + i)).toISOString().slice(0, 10));
    const next = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const results = await Promise.allSettled(days.map((d) => create(WS, 'lst_race', d, next(d))));
    for (const r of results) if (r.status === 'rejected') expect((r.reason as AppError).code).toBe('dates_unavailable');
    const held = (await sut.client.call('listBookedNights', { workspaceId: WS, listingId: 'lst_race', from: days[0]!, to: days[11]! })).nights.map(
      (n) => n.date,
    );
    expect(held.length).toBeGreaterThanOrEqual(1);
    for (let i = 1; i < held.length; i++) expect(Date.parse(held[i]!) - Date.parse(held[i - 1]!)).toBeGreaterThanOrEqual(2 * 86_400_000);
  });
});
