// The operator API of a workspace's settings (/admin/v1/workspaces/{id}/settings): the rules a
// workspace turns on, described once by the WorkspaceSettings schema of @vrp/api-model.
import { z } from 'zod';
import { idParam, workspaceSettingsSchema } from '@vrp/api-model';
import { defineRoute, ok, type Route } from '../route';
import { getSettings, setSettings, type WorkspaceAdminDeps } from '../../use-cases/workspace-admin';

const workspaceIdParams = z.strictObject({ id: idParam('Workspace id (ws_...).') });
const tags = ['Admin'];

export function adminSettingsRoutes(admin: WorkspaceAdminDeps): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/admin/v1/workspaces/:id/settings',
      operationId: 'adminGetWorkspaceSettings',
      summary: "Get a workspace's settings",
      description: 'Every setting, with its default where none was set (docs/reservations.md describes what each one does).',
      tags,
      auth: 'admin',
      params: workspaceIdParams,
      responses: { 200: z.object({ data: workspaceSettingsSchema }) },
      errors: ['not_found'],
      async handler({ params }) {
        return ok({ data: await getSettings(admin, params.id) });
      },
    }),
    defineRoute({
      method: 'put',
      path: '/admin/v1/workspaces/:id/settings',
      operationId: 'adminSetWorkspaceSettings',
      summary: "Set a workspace's settings",
      description:
        'Replaces the settings of the workspace, for live mode and its test-mode sandbox alike; a setting left out takes its default. They apply to the next write. Harmless to repeat.',
      tags,
      auth: 'admin',
      params: workspaceIdParams,
      body: workspaceSettingsSchema,
      responses: { 200: z.object({ data: workspaceSettingsSchema }) },
      errors: ['not_found'],
      async handler({ params, body }) {
        return ok({ data: await setSettings(admin, params.id, body) });
      },
    }),
  ];
}
