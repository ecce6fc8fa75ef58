// One writer per night on every listing, black box over HTTP: concurrent creates (and date
// changes) of the same nights on a listing of each PMS and on a local one give exactly one
// success, the rest 409 dates_unavailable naming it, and the PMS receives exactly one write;
// a PMS's refusal frees the nights at once; a booking the PMS itself made over a stay made
// here arrives by sync and is flagged as a conflict on both sides.
import { eventually, startTestStack, type ErrorBody, type TestStack } from './support/stack';
import { listingWorkspace, simulatorOf, syncNow } from './support/workspaces';

const PROVIDERS = ['PMS-A', 'PMS-B', 'PMS-C', 'PMS-D', 'PMS-E', 'PMS-F', 'PMS-G'] as const;
/** PMS-B cannot change the dates of a reservation (docs/pms.md). */
const CHANGES_DATES = PROVIDERS.filter((p) => p !== 'PMS-B');

interface Reservation {
  id: string;
  checkIn: string;
  checkOut: string;
  conflict: { reservationIds: string[] } | null;
}
type ConflictBody = ErrorBody & { error: { conflicts: { date: string; reason: string; reservationId?: string }[] } };

let nextStay = 0;
/** Nights of their own for every scenario. */
function stay(nights = 3): { checkIn: string; checkOut: string; nights: string[] } {
  const start = Date.UTC(2044, 0, 1) + nextStay * 86_400_000;
  nextStay += nights + 1;
  const day = (i: number) => new Date(start + i * 86_400_000).toISOString().slice(0, 10);
  return { checkIn: day(0), checkOut: day(nights), nights: Array.from({ length: nights }, (_, i) => day(i)) };
}

describe('one writer per night, on PMS listings as on local ones', () => {
  let t: TestStack;
  let w: Awaited<ReturnType<typeof listingWorkspace>>;
  /** Listing id by PMS ('local' for the listing no PMS manages). */
  const listing = new Map<string, string>();

  beforeAll(async () => {
    t = await startTestStack();
    w = await listingWorkspace(t, [{ name: 'local' }, ...PROVIDERS.map((p) => ({ name: `night-${p}`, pmsProvider: p }))]);
    ['local', ...PROVIDERS].forEach((p, i) => listing.set(p, w.ids[i]!));
  });
  afterAll(async () => {
    await simulatorOf(t).clearFaults();
    await t.stop();
  });

  const create = (provider: string, s: { checkIn: string; checkOut: string }, firstName = 'Ada') =>
    w.api<{ data: Reservation } & ConflictBody>('POST', '/v1/reservations', {
      propertyId: listing.get(provider),
      checkIn: s.checkIn,
      checkOut: s.checkOut,
      primaryGuest: { firstName },
      // PMS-E requires the total price on create.
      financials: { totalPrice: 300, currency: 'EUR' },
    });
  /** The writes of one kind the PMS received for this workspace's account. */
  const pmsWrites = async (provider: string, method: string, path: RegExp) =>
    (await simulatorOf(t).requests({ provider, account: w.account })).filter((r) => r.method === method && path.test(r.path));

  it.each(['local', ...PROVIDERS])(
    '%s: 20 concurrent creates of the same nights give one 201 and 19 × 409 naming it; the PMS receives one create',
    async (provider) => {
      const s = stay();
      const before = provider === 'local' ? 0 : (await pmsWrites(provider, 'POST', /\/reservations$/)).length;
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => create(provider, s, `Racer${i}`)));
      const created = results.filter((r) => r.status === 201);
      expect({ provider, created: created.length }).toEqual({ provider, created: 1 });
      const winner = created[0]!.body.data.id;
      for (const r of results.filter((x) => x.status !== 201)) {
        expect({ provider, status: r.status, code: r.body.error.code }).toEqual({ provider, status: 409, code: 'dates_unavailable' });
        expect(r.body.error.conflicts).toEqual(s.nights.map((date) => ({ date, reason: 'booked', reservationId: winner })));
      }
      expect(created[0]!.body.data.conflict).toBeNull();
      if (provider !== 'local') expect((await pmsWrites(provider, 'POST', /\/reservations$/)).length - before).toBe(1);
      const stored = await w.api<{ data: Reservation[] }>(
        'GET',
        `/v1/reservations?property_id=${listing.get(provider)}&check_in_after=${s.checkIn}&check_in_before=${s.checkIn}`,
      );
      expect(stored.body.data.map((r) => r.id)).toEqual([winner]);
    },
  );

  it.each(CHANGES_DATES)('%s: 10 concurrent date changes of different stays onto the same nights: one 200, the PMS receives one change', async (provider) => {
    const target = stay();
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await create(provider, stay(1), `Mover${i}`);
      expect(r.status).toBe(201);
      ids.push(r.body.data.id);
    }
    const before = (await pmsWrites(provider, 'PATCH', /\/reservations\/[^/]+$/)).length;
    const results = await Promise.all(
      ids.map((id) => w.api<{ data: Reservation } & ConflictBody>('PATCH', `/v1/reservations/${id}`, { checkIn: target.checkIn, checkOut: target.checkOut })),
    );
    const moved = results.filter((r) => r.status === 200);
    expect({ provider, moved: moved.length }).toEqual({ provider, moved: 1 });
    for (const r of results.filter((x) => x.status !== 200))
      expect({ provider, status: r.status, code: r.body.error.code }).toEqual({ provider, status: 409, code: 'dates_unavailable' });
    expect((await pmsWrites(provider, 'PATCH', /\/reservations\/[^/]+$/)).length - before).toBe(1);
  });

  it('a PMS that refuses a create frees its nights at once: the next create of them succeeds', async () => {
    const s = stay();
    await simulatorOf(t).refuseNext('PMS-C', {
      kind: 'reservation.create',
      count: 1,
      status: 409,
      code: 'overbooked',
      reason: 'The nights are taken in the PMS.',
    });
    const refused = await create('PMS-C', s);
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).not.toBe(409);
    const next = await create('PMS-C', s);
    expect(next.status).toBe(201);
  });

  it('a booking the PMS itself made over a stay made here arrives by sync and flags both', async () => {
    const s = stay();
    const local = await create('PMS-D', s);
    expect(local.status).toBe(201);
    const pms = simulatorOf(t);
    await pms.putReservation('PMS-D', w.account, `own-${s.checkIn}`, {
      listing_id: 'ext-night-PMS-D',
      arrival: s.checkIn,
      departure: s.checkOut,
      guest: { first_name: 'Walkin' },
    });
    expect((await syncNow(t, w.id, w.connections.get('PMS-D')!)).status).toBe(200);
    let flagged: Reservation | undefined;
    await eventually(
      async () => {
        flagged = (await w.api<{ data: Reservation }>('GET', `/v1/reservations/${local.body.data.id}`)).body.data;
        return (flagged.conflict?.reservationIds.length ?? 0) === 1;
      },
      5000,
      'the local stay flagged by the synced PMS booking',
    );
    const other = (await w.api<{ data: Reservation }>('GET', `/v1/reservations/${flagged!.conflict!.reservationIds[0]}`)).body.data;
    expect(other.conflict?.reservationIds).toEqual([local.body.data.id]);
  });
});
