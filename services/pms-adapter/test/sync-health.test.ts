// The sync health fold over the embedded store: published changes are pending until their
// owning service reports them; each outcome counts once however often it is redelivered; lag is
// the age of the oldest pending change; pulls count consecutive failures.
import { createMemoryStore } from '@vrp/engines/store';
import { ConnectionStore } from '../src/store/connection-store';
import { SyncHealthStore, type Outcome } from '../src/store/sync-health-store';
import { connectionSyncHealth, recordSyncOutcome, type SyncHealthDeps } from '../src/use-cases/sync-health';

describe('sync health of a connection', () => {
  const store = createMemoryStore();
  const connections = new ConnectionStore(store);
  const healthStore = new SyncHealthStore(store);
  let clock = new Date('2030-01-01T00:00:00Z');
  const health: SyncHealthDeps = { connections, health: healthStore, now: () => clock };
  const ref = { id: 'pmc_1', workspaceId: 'ws_1', provider: 'PMS-A' as const };
  const outcome = (changeId: string, kind: Outcome['outcome'], errorCode = ''): Outcome => ({
    changeId,
    connectionId: ref.id,
    service: 'reservation',
    outcome: kind,
    errorCode,
    errorMessage: errorCode ? `${errorCode} happened` : '',
    at: clock,
  });

  beforeAll(async () => {
    await connections.insert({
      id: ref.id,
      workspaceId: ref.workspaceId,
      provider: ref.provider,
      accountId: 'acct',
      status: 'connected',
      createdAt: clock,
      lastSyncedAt: null,
      cursor: '0',
    });
  });
  afterAll(() => store.close());

  it('counts each outcome once, measures lag from the oldest pending change, and follows the pulls', async () => {
    await store.transaction((tx) => healthStore.published(ref, ['chg_1', 'chg_2'], new Date('2030-01-01T00:00:00Z'), tx));
    await store.transaction((tx) => healthStore.published(ref, ['chg_3'], new Date('2030-01-01T00:00:30Z'), tx));
    // Published again (a reconnect re-reads the feed): not counted twice while pending.
    await store.transaction((tx) => healthStore.published(ref, ['chg_1'], new Date('2030-01-01T00:00:40Z'), tx));
    await healthStore.pullSucceeded(ref, clock);
    clock = new Date('2030-01-01T00:02:00Z');
    let h = (await connectionSyncHealth(health, ref.workspaceId, ref.id)).health;
    expect(h).toMatchObject({ state: 'degraded', published: 3, applied: 0, pending: 3, lagMs: 120_000 });

    for (const o of [
      outcome('chg_1', 'applied'),
      outcome('chg_1', 'applied'),
      outcome('chg_2', 'failed', 'busy'),
      outcome('chg_2', 'failed', 'busy'),
      outcome('chg_2', 'applied'),
    ])
      await recordSyncOutcome(health, o);
    h = (await connectionSyncHealth(health, ref.workspaceId, ref.id)).health;
    expect(h).toMatchObject({ published: 3, applied: 2, failed: 1, pending: 1, lagMs: 90_000, state: 'degraded' });
    expect(h.lastError).toMatchObject({ source: 'apply', code: 'busy', service: 'reservation', changeId: 'chg_2' });

    await recordSyncOutcome(health, outcome('chg_3', 'dead_lettered', 'listing_deleted'));
    await recordSyncOutcome(health, outcome('chg_3', 'dead_lettered', 'listing_deleted'));
    h = (await connectionSyncHealth(health, ref.workspaceId, ref.id)).health;
    expect(h).toMatchObject({ deadLettered: 1, deadLettersOpen: 1, pending: 0, lagMs: 0, state: 'degraded' });
    await recordSyncOutcome(health, outcome('chg_3', 'discarded'));
    h = (await connectionSyncHealth(health, ref.workspaceId, ref.id)).health;
    expect(h).toMatchObject({ deadLettered: 1, deadLettersOpen: 0, applied: 2, state: 'healthy' });

    for (let i = 1; i <= 3; i++) await healthStore.pullFailed(ref, { code: 'pms_unavailable', message: 'PMS-A did not answer', at: clock });
    h = (await connectionSyncHealth(health, ref.workspaceId, ref.id)).health;
    expect(h).toMatchObject({ state: 'failing', consecutiveFailures: 3, lastError: { source: 'pms', code: 'pms_unavailable' } });
    await healthStore.pullSucceeded(ref, clock);
    expect((await connectionSyncHealth(health, ref.workspaceId, ref.id)).health).toMatchObject({
      state: 'healthy',
      consecutiveFailures: 0,
      lastSuccessfulSyncAt: clock,
    });
  });

  it('answers not_found for a connection of another workspace', async () => {
    await expect(connectionSyncHealth(health, 'ws_other', ref.id)).rejects.toMatchObject({ code: 'not_found' });
  });
});
