// The PMS simulator over HTTP: what each PMS cannot do, idempotency keys, the change feed, faults.
import { SimulatorControl, startPmsSimulator, type PmsSimulator } from '../src';

describe('PMS simulator', () => {
  let sim: PmsSimulator;
  let control: SimulatorControl;
  const api = (path: string, init: RequestInit = {}) => fetch(`${sim.url}${path}`, { ...init, headers: { 'content-type': 'application/json', ...(init.headers ?? {}) } });

  beforeAll(async () => {
    sim = await startPmsSimulator();
    control = new SimulatorControl(sim.url);
    await control.createAccount('PMS-A', 'a1');
    await control.putListing('PMS-A', 'a1', 'L1', { name: 'Flat' });
    await control.putReservation('PMS-A', 'a1', 'R1', { listing_id: 'L1', arrival: '2030-01-01', departure: '2030-01-03' });
  });
  afterAll(() => sim.close());

  it('serves the change feed after a cursor, in order', async () => {
    const all = (await (await api('/pms-a/v1/accounts/a1/changes?since=0')).json()) as { changes: { entity: string; id: string }[]; cursor: number };
    expect(all.changes.map((c) => `${c.entity}:${c.id}`)).toEqual(['listing:L1', 'reservation:R1']);
    expect(all.cursor).toBe(2);
    expect(((await (await api('/pms-a/v1/accounts/a1/changes?since=2')).json()) as { changes: unknown[] }).changes).toEqual([]);
  });

  it('refuses what PMS-A cannot do (cancel) with 422, and applies a repeated Idempotency-Key once', async () => {
    const cancel = await api('/pms-a/v1/accounts/a1/reservations/R1/cancel', { method: 'POST' });
    expect(cancel.status).toBe(422);
    const body = JSON.stringify({ listingId: 'L1', checkIn: '2030-02-01', checkOut: '2030-02-02' });
    const one = (await (await api('/pms-a/v1/accounts/a1/reservations', { method: 'POST', body, headers: { 'idempotency-key': 'k1' } })).json()) as { id: string };
    const two = (await (await api('/pms-a/v1/accounts/a1/reservations', { method: 'POST', body, headers: { 'idempotency-key': 'k1' } })).json()) as { id: string };
    expect(two.id).toBe(one.id);
    expect((await control.account('PMS-A', 'a1')).reservations).toHaveLength(2);
  });

  it('fails or slows down on demand, and logs every PMS API call', async () => {
    await control.clearRequests();
    await control.setFault('PMS-A', { mode: 'fail', status: 500 });
    expect((await api('/pms-a/v1/accounts/a1')).status).toBe(500);
    await control.setFault('PMS-A', { mode: 'slow', delayMs: 120 });
    const started = performance.now();
    expect((await api('/pms-a/v1/accounts/a1')).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(100);
    await control.clearFaults();
    expect((await control.requests({ provider: 'PMS-A' })).map((r) => r.path)).toEqual(['/pms-a/v1/accounts/a1', '/pms-a/v1/accounts/a1']);
    expect((await api('/pms-a/v1/accounts/nobody')).status).toBe(404);
  });
});
