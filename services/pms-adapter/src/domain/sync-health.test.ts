import { seriesOf } from '../metrics';
import { DEGRADED_LAG_MS, emptyCounters, FAILING_LAG_MS, syncHealthOf, type SyncBacklog, type SyncCounters } from './sync-health';

const now = new Date('2030-01-01T12:00:00Z');
const counters = (extra: Partial<SyncCounters> = {}): SyncCounters => ({
  ...emptyCounters({ connectionId: 'pmc_1', workspaceId: 'ws_1', provider: 'PMS-A' }),
  ...extra,
});
const backlog = (extra: Partial<SyncBacklog> = {}): SyncBacklog => ({ oldestPendingAt: null, pending: 0, deadLettersOpen: 0, ...extra });
const ago = (ms: number) => new Date(now.getTime() - ms);

describe('sync health state', () => {
  it('is healthy with nothing failing, nothing dead-lettered and a small lag', () => {
    const h = syncHealthOf(counters(), backlog({ oldestPendingAt: ago(DEGRADED_LAG_MS), pending: 3 }), now);
    expect(h).toMatchObject({ state: 'healthy', reasons: [], lagMs: DEGRADED_LAG_MS, pending: 3 });
  });

  it('is degraded after one or two failed pulls, an open dead letter, or a lag over the degraded threshold', () => {
    expect(syncHealthOf(counters({ consecutiveFailures: 2 }), backlog(), now)).toMatchObject({
      state: 'degraded',
      reasons: ['the last pull of the PMS failed (2 in a row)'],
    });
    expect(syncHealthOf(counters(), backlog({ deadLettersOpen: 2 }), now)).toMatchObject({
      state: 'degraded',
      reasons: ['2 changes are dead-lettered and not replayed'],
    });
    expect(syncHealthOf(counters(), backlog({ oldestPendingAt: ago(DEGRADED_LAG_MS + 1000) }), now).state).toBe('degraded');
  });

  it('is failing after three failed pulls in a row or a lag over the failing threshold, naming every reason worst first', () => {
    const h = syncHealthOf(counters({ consecutiveFailures: 3 }), backlog({ deadLettersOpen: 1, oldestPendingAt: ago(FAILING_LAG_MS + 1000) }), now);
    expect(h.state).toBe('failing');
    expect(h.reasons).toEqual([
      'the last 3 pulls of the PMS failed',
      'the oldest pending change waits for 901 s (over 900 s)',
      '1 change is dead-lettered and not replayed',
    ]);
  });
});

describe('metric series of sync health', () => {
  const view = (id: string, provider: string, state: 'healthy' | 'degraded' | 'failing', lagMs = 0) => ({
    ...syncHealthOf(counters({ connectionId: id, provider, applied: 2 }), backlog(), now),
    state,
    lagMs,
  });

  it('gives the worst connections their own series and sums the rest per provider under "other"', () => {
    const series = seriesOf(
      [view('pmc_a', 'PMS-A', 'healthy'), view('pmc_b', 'PMS-A', 'failing'), view('pmc_c', 'PMS-B', 'degraded', 5000), view('pmc_d', 'PMS-A', 'healthy', 9000)],
      2,
    );
    expect(series.map((s) => [s.connection, s.provider])).toEqual([
      ['pmc_b', 'PMS-A'],
      ['pmc_c', 'PMS-B'],
      ['other', 'PMS-A'],
    ]);
    expect(series[2]).toMatchObject({ states: { healthy: 2, degraded: 0, failing: 0 }, lagSeconds: 9, changes: { applied: 4 } });
  });
});
