// Operator API for PMS connections: connect a workspace to a PMS account (which imports its
// listings), list, disconnect (its listings become inactive: docs/api.md, "Listings are active
// or inactive") and sync on demand.
import { z } from 'zod';
import type { pms, syncHealth } from '@vrp/contracts';
import { AppError } from '@vrp/platform/errors';
import { dataWorkspaceId, KEY_MODES, type KeyMode } from '@vrp/platform/sandbox';
import { type Upstream } from '@vrp/platform/grpc';
import { getWorkspace, type WorkspaceAdminDeps } from '../../use-cases/workspace-admin';
import { created, defineRoute, ok, type Route } from '../route';
import {
  component,
  connectionParams,
  createConnectionBody,
  idParam,
  pmsConnectionSchema,
  syncHealthSchema,
  toApiConnection,
  toApiSyncHealth,
} from '@vrp/api-model';

const connectionWithHealthSchema = component(
  'PmsConnectionWithHealth',
  'A PMS connection with the health of its sync.',
  pmsConnectionSchema.extend({ syncHealth: syncHealthSchema }),
);
const connectionImportSchema = component(
  'PmsConnectionImport',
  'A new (or reconnected) PMS connection and what its first import published.',
  pmsConnectionSchema.extend({ importedListingExternalIds: z.array(z.string()).describe('PMS ids of the listings published by this import.') }),
);
const disconnectionSchema = component(
  'PmsDisconnection',
  'A disconnected PMS connection and the listings it made inactive.',
  pmsConnectionSchema.extend({ deactivatedListingIds: z.array(z.string()).describe('Listings made inactive by this call.') }),
);
const syncResultSchema = component(
  'SyncResult',
  'Outcome of an on-demand sync.',
  z.object({ changesPublished: z.number().int().min(0).describe('Changes the sync published.') }),
);

const tags = ['Admin'];
const workspaceIdParams = z.strictObject({ id: idParam('Workspace id (ws_...).') });

/** Live first: most connections are live. */
const MODES: readonly KeyMode[] = [...KEY_MODES].reverse();

/** Runs a call on a connection of the workspace in whichever mode holds it (ids are unique across modes). */
async function inEitherMode<R>(workspaceId: string, call: (dataId: string) => Promise<R>): Promise<R> {
  try {
    return await call(dataWorkspaceId(workspaceId, 'live'));
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'not_found') throw err;
    return call(dataWorkspaceId(workspaceId, 'test'));
  }
}

export function adminConnectionRoutes(
  upstream: Upstream<pms.PmsAdapterServiceClient>,
  admin: WorkspaceAdminDeps,
  health: Upstream<syncHealth.SyncHealthServiceClient>,
): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/admin/v1/workspaces/:id/connections/:connectionId',
      operationId: 'adminGetPmsConnection',
      summary: 'Get a PMS connection and its sync health',
      description:
        'The connection with `syncHealth`: last successful sync, lag (age of the oldest change not applied yet), changes published, applied, failed and dead-lettered, the last error, and `state` (`healthy`, `degraded`, `failing`; thresholds in the schema). "Applied" is counted when the service that owns the change (listing, reservation, guest) has applied it.',
      tags,
      auth: 'admin',
      params: connectionParams,
      responses: {
        200: z.object({
          data: connectionWithHealthSchema,
        }),
      },
      errors: ['not_found'],
      async handler({ params }) {
        await getWorkspace(admin, params.id);
        const res = await inEitherMode(params.id, (workspaceId) => health.call('getSyncHealth', { workspaceId, connectionId: params.connectionId }));
        return ok({ data: { ...toApiConnection(res.connection), syncHealth: toApiSyncHealth(res.health) } });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/admin/v1/workspaces/:id/connections',
      operationId: 'adminConnectPms',
      summary: 'Connect a workspace to a PMS account',
      description:
        'Checks the account with the PMS, stores the connection and imports the account’s listings right away (they appear in the API as the listing service applies the import; a listing unlisted on its channel arrives inactive). Connecting an account that is already connected returns the same connection; a disconnected one is reconnected and imported again.',
      tags,
      auth: 'admin',
      params: workspaceIdParams,
      body: createConnectionBody,
      responses: {
        201: z.object({
          data: connectionImportSchema,
        }),
      },
      errors: ['not_found', 'pms_unavailable', 'service_unavailable'],
      async handler({ params, body }) {
        await getWorkspace(admin, params.id);
        const res = await upstream.call('connect', { workspaceId: dataWorkspaceId(params.id, body.mode), provider: body.provider, accountId: body.accountId });
        return created({ data: { ...toApiConnection(res.connection), importedListingExternalIds: res.importedExternalIds } });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/admin/v1/workspaces/:id/connections',
      operationId: 'adminListPmsConnections',
      summary: "List a workspace's PMS connections (both modes)",
      tags,
      auth: 'admin',
      params: workspaceIdParams,
      responses: { 200: z.object({ data: z.array(pmsConnectionSchema) }) },
      errors: ['not_found'],
      async handler({ params }) {
        await getWorkspace(admin, params.id);
        const lists = await Promise.all(MODES.map((mode) => upstream.call('listConnections', { workspaceId: dataWorkspaceId(params.id, mode) })));
        return ok({ data: lists.flatMap((res) => res.connections.map(toApiConnection)) });
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/admin/v1/workspaces/:id/connections/:connectionId',
      operationId: 'adminDisconnectPms',
      summary: 'Disconnect a PMS account',
      description: 'Stops syncing the account and makes its listings inactive: no longer billed, data of other services kept. Repeating the call is harmless.',
      tags,
      auth: 'admin',
      params: connectionParams,
      responses: {
        200: z.object({
          data: disconnectionSchema,
        }),
      },
      errors: ['not_found'],
      async handler({ params }) {
        await getWorkspace(admin, params.id);
        const res = await inEitherMode(params.id, (workspaceId) => upstream.call('disconnect', { workspaceId, connectionId: params.connectionId }));
        return ok({ data: { ...toApiConnection(res.connection), deactivatedListingIds: res.deactivatedListingIds } });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/admin/v1/workspaces/:id/connections/:connectionId/sync',
      operationId: 'adminSyncPms',
      summary: 'Sync a PMS account now',
      description:
        'Pulls the changes made in the PMS since the last sync and publishes them on pms.sync.v1 (the same as the scheduled sync). The services apply them shortly after this call returns.',
      tags,
      auth: 'admin',
      params: connectionParams,
      responses: {
        200: z.object({
          data: syncResultSchema,
        }),
      },
      errors: ['not_found', 'conflict', 'pms_unavailable', 'service_unavailable'],
      async handler({ params }) {
        await getWorkspace(admin, params.id);
        const res = await inEitherMode(params.id, (workspaceId) => upstream.call('syncNow', { workspaceId, connectionId: params.connectionId }));
        return ok({ data: { changesPublished: res.changesPublished } });
      },
    }),
  ];
}
