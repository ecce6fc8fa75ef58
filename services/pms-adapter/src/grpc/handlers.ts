// gRPC handlers of PmsAdapterService: decode the request, run one use case, encode the result.
import { pms as pb } from '@vrp/contracts';
import { requireId, requireWorkspace } from '@vrp/platform/paging';
import { service, type ServiceRegistration } from '@vrp/platform/grpc';
import { providerCapabilities } from '../use-cases/capabilities';
import { connect, disconnect, listConnections, syncNow } from '../use-cases/connections';
import type { PmsAdapterDeps } from '../use-cases/deps';
import { relayWrite } from '../use-cases/relay';
import { toProtoConnection } from './mappers';

export function pmsAdapterHandlers(deps: PmsAdapterDeps): ServiceRegistration {
  return service(pb.PmsAdapterServiceService, {
    async listConnections(req) {
      requireWorkspace(req.workspaceId);
      return { connections: (await listConnections(deps, req.workspaceId)).map(toProtoConnection) };
    },

    async connect(req) {
      requireWorkspace(req.workspaceId);
      const { connection, importedExternalIds } = await connect(deps, req.workspaceId, { provider: req.provider, accountId: req.accountId });
      return { connection: toProtoConnection(connection), importedExternalIds };
    },

    async disconnect(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.connectionId, 'connectionId');
      const { connection, deactivatedListingIds } = await disconnect(deps, req.workspaceId, req.connectionId);
      return { connection: toProtoConnection(connection), deactivatedListingIds };
    },

    async getProviderCapabilities(req) {
      return { capabilities: providerCapabilities(req.provider) };
    },

    async relayWrite(req) {
      requireWorkspace(req.workspaceId);
      const { entityExternalId, result } = await relayWrite(deps, req.workspaceId, {
        provider: req.provider,
        operation: req.operation,
        listingExternalId: req.listingExternalId,
        entityExternalId: req.entityExternalId,
        payloadJson: req.payloadJson,
        idempotencyKey: req.idempotencyKey,
      });
      return { entityExternalId, resultJson: JSON.stringify(result) };
    },

    async syncNow(req) {
      requireWorkspace(req.workspaceId);
      if (req.connectionId) requireId(req.connectionId, 'connectionId');
      return { changesPublished: await syncNow(deps, req.workspaceId, req.connectionId) };
    },
  });
}
