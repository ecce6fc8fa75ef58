// Prometheus metrics of per-connection sync health (docs/operations.md, "PMS sync health").
// Labels: connection (id) and provider. Cardinality is bounded: the CONNECTION_SERIES_LIMIT worst
// connections (failing first, then degraded, then by lag) get their own series; the others are
// summed per provider under connection="other". vrp_pms_sync_connections counts every connected
// connection per provider and state (at most 7 x 3 series).
import client from 'prom-client';
import { SYNC_STATES, type SyncHealthView, type SyncState } from './domain/sync-health';
import { allSyncHealth, type SyncHealthDeps } from './use-cases/sync-health';

export const CONNECTION_SERIES_LIMIT = 200;
/** One read of every connection's health serves all the metrics of a scrape. */
const SNAPSHOT_TTL_MS = 2000;

const sources = new Set<SyncHealthDeps>();
let snapshot: { at: number; views: Promise<SyncHealthView[]> } | null = null;

function views(): Promise<SyncHealthView[]> {
  if (!snapshot || Date.now() - snapshot.at > SNAPSHOT_TTL_MS) {
    // Instances of the service in one process (the embedded stack's replicas) read the same
    // store: a connection is counted once, as one process of a deployment counts it.
    const read = Promise.all([...sources].map((s) => allSyncHealth(s))).then((all) => [...new Map(all.flat().map((v) => [v.connectionId, v])).values()]);
    snapshot = { at: Date.now(), views: read.catch(() => []) };
  }
  return snapshot.views;
}

const SEVERITY: Record<SyncState, number> = { failing: 2, degraded: 1, healthy: 0 };

interface Series {
  connection: string;
  provider: string;
  states: Record<SyncState, number>;
  lagSeconds: number;
  deadLettersOpen: number;
  consecutiveFailures: number;
  lastSuccess: number;
  changes: { published: number; applied: number; failed: number; dead_lettered: number };
}

/** Per-connection series for the worst `max` connections, the rest summed per provider as "other". */
export function seriesOf(all: SyncHealthView[], max = CONNECTION_SERIES_LIMIT): Series[] {
  const ranked = [...all].sort((a, b) => SEVERITY[b.state] - SEVERITY[a.state] || b.lagMs - a.lagMs || a.connectionId.localeCompare(b.connectionId));
  const out: Series[] = [];
  const others = new Map<string, Series>();
  ranked.forEach((v, i) => {
    const own = i < max;
    const key = own ? v.connectionId : 'other';
    let s = own ? undefined : others.get(v.provider);
    if (!s) {
      s = {
        connection: key,
        provider: v.provider,
        states: { healthy: 0, degraded: 0, failing: 0 },
        lagSeconds: 0,
        deadLettersOpen: 0,
        consecutiveFailures: 0,
        lastSuccess: 0,
        changes: { published: 0, applied: 0, failed: 0, dead_lettered: 0 },
      };
      if (own) out.push(s);
      else others.set(v.provider, s);
    }
    s.states[v.state] += 1;
    s.lagSeconds = Math.max(s.lagSeconds, v.lagMs / 1000);
    s.deadLettersOpen += v.deadLettersOpen;
    s.consecutiveFailures = Math.max(s.consecutiveFailures, v.consecutiveFailures);
    // "other": the oldest last success among them (the one most behind).
    const last = v.lastSuccessfulSyncAt ? v.lastSuccessfulSyncAt.getTime() / 1000 : 0;
    s.lastSuccess = own || s.lastSuccess === 0 ? last : Math.min(s.lastSuccess, last);
    s.changes.published += v.published;
    s.changes.applied += v.applied;
    s.changes.failed += v.failed;
    s.changes.dead_lettered += v.deadLettered;
  });
  return [...out, ...others.values()];
}

const labelNames = ['connection', 'provider'] as const;

function gauge(name: string, help: string, value: (s: Series) => number) {
  return new client.Gauge({
    name,
    help,
    labelNames,
    async collect() {
      this.reset();
      for (const s of seriesOf(await views())) this.set({ connection: s.connection, provider: s.provider }, value(s));
    },
  });
}

gauge(
  'vrp_pms_sync_lag_seconds',
  'Age of the oldest PMS change published and neither applied nor dead-lettered, per connection (0: none pending)',
  (s) => s.lagSeconds,
);
gauge('vrp_pms_sync_dead_letters_open', 'Changes of the connection set aside as dead letters and not replayed or deleted', (s) => s.deadLettersOpen);
gauge('vrp_pms_sync_consecutive_failures', 'Pulls of the PMS change feed that failed in a row, per connection', (s) => s.consecutiveFailures);
gauge('vrp_pms_sync_last_success_timestamp_seconds', 'Unix time of the last pull of the PMS change feed that completed (0: never)', (s) => s.lastSuccess);

new client.Gauge({
  name: 'vrp_pms_sync_state',
  help: 'Sync state of each connection: 1 on the current state (healthy, degraded, failing); for connection="other", the number of connections in it',
  labelNames: [...labelNames, 'state'] as const,
  async collect() {
    this.reset();
    for (const s of seriesOf(await views()))
      for (const state of SYNC_STATES) this.set({ connection: s.connection, provider: s.provider, state }, s.states[state]);
  },
});

new client.Gauge({
  name: 'vrp_pms_sync_connections',
  help: 'Connected PMS connections per provider and sync state',
  labelNames: ['provider', 'state'] as const,
  async collect() {
    this.reset();
    for (const v of await views()) this.inc({ provider: v.provider, state: v.state });
  },
});

new client.Counter({
  name: 'vrp_pms_sync_changes_total',
  help: 'PMS changes of the connection by outcome: published on pms.sync.v1, applied by the owning service, failed at least once, dead-lettered (stored totals)',
  labelNames: [...labelNames, 'outcome'] as const,
  async collect() {
    this.reset();
    for (const s of seriesOf(await views())) {
      for (const [outcome, n] of Object.entries(s.changes)) if (n > 0) this.inc({ connection: s.connection, provider: s.provider, outcome }, n);
    }
  },
});

/** Registers a running service's health as a source of the metrics; returns its removal. */
export function exposeSyncHealth(health: SyncHealthDeps): () => void {
  sources.add(health);
  snapshot = null;
  return () => {
    sources.delete(health);
    snapshot = null;
  };
}
