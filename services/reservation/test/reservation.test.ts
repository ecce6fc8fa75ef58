// Component test: the reservation service over real gRPC with embedded engines.
import { reservation as pb } from '@vrp/contracts';
import { notFound } from '@vrp/platform/errors';
import { createMemoryBus } from '@vrp/engines/bus';
import { createMemoryStore } from '@vrp/engines/store';
import type { RunningService } from '@vrp/platform/service';
import type { Upstream } from '@vrp/platform/grpc';
import type { ReservationRecord } from '../src/domain/reservation';
import { SAMPLE_FINANCIALS, SAMPLE_GUEST, SAMPLE_OCCUPANCY, sampleReservation, startReservationUnderTest } from './support';
import type { ListingDirectory } from '../src/ports/listings';
import type { PmsRelay } from '@vrp/pms-relay';
import { ReservationStore } from '../src/store/reservation-store';
import { errorOf } from '@vrp/testkit';

describe('reservation service over gRPC', () => {
  const bus = createMemoryBus();
  const store = createMemoryStore();
  const seeded = new ReservationStore(store);
  let running: RunningService;
  let client: Upstream<pb.ReservationServiceClient>;

  let seq = 0;
  const reservation = (workspaceId: string, extra: Partial<ReservationRecord> = {}): ReservationRecord => {
    seq += 1;
    return sampleReservation({ id: `res_${String(seq).padStart(3, '0')}`, workspaceId, confirmationCode: `CONF${seq}`, ...extra });
  };

  const list = (req: Partial<pb.ListReservationsRequest>) =>
    client.call('listReservations', pb.ListReservationsRequest.create({ workspaceId: 'ws_a', ...req }));
  const ids = (res: pb.ListReservationsResponse) => res.reservations.map((r) => r.id);

  // ws_a: five reservations in a known check-in order; ws_b: one that must never show up.
  const A1 = reservation('ws_a', { checkIn: '2025-06-10', checkOut: '2025-06-12', status: 'CONFIRMED', source: 'CHANNEL_A', propertyId: 'lst_sea' });
  const A2 = reservation('ws_a', { checkIn: '2025-07-01', checkOut: '2025-07-03', status: 'PENDING', source: 'DIRECT', propertyId: 'lst_town' });
  const A3 = reservation('ws_a', {
    checkIn: '2025-07-01',
    checkOut: '2025-07-08',
    status: 'CANCELLED',
    source: 'CHANNEL_B',
    propertyId: 'lst_sea',
    updatedAt: new Date('2025-06-01T00:00:00Z'),
  });
  const A4 = reservation('ws_a', {
    checkIn: '2025-08-15',
    checkOut: '2025-08-20',
    status: 'CONFIRMED',
    source: 'CHANNEL_A',
    propertyId: 'lst_town',
    updatedAt: new Date('2025-06-02T00:00:00Z'),
  });
  // The stay has ended by the service's clock (2025-06-11): listed and shown as POST_STAY.
  const A5 = reservation('ws_a', { checkIn: '2025-05-20', checkOut: '2025-05-22', status: 'CONFIRMED', source: 'MANUAL', propertyId: 'lst_sea' });
  const B1 = reservation('ws_b', { checkIn: '2025-07-01', propertyId: 'lst_sea', confirmationCode: A1.confirmationCode });

  beforeAll(async () => {
    // Reads never call a PMS or the calendar: these fail loudly if they do. A property filter
    // asks the listing service whether the workspace has the listing (404 first).
    const unused = (what: string) => () => Promise.reject(new Error(`${what} must not be called by reads`));
    const known = new Set(['ws_a/lst_sea', 'ws_a/lst_town', 'ws_b/lst_sea']);
    const resolve: ListingDirectory['resolve'] = async (workspaceId, id) => {
      if (!known.has(`${workspaceId}/${id}`)) throw notFound('listing', id);
      return { id, name: id, active: true, pmsProvider: '', pmsExternalId: '', currency: 'EUR', defaultNightlyPrice: 100, cleaningFee: 0, taxRate: 0 };
    };
    const listings: ListingDirectory = { resolve, nights: unused('nights'), stay: unused('stay'), byPmsId: unused('byPmsId') };
    const relay: PmsRelay = { relay: unused('relay') };
    ({ running, client } = await startReservationUnderTest({ store, bus, listings, relay, clock: () => new Date('2025-06-11T12:00:00Z') }));
    // Inserted out of order, so the response order comes from the sort, not insertion.
    for (const r of [A3, B1, A4, A1, A5, A2]) await seeded.insert(r);
  });
  afterAll(async () => {
    client.close();
    await running.stop();
    await bus.close();
    await store.close();
  });

  it('lists only the workspace’s reservations, by check-in then id', async () => {
    const res = await list({});
    expect(ids(res)).toEqual([A5.id, A1.id, A2.id, A3.id, A4.id]);
    expect(res.page).toEqual({ total: 5, limit: 50, offset: 0, hasMore: false });
    expect(res.reservations.every((r) => r.workspaceId === 'ws_a')).toBe(true);
  });

  it('maps every field of the record', async () => {
    const { reservation: got } = await client.call('getReservation', { workspaceId: 'ws_a', id: A1.id });
    expect(got).toEqual(
      pb.Reservation.create({
        id: A1.id,
        workspaceId: 'ws_a',
        propertyId: 'lst_sea',
        status: 'CONFIRMED',
        source: 'CHANNEL_A',
        confirmationCode: A1.confirmationCode,
        checkIn: '2025-06-10',
        checkOut: '2025-06-12',
        primaryGuest: SAMPLE_GUEST,
        occupancy: SAMPLE_OCCUPANCY,
        financials: SAMPLE_FINANCIALS,
        bookedAt: A1.bookedAt,
        updatedAt: A1.updatedAt,
        notes: { host: '', guest: '' },
        version: 1,
      }),
    );
  });

  it('pages with limit and offset, reporting total and hasMore', async () => {
    const first = await list({ page: { limit: 2, offset: 0 } });
    expect(ids(first)).toEqual([A5.id, A1.id]);
    expect(first.page).toEqual({ total: 5, limit: 2, offset: 0, hasMore: true });
    const last = await list({ page: { limit: 2, offset: 4 } });
    expect(ids(last)).toEqual([A4.id]);
    expect(last.page).toEqual({ total: 5, limit: 2, offset: 4, hasMore: false });
    const past = await list({ page: { limit: 2, offset: 10 } });
    expect(ids(past)).toEqual([]);
    expect(past.page).toEqual({ total: 5, limit: 2, offset: 10, hasMore: false });
  });

  it('defaults the limit to 50 and caps it at 200', async () => {
    expect((await list({ page: { limit: 0, offset: 0 } })).page?.limit).toBe(50);
    expect((await list({ page: { limit: 1000, offset: 0 } })).page?.limit).toBe(200);
  });

  it('filters by status; POST_STAY means the stay has ended, and reads show it', async () => {
    expect(ids(await list({ status: 'CONFIRMED' }))).toEqual([A1.id, A4.id]);
    expect(ids(await list({ status: 'PENDING' }))).toEqual([A2.id]);
    expect(ids(await list({ status: 'CANCELLED' }))).toEqual([A3.id]);
    const ended = await list({ status: 'POST_STAY' });
    expect(ids(ended)).toEqual([A5.id]);
    expect(ended.reservations[0]?.status).toBe('POST_STAY');
  });

  it('filters by property', async () => {
    const res = await list({ propertyId: 'lst_sea' });
    expect(ids(res)).toEqual([A5.id, A1.id, A3.id]);
    expect(res.page?.total).toBe(3);
  });

  it('filters by check-in range, both bounds inclusive', async () => {
    expect(ids(await list({ checkInAfter: '2025-07-01' }))).toEqual([A2.id, A3.id, A4.id]);
    expect(ids(await list({ checkInBefore: '2025-07-01' }))).toEqual([A5.id, A1.id, A2.id, A3.id]);
    expect(ids(await list({ checkInAfter: '2025-06-01', checkInBefore: '2025-07-31' }))).toEqual([A1.id, A2.id, A3.id]);
  });

  it('filters by source', async () => {
    expect(ids(await list({ source: 'CHANNEL_A' }))).toEqual([A1.id, A4.id]);
    expect(ids(await list({ source: 'MANUAL' }))).toEqual([A5.id]);
  });

  it('filters by updated_since, strictly after it', async () => {
    expect(ids(await list({ updatedSince: new Date('2025-05-15T00:00:00Z') }))).toEqual([A3.id, A4.id]);
    expect(ids(await list({ updatedSince: new Date('2025-06-01T00:00:00Z') }))).toEqual([A4.id]);
  });

  it('answers not_found for a property filter naming no listing of the workspace (unknown or another workspace’s)', async () => {
    expect((await errorOf(list({ propertyId: 'lst_nowhere' }))).code).toBe('not_found');
    expect((await errorOf(list({ propertyId: 'lst_town', workspaceId: 'ws_b' }))).code).toBe('not_found');
  });

  it('combines filters, and the total counts only the matches', async () => {
    const res = await list({ propertyId: 'lst_sea', checkInAfter: '2025-06-01', page: { limit: 1, offset: 0 } });
    expect(ids(res)).toEqual([A1.id]);
    expect(res.page).toEqual({ total: 2, limit: 1, offset: 0, hasMore: true });
  });

  it('never returns another workspace’s reservation: its id is not_found', async () => {
    expect(ids(await list({ workspaceId: 'ws_b' }))).toEqual([B1.id]);
    const err = await errorOf(client.call('getReservation', { workspaceId: 'ws_a', id: B1.id }));
    expect(err.code).toBe('not_found');
    expect((await errorOf(client.call('getReservation', { workspaceId: 'ws_a', id: 'res_missing' }))).code).toBe('not_found');
  });

  it('keeps confirmation codes unique within a workspace only', async () => {
    // B1 reuses A1's code in another workspace (seeded above); a second one in ws_a conflicts.
    const err = await errorOf(seeded.insert(reservation('ws_a', { confirmationCode: A1.confirmationCode })));
    expect(err.code).toBe('conflict');
  });

  it('rejects a request without a workspace, an empty id, and malformed filters as validation_failed', async () => {
    const noWorkspace = await errorOf(list({ workspaceId: '' }));
    expect(noWorkspace.code).toBe('validation_failed');
    expect(noWorkspace.details.fields).toEqual({ workspaceId: 'is required' });
    expect((await errorOf(client.call('getReservation', { workspaceId: '', id: A1.id }))).code).toBe('validation_failed');
    expect((await errorOf(client.call('getReservation', { workspaceId: 'ws_a', id: '' }))).details.fields).toEqual({ id: 'is required' });

    const bad = await errorOf(list({ status: 'BOOKED', source: 'FAX', checkInAfter: '2025-02-30', checkInBefore: '07/01/2025' }));
    expect(bad.code).toBe('validation_failed');
    expect(Object.keys(bad.details.fields ?? {}).sort()).toEqual(['check_in_after', 'check_in_before', 'source', 'status']);
  });
});
