// gRPC handlers of PmsAdapterService: validate the request, run the use case, map the result.
import { listing, pms as pb } from '@vrp/contracts';
import { assertSupported, pmsCapabilities, reservationCapabilities } from '@vrp/pms-matrix';
import { AppError, newId, notFound, requireId, requireWorkspace, service, validationFailed, type ServiceRegistration, type Upstream } from '@vrp/platform';
import { connectPlan, INITIAL_CURSOR, providerNamed, type ConnectionRecord, type PmsProvider } from '../domain/connection';
import { isWrite, pmsRequestFor, RelayInputError } from '../domain/relay';
import type { ConnectorRegistry } from '../ports/pms-connector';
import type { ConnectionStore } from '../store/connection-store';
import type { Syncer } from '../use-cases/sync';
import { toProtoConnection } from './mappers';

/**
 * How long Connect and SyncNow wait for a sync before answering with what was published so far
 * (the rest keeps syncing in the background): well below the gateway's upstream deadline.
 */
export const SYNC_CALL_BUDGET_MS = 1500;

export interface PmsAdapterHandlerDeps {
  connections: ConnectionStore;
  connectors: ConnectorRegistry;
  syncer: Syncer;
  listing: Upstream<listing.ListingServiceClient>;
}

function providerOf(value: string, field = 'provider'): PmsProvider {
  if (!value) throw validationFailed({ [field]: 'is required' });
  const provider = providerNamed(value);
  if (!provider) throw validationFailed({ [field]: `must be one of PMS-A..PMS-G, not '${value}'` });
  return provider;
}

export function pmsAdapterHandlers(deps: PmsAdapterHandlerDeps): ServiceRegistration {
  const { connections, connectors, syncer } = deps;

  async function connectionOf(workspaceId: string, id: string): Promise<ConnectionRecord> {
    requireWorkspace(workspaceId);
    requireId(id, 'connectionId');
    const found = await connections.get(workspaceId, id);
    if (!found) throw notFound('PMS connection', id);
    return found;
  }

  /** The connected account that manages a listing (the one that imported it, else the oldest). */
  async function accountFor(workspaceId: string, provider: PmsProvider, listingExternalId: string): Promise<ConnectionRecord> {
    const connected = await connections.connectedOf(workspaceId, provider);
    if (connected.length > 1 && listingExternalId) {
      const owners = new Set(await connections.connectionIdsOfListing(workspaceId, provider, listingExternalId));
      const owner = connected.find((c) => owners.has(c.id));
      if (owner) return owner;
    }
    const first = connected[0];
    if (!first) {
      throw new AppError(
        'conflict',
        `This workspace has no connected ${provider} account; nothing was sent.`,
        {},
        `Connect the ${provider} account (POST /admin/v1/workspaces/{id}/connections), then retry.`,
      );
    }
    return first;
  }

  return service(pb.PmsAdapterServiceService, {
    async listConnections(req) {
      requireWorkspace(req.workspaceId);
      return { connections: (await connections.list(req.workspaceId)).map(toProtoConnection) };
    },

    async connect(req) {
      requireWorkspace(req.workspaceId);
      const provider = providerOf(req.provider);
      if (!req.accountId.trim()) throw validationFailed({ accountId: 'is required' });
      const accountId = req.accountId.trim();
      // The account must exist in the PMS (and the PMS answer) before anything is stored.
      await connectors.of(provider).account(accountId);
      const existing = await connections.byAccount(req.workspaceId, provider, accountId);
      let connection: ConnectionRecord;
      switch (connectPlan(existing)) {
        case 'create':
          connection = await connections.insert({
            id: newId('pmc'),
            workspaceId: req.workspaceId,
            provider,
            accountId,
            status: 'connected',
            createdAt: new Date(),
            lastSyncedAt: null,
            cursor: INITIAL_CURSOR,
          });
          break;
        case 'reconnect':
          connection = (await connections.setStatus(req.workspaceId, existing!.id, 'connected'))!;
          break;
        default:
          connection = existing!;
      }
      // The import: the first sync publishes every listing of the account (unlisted ones are
      // created inactive by the listing service).
      const outcome = await syncer.syncWithin(connection, SYNC_CALL_BUDGET_MS);
      const current = (await connections.get(req.workspaceId, connection.id)) ?? connection;
      return { connection: toProtoConnection(current), importedExternalIds: outcome.listingExternalIds };
    },

    async disconnect(req) {
      const connection = await connectionOf(req.workspaceId, req.connectionId);
      // Marked first, so that no sync publishes after the listings went inactive. Repeating a
      // disconnect repeats the deactivation, so a failed call can simply be retried.
      const updated = (await connections.setStatus(req.workspaceId, connection.id, 'disconnected')) ?? connection;
      const pmsExternalIds = await connections.listingsOnlyManagedBy(updated);
      const { deactivated } = await deps.listing.call('deactivateConnectionListings', { workspaceId: req.workspaceId, pmsProvider: connection.provider, pmsExternalIds });
      return { connection: toProtoConnection(updated), deactivatedListingIds: deactivated };
    },

    async getProviderCapabilities(req) {
      const provider = providerNamed(req.provider);
      if (!provider) throw new AppError('not_found', `No PMS named '${req.provider}' is supported (PMS-A..PMS-G).`, {}, 'Use one of PMS-A, PMS-B, PMS-C, PMS-D, PMS-E, PMS-F, PMS-G.');
      return {
        capabilities: {
          provider,
          reservations: reservationCapabilities(provider),
          pms: pmsCapabilities(provider),
        },
      };
    },

    async relayWrite(req) {
      requireWorkspace(req.workspaceId);
      const provider = providerOf(req.provider);
      if (!isWrite(req.operation)) throw validationFailed({ operation: `'${req.operation}' is not a write of the capability matrix` });
      // Decided from the matrix alone, before anything is sent (spec 7.2).
      assertSupported(provider, req.operation);
      let payload: unknown = {};
      if (req.payloadJson) {
        try {
          payload = JSON.parse(req.payloadJson);
        } catch {
          throw validationFailed({ payloadJson: 'is not valid JSON' });
        }
      }
      let request;
      try {
        request = pmsRequestFor({
          operation: req.operation,
          listingExternalId: req.listingExternalId,
          entityExternalId: req.entityExternalId,
          payload,
          idempotencyKey: req.idempotencyKey,
        });
      } catch (err) {
        if (err instanceof RelayInputError) throw validationFailed(err.fields);
        throw err;
      }
      const account = await accountFor(req.workspaceId, provider, req.listingExternalId);
      const answer = await connectors.of(provider).write(account.accountId, request);
      const id = (answer as { id?: unknown } | null)?.id;
      return { entityExternalId: typeof id === 'string' && id ? id : req.entityExternalId, resultJson: JSON.stringify(answer ?? null) };
    },

    async syncNow(req) {
      requireWorkspace(req.workspaceId);
      let targets: ConnectionRecord[];
      if (req.connectionId) {
        const connection = await connectionOf(req.workspaceId, req.connectionId);
        if (connection.status !== 'connected') {
          throw new AppError('conflict', `Connection '${connection.id}' is disconnected; nothing to sync.`, {}, 'Connect the account again to resume syncing.');
        }
        targets = [connection];
      } else {
        targets = (await connections.list(req.workspaceId)).filter((c) => c.status === 'connected');
      }
      let published = 0;
      const started = Date.now();
      for (const c of targets) published += (await syncer.syncWithin(c, Math.max(1, SYNC_CALL_BUDGET_MS - (Date.now() - started)))).published;
      return { changesPublished: published };
    },
  });
}
