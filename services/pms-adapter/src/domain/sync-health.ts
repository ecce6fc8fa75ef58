// Sync health of a PMS connection (docs/operations.md, "PMS sync health"): the counters and the
// last error the adapter keeps per connection, and the rule that turns them into a state. No I/O.

export type SyncState = 'healthy' | 'degraded' | 'failing';
export const SYNC_STATES: readonly SyncState[] = ['healthy', 'degraded', 'failing'];

export interface SyncError {
  /** 'pms': pulling the PMS's change feed failed; 'apply': a service failed to apply a change. */
  source: 'pms' | 'apply';
  code: string;
  message: string;
  at: Date;
  service: string;
  changeId: string;
}

/** What the adapter stores per connection (sync_health collection). */
export interface SyncCounters {
  connectionId: string;
  workspaceId: string;
  provider: string;
  lastSuccessfulSyncAt: Date | null;
  lastAttemptAt: Date | null;
  consecutiveFailures: number;
  published: number;
  applied: number;
  failed: number;
  deadLettered: number;
  lastError: SyncError | null;
}

/** What is measured at read time: pending changes and open dead letters. */
export interface SyncBacklog {
  /** When the adapter read the oldest change still pending; null when none is. */
  oldestPendingAt: Date | null;
  pending: number;
  deadLettersOpen: number;
}

/**
 * Thresholds of the states (documented in docs/operations.md):
 * - failing: FAILING_CONSECUTIVE_FAILURES pulls in a row failed, or the oldest pending change is
 *   older than FAILING_LAG_MS;
 * - degraded: the last pull failed, a dead letter of the connection is open, or the oldest
 *   pending change is older than DEGRADED_LAG_MS;
 * - healthy otherwise.
 */
export const FAILING_CONSECUTIVE_FAILURES = 3;
export const DEGRADED_LAG_MS = 60_000;
export const FAILING_LAG_MS = 15 * 60_000;

export interface SyncHealthView extends SyncCounters, SyncBacklog {
  state: SyncState;
  reasons: string[];
  lagMs: number;
}

export function lagOf(backlog: Pick<SyncBacklog, 'oldestPendingAt'>, now: Date): number {
  return backlog.oldestPendingAt ? Math.max(0, now.getTime() - backlog.oldestPendingAt.getTime()) : 0;
}

/** The state of a connection's sync and the reasons it is not healthy. */
export function syncHealthOf(counters: SyncCounters, backlog: SyncBacklog, now: Date): SyncHealthView {
  const lagMs = lagOf(backlog, now);
  const failing: string[] = [];
  const degraded: string[] = [];
  const failures = counters.consecutiveFailures;
  if (failures >= FAILING_CONSECUTIVE_FAILURES) failing.push(`the last ${failures} pulls of the PMS failed`);
  else if (failures > 0) degraded.push(`the last pull of the PMS failed${failures > 1 ? ` (${failures} in a row)` : ''}`);
  if (lagMs > FAILING_LAG_MS) failing.push(`the oldest pending change waits for ${Math.round(lagMs / 1000)} s (over ${FAILING_LAG_MS / 1000} s)`);
  else if (lagMs > DEGRADED_LAG_MS) degraded.push(`the oldest pending change waits for ${Math.round(lagMs / 1000)} s (over ${DEGRADED_LAG_MS / 1000} s)`);
  if (backlog.deadLettersOpen > 0)
    degraded.push(`${backlog.deadLettersOpen} change${backlog.deadLettersOpen === 1 ? ' is' : 's are'} dead-lettered and not replayed`);
  const state: SyncState = failing.length > 0 ? 'failing' : degraded.length > 0 ? 'degraded' : 'healthy';
  return { ...counters, ...backlog, lagMs, state, reasons: [...failing, ...degraded] };
}

/** Fresh counters of a connection that has not synced yet. */
export function emptyCounters(c: { connectionId: string; workspaceId: string; provider: string }): SyncCounters {
  return {
    ...c,
    lastSuccessfulSyncAt: null,
    lastAttemptAt: null,
    consecutiveFailures: 0,
    published: 0,
    applied: 0,
    failed: 0,
    deadLettered: 0,
    lastError: null,
  };
}
