// Holding a reservation's nights (use-cases/hold-nights.ts) on the embedded store.
import { createMemoryStore } from '@vrp/platform';
import { sampleReservation } from './support';
import { NightStore } from '../src/store/night-store';
import { holdNights } from '../src/use-cases/hold-nights';

describe('holding nights', () => {
  it('a reservation written for the first time takes its nights without looking for nights to release; a changed one gives back those it no longer needs', async () => {
    const store = createMemoryStore();
    const nights = new NightStore(store);
    let releases = 0;
    const releaseExcept = nights.releaseExcept.bind(nights);
    nights.releaseExcept = (...args) => ((releases += 1), releaseExcept(...args));
    const held = async () => (await nights.nights.find({}, { sort: { night: 1 } })).map((n) => `${n.reservationId} ${n.night}`);

    const r = sampleReservation({ id: 'res_new', workspaceId: 'ws', confirmationCode: 'C1', checkIn: '2030-05-01', checkOut: '2030-05-04' });
    expect(await store.transaction((tx) => holdNights(nights, r, 'exclusive', tx, true))).toEqual([]);
    expect(releases).toBe(0);
    expect(await held()).toEqual(['res_new 2030-05-01', 'res_new 2030-05-02', 'res_new 2030-05-03']);

    // A date change: the nights it keeps stay, the others are given back, the new one is taken.
    await store.transaction((tx) => holdNights(nights, { ...r, checkIn: '2030-05-02', checkOut: '2030-05-05' }, 'exclusive', tx));
    expect(releases).toBe(1);
    expect(await held()).toEqual(['res_new 2030-05-02', 'res_new 2030-05-03', 'res_new 2030-05-04']);
  });
});
