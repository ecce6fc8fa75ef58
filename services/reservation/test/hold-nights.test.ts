// Holding a stay's nights (use-cases/hold-nights.ts, deciding by domain/booking.ts) on the embedded store.
import { DEFAULT_WORKSPACE_SETTINGS as NONE } from '@vrp/api-model';
import { createMemoryStore } from '@vrp/engines/store';
import { sampleReservation } from './support';
import { NightStore } from '../src/store/night-store';
import { holdNights, holdPending, PENDING_HOLD_MS } from '../src/use-cases/hold-nights';
import { createLogger } from '@vrp/platform/logging';

describe('holding nights', () => {
  it('a reservation written for the first time takes its nights without looking for nights to release; a changed one gives back those it no longer needs', async () => {
    const store = createMemoryStore();
    const nights = new NightStore(store);
    let releases = 0;
    const releaseExcept = nights.releaseExcept.bind(nights);
    nights.releaseExcept = (...args) => ((releases += 1), releaseExcept(...args));
    const held = async () => (await nights.nights.find({}, { sort: { night: 1 } })).map((n) => `${n.reservationId} ${n.night}`);

    const r = sampleReservation({ id: 'res_new', workspaceId: 'ws', confirmationCode: 'C1', checkIn: '2030-05-01', checkOut: '2030-05-04' });
    expect(await store.transaction((tx) => holdNights(nights, r, 'local', NONE, tx, { created: true }))).toEqual([]);
    expect(releases).toBe(0);
    expect(await held()).toEqual(['res_new 2030-05-01', 'res_new 2030-05-02', 'res_new 2030-05-03']);

    // A date change: the nights it keeps stay, the others are given back, the new one is taken.
    await store.transaction((tx) => holdNights(nights, { ...r, checkIn: '2030-05-02', checkOut: '2030-05-05' }, 'local', NONE, tx));
    expect(releases).toBe(1);
    expect(await held()).toEqual(['res_new 2030-05-02', 'res_new 2030-05-03', 'res_new 2030-05-04']);
  });

  it('two local writes that check nights they do not hold (bufferNights) on one listing are serialised: the later one sees the nights of the first', async () => {
    const store = createMemoryStore();
    const nights = new NightStore(store);
    const BUFFER = { ...NONE, bufferNights: true };
    // Both transactions read before either writes, unless the guard holds the second one back.
    let guardWrites = 0;
    const guard = nights.guardListing.bind(nights);
    nights.guardListing = (...args) => ((guardWrites += 1), guard(...args));
    let reads = 0;
    const holders = nights.holders.bind(nights);
    nights.holders = async (...args) => {
      const read = await holders(...args);
      reads += 1;
      if (reads === 1) for (let waited = 0; reads < 2 && guardWrites < 2 && waited < 5_000; waited += 1) await new Promise((r) => setTimeout(r, 1));
      return read;
    };
    const stay = (id: string, checkIn: string, checkOut: string) => sampleReservation({ id, workspaceId: 'ws', confirmationCode: id, checkIn, checkOut });
    const results = await Promise.allSettled(
      [stay('res_a', '2030-08-01', '2030-08-02'), stay('res_b', '2030-08-02', '2030-08-03')].map((r) =>
        store.transaction((tx) => holdNights(nights, r, 'local', BUFFER, tx, { created: true })),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: { code: 'dates_unavailable' } });
    expect(await nights.nights.countDocuments({})).toBe(1);
  });

  describe('pending holds (a write waiting for its PMS)', () => {
    const at = (ms: number) => new Date(Date.UTC(2030, 0, 1) + ms);
    const setup = () => {
      const store = createMemoryStore();
      const nights = new NightStore(store);
      const deps = { store, nights, logger: createLogger('reservation', 'silent') };
      const held = async () =>
        (await nights.nights.find({}, { sort: { night: 1 } })).map((n) => `${n.reservationId} ${n.night} ${n.holdUntil ? 'pending' : 'stay'}`);
      const stay = (id: string, checkIn: string, checkOut: string) => sampleReservation({ id, workspaceId: 'ws', confirmationCode: id, checkIn, checkOut });
      return { store, nights, deps, held, stay };
    };

    it('refuses other writers with dates_unavailable while live, becomes the stay on store, and frees nothing stored on release', async () => {
      const { store, nights, deps, held, stay } = setup();
      let now = at(0);
      const pending = await holdPending({ ...deps, clock: () => now }, stay('res_a', '2030-05-01', '2030-05-03'), '', NONE);
      expect(await held()).toEqual(['res_a 2030-05-01 pending', 'res_a 2030-05-02 pending']);
      // Another API write of one of those nights, a moment before the hold lapses: refused.
      now = at(PENDING_HOLD_MS - 1);
      await expect(
        store.transaction((tx) => holdNights(nights, stay('res_b', '2030-05-02', '2030-05-04'), 'local', NONE, tx, { created: true, now })),
      ).rejects.toMatchObject({
        code: 'dates_unavailable',
      });
      await expect(holdPending({ ...deps, clock: () => now }, stay('res_c', '2030-05-02', '2030-05-04'), '', NONE)).rejects.toMatchObject({
        code: 'dates_unavailable',
      });
      // The PMS accepted: the stored stay's transaction turns the hold into its nights.
      await store.transaction((tx) => holdNights(nights, stay('res_a', '2030-05-01', '2030-05-03'), 'pms', NONE, tx, { created: true, now }));
      await pending.release();
      expect(await held()).toEqual(['res_a 2030-05-01 stay', 'res_a 2030-05-02 stay']);
    });

    it("a refused write frees its nights; a dead holder's hold is free once its time has passed; a PMS booking overrides a live one", async () => {
      const { store, nights, deps, held, stay } = setup();
      let now = at(0);
      const refused = await holdPending({ ...deps, clock: () => now }, stay('res_a', '2030-06-01', '2030-06-03'), '', NONE);
      await refused.release();
      expect(await held()).toEqual([]);

      // A holder that died: it never renews nor releases. Just before its time: still held.
      await holdPending({ ...deps, clock: () => now }, stay('res_dead', '2030-06-01', '2030-06-03'), '', NONE);
      now = at(PENDING_HOLD_MS - 1);
      await expect(holdPending({ ...deps, clock: () => now }, stay('res_b', '2030-06-01', '2030-06-02'), '', NONE)).rejects.toMatchObject({
        code: 'dates_unavailable',
      });
      now = at(PENDING_HOLD_MS);
      const next = await holdPending({ ...deps, clock: () => now }, stay('res_b', '2030-06-01', '2030-06-02'), '', NONE);
      expect(await held()).toEqual(['res_b 2030-06-01 pending', 'res_dead 2030-06-02 pending']);

      // The PMS's own booking of those nights (sync): it takes them over from the live hold, and
      // the waiting write, once its PMS accepts too, overlaps it (flagged), as PMS bookings do.
      const synced = stay('res_pms', '2030-06-01', '2030-06-03');
      expect(await store.transaction((tx) => holdNights(nights, synced, 'pms', NONE, tx, { created: true, now }))).toEqual([]);
      expect(await held()).toEqual(['res_pms 2030-06-01 stay', 'res_pms 2030-06-02 stay']);
      expect(await store.transaction((tx) => holdNights(nights, stay('res_b', '2030-06-01', '2030-06-02'), 'pms', NONE, tx, { created: true, now }))).toEqual([
        'res_pms',
      ]);
      await next.release();
      expect(await held()).toEqual(['res_pms 2030-06-01 stay', 'res_pms 2030-06-02 stay']);
    });

    it('a retry of the same write (same Idempotency-Key) while its first attempt holds the nights is in progress, not a conflict', async () => {
      const { deps, stay } = setup();
      const now = at(0);
      await holdPending({ ...deps, clock: () => now }, stay('res_first', '2030-07-01', '2030-07-03'), 'key-1', NONE);
      await expect(holdPending({ ...deps, clock: () => now }, stay('res_retry', '2030-07-01', '2030-07-03'), 'key-1', NONE)).rejects.toMatchObject({
        code: 'idempotency_in_progress',
        details: { retryAfterSeconds: PENDING_HOLD_MS / 1000 },
      });
      // Another key (or none) is another write: the nights are taken.
      await expect(holdPending({ ...deps, clock: () => now }, stay('res_other', '2030-07-01', '2030-07-03'), 'key-2', NONE)).rejects.toMatchObject({
        code: 'dates_unavailable',
      });
      await expect(holdPending({ ...deps, clock: () => now }, stay('res_none', '2030-07-02', '2030-07-04'), '', NONE)).rejects.toMatchObject({
        code: 'dates_unavailable',
      });
    });
  });
});
