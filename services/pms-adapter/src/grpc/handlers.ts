// gRPC handlers of PmsAdapterService: decode the request, run one use case, encode the result.
import { pms as pb } from '@vrp/contracts';
import { requireId, requireWorkspace } from '@vrp/platform/paging';
import { service, type ServiceRegistration } from '@vrp/platform/grpc';
import { providerCapabilities } from '../use-cases/capabilities';
import type { Connections } from '../use-cases/connections';
import type { Relay } from '../use-cases/relay';
import { toProtoConnection } from './mappers';

export function pmsAdapterHandlers(deps: { connections: Connections; relay: Relay }): ServiceRegistration {
  const { connections, relay } = deps;

  return service(pb.PmsAdapterServiceService, {
    async listConnections(req) {
      requireWorkspace(req.workspaceId);
      return { connections: (await connections.list(req.workspaceId)).map(toProtoConnection) };
    },

    async connect(req) {
      requireWorkspace(req.workspaceId);
      const { connection, importedExternalIds } = await connections.connect(req.workspaceId, { provider: req.provider, accountId: req.accountId });
      return { connection: toProtoConnection(connection), importedExternalIds };
    },

    async disconnect(req) {
      requireWorkspace(req.workspaceId);
      requireId(req.connectionId, 'connectionId');
      const { connection, deactivatedListingIds } = await connections.disconnect(req.workspaceId, req.connectionId);
      return { connection: toProtoConnection(connection), deactivatedListingIds };
    },

    async getProviderCapabilities(req) {
      return { capabilities: providerCapabilities(req.provider) };
    },

    async relayWrite(req) {
      requireWorkspace(req.workspaceId);
      const { entityExternalId, result } = await relay.write(req.workspaceId, {
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
      return { changesPublished: await connections.syncNow(req.workspaceId, req.connectionId) };
    },
  });
}
