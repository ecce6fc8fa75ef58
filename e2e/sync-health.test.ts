// Per-connection sync health over HTTP, on
// GET /admin/v1/workspaces/{id}/connections/{connectionId} and on /metrics. Applied counts rise
// as the owning services apply the changes (not when they are published); a PMS that fails or
// does not answer turns the connection degraded, then failing, with the last error; a change
// no service can apply shows dead-lettered; fixing and replaying it brings the connection back.
// Driven by the admin API, the API and the PMS simulator's control API only.
import { eventually, startTestStack, type ErrorBody, type TestStack } from './support/stack';
import { listingsOf, pmsWorkspace, simulatorOf, syncNow } from './support/workspaces';

interface SyncHealth {
  state: 'healthy' | 'degraded' | 'failing';
  reasons: string[];
  lastSuccessfulSyncAt: string | null;
  lastAttemptAt: string | null;
  consecutiveFailures: number;
  lagSeconds: number;
  changes: { published: number; applied: number; failed: number; deadLettered: number; pending: number; deadLettersOpen: number };
  lastError: { source: string; code: string; message: string; at: string; service: string | null; changeId: string | null } | null;
}
interface Connection {
  id: string;
  provider: string;
  status: string;
  syncHealth: SyncHealth;
}

describe('per-connection sync health', () => {
  let t: TestStack;
  beforeAll(async () => {
    t = await startTestStack();
  });
  afterAll(async () => {
    await simulatorOf(t).clearFaults();
    await t.stop();
  });

  const healthOf = async (workspaceId: string, connectionId: string) => {
    const res = await t.admin<{ data: Connection }>('GET', `/admin/v1/workspaces/${workspaceId}/connections/${connectionId}`);
    expect(res.status).toBe(200);
    return res.body.data.syncHealth;
  };

  it('counts changes as applied when the owning services applied them, and stays healthy', async () => {
    const pms = simulatorOf(t);
    const w = await pmsWorkspace(t, 'PMS-C', ['one', 'two']);
    let h = await healthOf(w.id, w.connectionId);
    await eventually(async () => (h = await healthOf(w.id, w.connectionId)).changes.applied === 2, 5000, 'the two imports applied');
    expect(h).toMatchObject({ state: 'healthy', reasons: [], consecutiveFailures: 0, lagSeconds: 0, lastError: null });
    expect(h.changes).toEqual({ published: 2, applied: 2, failed: 0, deadLettered: 0, pending: 0, deadLettersOpen: 0 });
    expect(new Date(h.lastSuccessfulSyncAt!).getTime()).toBeGreaterThan(0);

    // Three reservations and a guest change in the PMS: published, then applied by their services.
    for (const [i, listing] of ['one', 'two', 'one'].entries()) {
      await pms.putReservation('PMS-C', w.account, `hr-${i}`, {
        listing_id: `${w.account}-${listing}`,
        arrival: `2035-0${i + 1}-01`,
        departure: `2035-0${i + 1}-04`,
        guest: { first_name: `G${i}` },
      });
    }
    await pms.putGuest('PMS-C', w.account, 'guest-1', { first_name: 'Lone', email: 'lone@example.com' });
    expect((await syncNow(t, w.id, w.connectionId)).body.data.changesPublished).toBe(4);
    await eventually(async () => (h = await healthOf(w.id, w.connectionId)).changes.applied === 6, 5000, 'the four changes applied');
    expect(h.changes).toMatchObject({ published: 6, applied: 6, pending: 0 });
    expect(h.state).toBe('healthy');
    // Applied means applied: the reservations are readable through the API.
    expect((await w.api<{ data: unknown[] }>('GET', '/v1/reservations')).body.data).toHaveLength(3);

    // A repeated sync with nothing new counts nothing twice.
    expect((await syncNow(t, w.id, w.connectionId)).body.data.changesPublished).toBe(0);
    expect((await healthOf(w.id, w.connectionId)).changes).toMatchObject({ published: 6, applied: 6 });
  });

  it('turns degraded, then failing, while the PMS fails, with the last error; healthy again once it answers', async () => {
    const pms = simulatorOf(t);
    const w = await pmsWorkspace(t, 'PMS-B', ['fails']);
    await eventually(async () => (await healthOf(w.id, w.connectionId)).changes.applied === 1, 5000, 'the import applied');
    await pms.setFault('PMS-B', { mode: 'fail', status: 503 });
    const failed = await syncNow(t, w.id, w.connectionId);
    expect(failed.status).toBeGreaterThanOrEqual(500);
    let h = await healthOf(w.id, w.connectionId);
    expect(h).toMatchObject({ state: 'degraded', consecutiveFailures: 1 });
    expect(h.lastError).toMatchObject({ source: 'pms', code: expect.stringMatching(/^(pms_unavailable|service_unavailable)$/), service: null, changeId: null });
    expect(h.lastError!.message).toContain('PMS-B');
    expect(h.reasons).toEqual([expect.stringContaining('last pull of the PMS failed')]);

    await syncNow(t, w.id, w.connectionId);
    await syncNow(t, w.id, w.connectionId);
    h = await healthOf(w.id, w.connectionId);
    expect(h).toMatchObject({ state: 'failing', consecutiveFailures: 3 });
    expect(h.reasons[0]).toContain('the last 3 pulls of the PMS failed');

    // The PMS answers again: the next sync that completes makes it healthy (the last error stays on record).
    await pms.clearFaults();
    await eventually(async () => (await syncNow(t, w.id, w.connectionId)).status === 200, 15_000, 'a sync that completes once the breaker lets calls through');
    h = await healthOf(w.id, w.connectionId);
    expect(h).toMatchObject({ state: 'healthy', consecutiveFailures: 0 });
    expect(h.lastError?.source).toBe('pms');
  });

  it('counts a timed-out pull of the PMS as a failure', async () => {
    const pms = simulatorOf(t);
    const w = await pmsWorkspace(t, 'PMS-E', ['slow']);
    await pms.setFault('PMS-E', { mode: 'slow', delayMs: 2500 });
    try {
      await syncNow(t, w.id, w.connectionId);
      let h = await healthOf(w.id, w.connectionId);
      await eventually(async () => (h = await healthOf(w.id, w.connectionId)).consecutiveFailures >= 1, 15_000, 'the timed-out pull recorded');
      expect(h.state).not.toBe('healthy');
      expect(h.lastError).toMatchObject({ source: 'pms' });
      expect(h.lastError!.message).toMatch(/no answer within|unavailable/);
    } finally {
      await pms.clearFaults();
    }
  });

  it('shows a change no service can apply as dead-lettered, and applied once it is replayed after the fix', async () => {
    const pms = simulatorOf(t);
    const w = await pmsWorkspace(t, 'PMS-D', ['gone']);
    const listing = (await listingsOf(w))[0]!;
    expect((await w.api('DELETE', `/v1/listings/${listing.id}`)).status).toBe(200);
    // The PMS still has the listing and books it: the reservation service cannot apply that.
    await pms.putReservation('PMS-D', w.account, 'poison', {
      listing_id: `${w.account}-gone`,
      arrival: '2035-06-01',
      departure: '2035-06-03',
      guest: { first_name: 'Pax' },
    });
    await syncNow(t, w.id, w.connectionId);
    let h = await healthOf(w.id, w.connectionId);
    // Outcomes of different changes may be recorded by different instances, in any order: wait for all.
    const settled = (c: typeof h.changes, want: Partial<typeof h.changes>) => Object.entries(want).every(([k, v]) => c[k as keyof typeof c] === v);
    const first = { published: 2, applied: 1, deadLettered: 1, deadLettersOpen: 1, pending: 0 };
    await eventually(async () => settled((h = await healthOf(w.id, w.connectionId)).changes, first), 5000, 'the dead letter and the import counted');
    expect(h.state).toBe('degraded');
    expect(h.changes).toMatchObject(first);
    expect(h.lastError).toMatchObject({ source: 'apply', code: 'listing_deleted', service: 'reservation', changeId: expect.stringMatching(/^chg_/) });
    expect(h.reasons).toEqual(['1 change is dead-lettered and not replayed']);

    // The fix (the listing comes back with the PMS's next change of it), then the replay.
    await pms.putListing('PMS-D', w.account, `${w.account}-gone`, { name: 'Back' });
    await syncNow(t, w.id, w.connectionId);
    await eventually(async () => (await listingsOf(w)).length === 1, 5000, 'the listing back');
    const dl = (await t.admin<{ data: { id: string }[] }>('GET', `/admin/v1/dead-letters?workspace_id=${w.id}`)).body.data[0]!;
    expect((await t.admin('POST', `/admin/v1/dead-letters/${dl.id}/replay`)).status).toBe(200);
    const replayed = { published: 3, applied: 3, deadLettered: 1, deadLettersOpen: 0, pending: 0 };
    await eventually(async () => settled((h = await healthOf(w.id, w.connectionId)).changes, replayed), 5000, 'the replay and the fix counted');
    expect(h.changes).toMatchObject(replayed);
    expect(h.state).toBe('healthy');
  });

  it('exposes the health as Prometheus metrics labelled by connection and provider', async () => {
    const w = await pmsWorkspace(t, 'PMS-A', ['metered']);
    await eventually(async () => (await healthOf(w.id, w.connectionId)).changes.applied === 1, 5000, 'the import applied');
    let text = '';
    await eventually(
      async () => (text = await (await fetch(`${t.adminBaseUrl}/metrics`)).text()).includes(`connection="${w.connectionId}"`),
      5000,
      'the series of the connection',
    );
    const line = (name: string, extra = '') =>
      text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(`connection="${w.connectionId}"`) && l.includes(extra));
    expect(line('vrp_pms_sync_state', 'state="healthy"')).toMatch(/ 1$/);
    expect(line('vrp_pms_sync_state', 'state="failing"')).toMatch(/ 0$/);
    expect(line('vrp_pms_sync_changes_total', 'outcome="applied"')).toMatch(/provider="PMS-A".* 1$/);
    expect(line('vrp_pms_sync_lag_seconds')).toMatch(/ 0$/);
    expect(text).toMatch(/vrp_pms_sync_connections\{provider="PMS-A",state="healthy"\} [1-9]/);
  });

  it('answers 404 for an unknown connection or one of another workspace', async () => {
    const a = await pmsWorkspace(t, 'PMS-G', ['a']);
    const b = await pmsWorkspace(t, 'PMS-G', ['b']);
    for (const [ws, conn] of [
      [a.id, 'pmc_unknown'],
      [a.id, b.connectionId],
    ]) {
      const res = await t.admin<ErrorBody>('GET', `/admin/v1/workspaces/${ws}/connections/${conn}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });
});
