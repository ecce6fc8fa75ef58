// A workspace's settings: read, and replaced through the admin API (the gateway sets the same
// settings for live mode and its test-mode sandbox). Checked against the WorkspaceSettings
// schema of @vrp/api-model here too: the request's JSON is input like any other.
import { workspaceSettingsSchema, type WorkspaceSettings } from '@vrp/api-model';
import { validationFailed } from '@vrp/platform/errors';
import type { ReservationDeps } from './deps';

export function getWorkspaceSettings(deps: Pick<ReservationDeps, 'settings'>, workspaceId: string): Promise<WorkspaceSettings> {
  return deps.settings.of(workspaceId);
}

/** Replaces the settings with `raw` (the JSON value sent); a setting left out takes its default. 400 naming every bad setting. */
export function setWorkspaceSettings(deps: Pick<ReservationDeps, 'settings' | 'clock'>, workspaceId: string, raw: unknown): Promise<WorkspaceSettings> {
  const parsed = workspaceSettingsSchema.safeParse(raw);
  if (!parsed.success) {
    const fields: Record<string, string> = {};
    for (const issue of parsed.error.issues) {
      const names = issue.code === 'unrecognized_keys' ? issue.keys : [issue.path.join('.') || 'settings'];
      for (const name of names) fields[name] = issue.code === 'unrecognized_keys' ? 'is not a workspace setting' : issue.message;
    }
    throw validationFailed(fields);
  }
  return deps.settings.replace(workspaceId, parsed.data, deps.clock());
}
