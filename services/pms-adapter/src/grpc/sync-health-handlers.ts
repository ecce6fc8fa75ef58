// gRPC handlers of SyncHealthService: one connection's sync health for the admin API.
import { syncHealth as pb } from '@vrp/contracts';
import { service, type ServiceRegistration } from '@vrp/platform/grpc';
import type { SyncHealthView } from '../domain/sync-health';
import { connectionSyncHealth, type SyncHealthDeps } from '../use-cases/sync-health';
import { toProtoConnection } from './mappers';

export function toProtoSyncHealth(h: SyncHealthView): pb.SyncHealth {
  return pb.SyncHealth.create({
    state: h.state,
    reasons: h.reasons,
    lastSuccessfulSyncAt: h.lastSuccessfulSyncAt ?? undefined,
    lastAttemptAt: h.lastAttemptAt ?? undefined,
    consecutiveFailures: h.consecutiveFailures,
    lagMs: h.lagMs,
    changesPublished: h.published,
    changesApplied: h.applied,
    changesFailed: h.failed,
    changesDeadLettered: h.deadLettered,
    deadLettersOpen: h.deadLettersOpen,
    changesPending: h.pending,
    lastError: h.lastError ? pb.SyncError.create({ ...h.lastError }) : undefined,
  });
}

export function syncHealthHandlers(deps: SyncHealthDeps): ServiceRegistration {
  return service(pb.SyncHealthServiceService, {
    async getSyncHealth(req) {
      const { connection, health: view } = await connectionSyncHealth(deps, req.workspaceId, req.connectionId);
      return { connection: toProtoConnection(connection), health: toProtoSyncHealth(view) };
    },
  });
}
