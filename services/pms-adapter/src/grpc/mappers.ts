// Domain <-> proto for the pms-adapter service.
import { pms as pb } from '@vrp/contracts';
import type { ConnectionRecord } from '../domain/connection';

export function toProtoConnection(c: ConnectionRecord): pb.Connection {
  return pb.Connection.create({
    id: c.id,
    workspaceId: c.workspaceId,
    provider: c.provider,
    accountId: c.accountId,
    status: c.status,
    createdAt: c.createdAt,
    // proto3 message fields are optional: "never synced" is an absent timestamp.
    lastSyncedAt: c.lastSyncedAt ?? undefined,
  });
}
