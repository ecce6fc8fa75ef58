// The operators' view of PMS connections and dead letters (admin API), from the pms-adapter's and
// the services' proto messages. Services see data workspaces (`<id>_test` for the test-mode
// sandbox); operators see the workspace and the mode. Types are the schemas'.
import type { z } from 'zod';
import type { ops, pms, syncHealth } from '@vrp/contracts';
import type { Provider } from '@vrp/pms-matrix';
import { workspaceOfData } from '@vrp/platform/sandbox';
import type { DeadLetterReason, DeadLetterServiceName } from '@vrp/platform/consumer';
import type { deadLetterSchema } from './schemas/dead-letter';
import type { pmsConnectionSchema, syncHealthSchema } from './schemas/connection';
import type { ConnectionStatus } from './vocabulary';

export type ApiPmsConnection = z.infer<typeof pmsConnectionSchema>;
export type ApiDeadLetter = z.infer<typeof deadLetterSchema>;
export type ApiSyncHealth = z.infer<typeof syncHealthSchema>;

export function toApiConnection(c: pms.Connection | undefined): ApiPmsConnection {
  if (!c) throw new Error('pms-adapter answered without a connection');
  const owner = workspaceOfData(c.workspaceId);
  return {
    id: c.id,
    workspaceId: owner.workspaceId,
    mode: owner.mode,
    // The pms-adapter sends only members of these sets (its records are validated by them).
    provider: c.provider as Provider,
    accountId: c.accountId,
    status: c.status as ConnectionStatus,
    createdAt: (c.createdAt ?? new Date(0)).toISOString(),
    lastSyncedAt: c.lastSyncedAt ? c.lastSyncedAt.toISOString() : null,
  };
}

/** A connection's sync health as the pms-adapter folds it (counters, lag, state). */
export function toApiSyncHealth(h: syncHealth.SyncHealth | undefined): ApiSyncHealth {
  if (!h) throw new Error('pms-adapter answered without a sync health');
  const iso = (d: Date | undefined) => (d ? d.toISOString() : null);
  return {
    state: h.state as ApiSyncHealth['state'],
    reasons: h.reasons,
    lastSuccessfulSyncAt: iso(h.lastSuccessfulSyncAt),
    lastAttemptAt: iso(h.lastAttemptAt),
    consecutiveFailures: h.consecutiveFailures,
    lagSeconds: h.lagMs / 1000,
    changes: {
      published: h.changesPublished,
      applied: h.changesApplied,
      failed: h.changesFailed,
      deadLettered: h.changesDeadLettered,
      pending: h.changesPending,
      deadLettersOpen: h.deadLettersOpen,
    },
    lastError: h.lastError
      ? {
          source: h.lastError.source as 'pms' | 'apply',
          code: h.lastError.code,
          message: h.lastError.message,
          at: (h.lastError.at ?? new Date(0)).toISOString(),
          service: h.lastError.service || null,
          changeId: h.lastError.changeId || null,
        }
      : null,
  };
}

export function toApiDeadLetter(d: ops.DeadLetter | undefined): ApiDeadLetter {
  if (!d) throw new Error('a service answered without a dead letter');
  return {
    id: d.id,
    // The services send only members of these sets (their dead-letter stores are validated by them).
    service: d.service as DeadLetterServiceName,
    consumerGroup: d.consumerGroup,
    topic: d.topic,
    partition: d.partition,
    offset: d.offset,
    key: d.key,
    headers: d.headers,
    payloadBase64: Buffer.from(d.value).toString('base64'),
    errorCode: d.errorCode,
    errorMessage: d.errorMessage,
    reason: d.reason as DeadLetterReason,
    attempts: d.attempts,
    firstFailedAt: (d.firstFailedAt ?? new Date(0)).toISOString(),
    lastFailedAt: (d.lastFailedAt ?? new Date(0)).toISOString(),
    workspaceId: d.workspaceId ? workspaceOfData(d.workspaceId).workspaceId : null,
    mode: d.workspaceId ? workspaceOfData(d.workspaceId).mode : null,
    listingId: d.listingId || null,
    status: d.replayedAt ? 'replayed' : 'open',
    replayedAt: d.replayedAt ? d.replayedAt.toISOString() : null,
  };
}
