// The operator API (/admin/v1): workspaces, their plan limit and API keys. Guarded by the
// admin token; never reachable with an API key.
import { z } from 'zod';
import { pageInfo } from '@vrp/platform/paging';
import { requestKey } from '@vrp/platform/applied-requests';
import { ADMIN_SCOPE } from '../middleware/auth';
import { idempotencyKeyOf } from '../middleware/idempotency';
import { toApiKeySummary, toApiUsage } from '../mappers';
import { created, defineRoute, ok, type Route } from '../route';
import { idParam, pageQuery, paginationSchema } from '@vrp/api-model';
import { activeListingLimitInput, apiKeyModeSchema, apiKeySummarySchema, createdApiKeySchema, workspaceNameInput } from '../schemas-admin';
import { planWorkspaceSchema, rateLimitsInput, toApiPlanWorkspace, workspaceWithUsageSchema } from '../schemas-limits';
import {
  createWorkspace,
  getWorkspace,
  issueApiKey,
  listApiKeys,
  revokeApiKey,
  setActiveListingLimit,
  setRateLimits,
  workspaceUsage,
  type WorkspaceAdminDeps,
} from '../../use-cases/workspace-admin';

const workspaceIdParams = z.strictObject({ id: idParam('Workspace id (ws_...).') });
const apiKeyIdParams = z.strictObject({ id: idParam('API key id (key_...).') });

export const createWorkspaceBody = z.strictObject({
  name: workspaceNameInput.describe('Display name of the workspace.'),
  activeListingLimit: activeListingLimitInput,
  rateLimits: rateLimitsInput.optional(),
});
export const updateWorkspaceBody = z
  .strictObject({ activeListingLimit: activeListingLimitInput.optional(), rateLimits: rateLimitsInput.optional() })
  .refine((b) => b.activeListingLimit !== undefined || b.rateLimits !== undefined, { message: 'must set activeListingLimit, rateLimits or both' });
export const createApiKeyBody = z.strictObject({
  mode: apiKeyModeSchema,
  name: z.string().trim().min(1).max(100).optional().describe('A label for the key, e.g. "staging server".'),
});

const tags = ['Admin'];

export function adminRoutes(admin: WorkspaceAdminDeps): Route[] {
  return [
    defineRoute({
      method: 'post',
      path: '/admin/v1/workspaces',
      operationId: 'adminCreateWorkspace',
      summary: 'Create a workspace',
      description:
        'Creates a workspace and sets its plan: the active-listing limit (in the listing service, for live mode and for the test-mode sandbox alike) and, optionally, rate and concurrency limits (defaults otherwise).',
      tags,
      auth: 'admin',
      body: createWorkspaceBody,
      responses: { 201: z.object({ data: planWorkspaceSchema }) },
      async handler({ body, req }) {
        // The gateway is this write's service: its key is stored with the workspace (scope: the admin API).
        const ws = await createWorkspace(
          admin,
          body,
          requestKey('admin.createWorkspace', { workspaceId: ADMIN_SCOPE, idempotencyKey: idempotencyKeyOf(req), ...body }),
        );
        return created({ data: toApiPlanWorkspace(ws) });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/admin/v1/workspaces/:id',
      operationId: 'adminGetWorkspace',
      summary: 'Get a workspace with its plan and usage',
      tags,
      auth: 'admin',
      params: workspaceIdParams,
      responses: { 200: z.object({ data: workspaceWithUsageSchema }) },
      errors: ['not_found'],
      async handler({ params }) {
        const ws = await getWorkspace(admin, params.id);
        const [usage, testUsage] = await Promise.all([workspaceUsage(admin, ws.id, 'live'), workspaceUsage(admin, ws.id, 'test')]);
        return ok({
          data: { ...toApiPlanWorkspace(ws), usage: toApiUsage(usage, ws.activeListingLimit), testUsage: toApiUsage(testUsage, ws.activeListingLimit) },
        });
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/admin/v1/workspaces/:id',
      operationId: 'adminUpdateWorkspace',
      summary: "Change a workspace's plan: active-listing limit and rate limits",
      description: 'Rate limit changes apply to the next request on every gateway replica; `null` restores a default.',
      tags,
      auth: 'admin',
      params: workspaceIdParams,
      body: updateWorkspaceBody,
      responses: { 200: z.object({ data: planWorkspaceSchema }) },
      errors: ['not_found'],
      async handler({ params, body }) {
        let ws = await getWorkspace(admin, params.id);
        if (body.activeListingLimit !== undefined) ws = await setActiveListingLimit(admin, params.id, body.activeListingLimit);
        if (body.rateLimits !== undefined) ws = await setRateLimits(admin, params.id, body.rateLimits);
        return ok({ data: toApiPlanWorkspace(ws) });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/admin/v1/workspaces/:id/api-keys',
      operationId: 'adminCreateApiKey',
      summary: 'Issue an API key',
      description: 'The key is bound to this workspace and mode. It is shown only in this response; only its hash is kept.',
      tags,
      auth: 'admin',
      params: workspaceIdParams,
      body: createApiKeyBody,
      responses: { 201: z.object({ data: createdApiKeySchema }) },
      errors: ['not_found'],
      async handler({ params, body }) {
        const { record, key } = await issueApiKey(admin, params.id, { mode: body.mode, name: body.name ?? null });
        return created({ data: { ...toApiKeySummary(record), key } });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/admin/v1/workspaces/:id/api-keys',
      operationId: 'adminListApiKeys',
      summary: "List a workspace's API keys",
      description: 'Keys are listed without their secret: id, display prefix, mode, creation and revocation times.',
      tags,
      auth: 'admin',
      params: workspaceIdParams,
      query: z.strictObject(pageQuery),
      responses: { 200: z.object({ data: z.array(apiKeySummarySchema), pagination: paginationSchema }) },
      errors: ['not_found'],
      async handler({ params, query }) {
        const { items, total } = await listApiKeys(admin, params.id, query);
        return ok({ data: items.map(toApiKeySummary), pagination: pageInfo(query, items.length, total) });
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/admin/v1/api-keys/:id',
      operationId: 'adminRevokeApiKey',
      summary: 'Revoke an API key',
      description: 'The key stops working at once. Revoking a revoked key keeps its first revocation time.',
      tags,
      auth: 'admin',
      params: apiKeyIdParams,
      responses: { 200: z.object({ data: apiKeySummarySchema }) },
      errors: ['not_found'],
      async handler({ params }) {
        return ok({ data: toApiKeySummary(await revokeApiKey(admin, params.id)) });
      },
    }),
  ];
}
