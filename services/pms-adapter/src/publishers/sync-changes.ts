// Publishes normalized PMS changes as PmsSyncChange (protobuf) on pms.sync.v1 through the
// outbox, in the same transaction as the cursor advance that covers them: a change is either
// published and behind the cursor, or neither, so none is lost or skipped.
import { pmsSync, TOPICS } from '@vrp/contracts';
import type { Outbox } from '@vrp/platform/outbox';
import type { Tx } from '@vrp/platform/store';
import type { ConnectionRecord } from '../domain/connection';
import { syncKey, type NormalizedChange } from '../domain/normalize';

/**
 * The change id is derived from the connection and the change's position in the PMS feed, so
 * the same PMS change always carries the same id (consumers de-duplicate on it), even when a
 * rewound cursor (reconnect) reads it again.
 */
export function changeIdOf(connection: Pick<ConnectionRecord, 'id'>, seq: number): string {
  return `chg_${connection.id}_${seq}`;
}

export function toSyncMessage(connection: ConnectionRecord, change: NormalizedChange): pmsSync.PmsSyncChange {
  return pmsSync.PmsSyncChange.create({
    changeId: changeIdOf(connection, change.seq),
    workspaceId: connection.workspaceId,
    connectionId: connection.id,
    provider: connection.provider,
    entity: change.entity,
    externalId: change.externalId,
    listingExternalId: change.listingExternalId,
    occurredAt: change.occurredAt,
    // The oneof member `entity` names.
    ...({ [change.entity]: change.payload } as Partial<pmsSync.PmsSyncChange>),
  });
}

export async function recordSyncChanges(outbox: Outbox, tx: Tx, connection: ConnectionRecord, changes: NormalizedChange[]): Promise<void> {
  await outbox.add(
    tx,
    changes.map((c) => {
      const message = toSyncMessage(connection, c);
      return {
        topic: TOPICS.pmsSync.name,
        key: syncKey(c),
        value: pmsSync.PmsSyncChange.encode(message).finish(),
        headers: {
          'event-id': message.changeId,
          'event-type': 'PmsSyncChange',
          'workspace-id': connection.workspaceId,
          entity: c.entity,
        },
      };
    }),
  );
}
