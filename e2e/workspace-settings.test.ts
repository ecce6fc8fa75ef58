// Workspace settings, black box over HTTP: the operator sets bufferNights through the admin API,
// and the reservations API then keeps one free night before and after every stay made here, on a
// local listing and on a PMS listing, while a booking the PMS itself reports is still applied.
import { eventually, startTestStack, type ErrorBody, type TestStack } from './support/stack';
import { listingWorkspace, simulatorOf, syncNow } from './support/workspaces';

interface Reservation {
  id: string;
  checkIn: string;
  pms: { externalId: string } | null;
  conflict: { reservationIds: string[] } | null;
}
type ConflictBody = ErrorBody & { error: { conflicts: { date: string; reason: string; reservationId?: string }[] } };

describe('workspace settings: bufferNights', () => {
  let t: TestStack;
  let w: Awaited<ReturnType<typeof listingWorkspace>>;
  let local: string;
  let pmsListing: string;

  beforeAll(async () => {
    t = await startTestStack();
    w = await listingWorkspace(t, [{ name: 'buffer-local' }, { name: 'buffer-PMS-D', pmsProvider: 'PMS-D' }]);
    [local, pmsListing] = w.ids as [string, string];
  });
  afterAll(async () => t.stop());

  const settings = (body: unknown) => t.admin<{ data: { bufferNights: boolean } } & ErrorBody>('PUT', `/admin/v1/workspaces/${w.id}/settings`, body);
  const create = (propertyId: string, checkIn: string, checkOut: string) =>
    w.api<{ data: Reservation } & ConflictBody>('POST', '/v1/reservations', { propertyId, checkIn, checkOut, primaryGuest: { firstName: 'Ada' } });

  it('is off by default and refuses what is not a setting, naming it', async () => {
    expect((await t.admin<{ data: unknown }>('GET', `/admin/v1/workspaces/${w.id}/settings`)).body.data).toEqual({ bufferNights: false });
    const bad = await settings({ bufferNights: 'yes' });
    expect([bad.status, bad.body.error.code, Object.keys(bad.body.error.fields ?? {})]).toEqual([400, 'validation_failed', ['bufferNights']]);
    expect((await settings({ bufferNight: true })).status).toBe(400);
  });

  it('once on, a stay next to another is 409 naming the buffer night; one free night between is fine; off again, stays may touch', async () => {
    expect((await settings({ bufferNights: true })).body.data).toEqual({ bufferNights: true });
    const first = await create(local, '2045-03-01', '2045-03-03');
    expect(first.status).toBe(201);
    const next = await create(local, '2045-03-03', '2045-03-05');
    expect([next.status, next.body.error.code, next.body.error.conflicts]).toEqual([
      409,
      'dates_unavailable',
      [{ date: '2045-03-02', reason: 'booked', reservationId: first.body.data.id }],
    ]);
    expect((await create(local, '2045-03-04', '2045-03-06')).status).toBe(201);
    expect((await settings({})).body.data).toEqual({ bufferNights: false });
    expect((await create(local, '2045-02-27', '2045-03-01')).status).toBe(201);
  });

  it('on a PMS listing: a booking the PMS reports next to a stay is applied; a stay made here next to a PMS booking keeps the buffer', async () => {
    expect((await settings({ bufferNights: true })).status).toBe(200);
    const mine = await create(pmsListing, '2045-04-01', '2045-04-03');
    expect(mine.status).toBe(201);
    await simulatorOf(t).putReservation('PMS-D', w.account, 'own-buffer', {
      listing_id: 'ext-buffer-PMS-D',
      arrival: '2045-04-03',
      departure: '2045-04-05',
      guest: { first_name: 'Walkin' },
    });
    expect((await syncNow(t, w.id, w.connections.get('PMS-D')!)).status).toBe(200);
    let synced: Reservation | undefined;
    await eventually(
      async () => {
        const rows = (await w.api<{ data: Reservation[] }>('GET', `/v1/reservations?property_id=${pmsListing}`)).body.data;
        synced = rows.find((r) => r.pms?.externalId === 'own-buffer');
        return synced !== undefined;
      },
      5000,
      'the PMS booking next to the stay, synced',
    );
    expect(synced!.conflict).toBeNull();
    const after = await create(pmsListing, '2045-04-05', '2045-04-07');
    expect([after.status, after.body.error.conflicts]).toEqual([409, [{ date: '2045-04-04', reason: 'booked', reservationId: synced!.id }]]);
  });
});
