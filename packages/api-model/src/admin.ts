// The operators' view of PMS connections and dead letters (admin API), from the pms-adapter's and
// the services' proto messages. Services see data workspaces (`<id>_test` for the test-mode
// sandbox); operators see the workspace and the mode. Types are the schemas'.
import type { z } from 'zod';
import type { ops, pms } from '@vrp/contracts';
import type { Provider } from '@vrp/pms-matrix';
import { workspaceOfData, type DeadLetterReason, type DeadLetterServiceName } from '@vrp/platform';
import type { deadLetterSchema } from './schemas/dead-letter';
import type { pmsConnectionSchema } from './schemas/connection';
import type { ConnectionStatus } from './vocabulary';

export type ApiPmsConnection = z.infer<typeof pmsConnectionSchema>;
export type ApiDeadLetter = z.infer<typeof deadLetterSchema>;

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
