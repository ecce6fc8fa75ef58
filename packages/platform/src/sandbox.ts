// Test mode as a sandbox. Every workspace has two data workspaces: its live one, whose id is
// the workspace id itself, and its test one, `<workspace id>_test`. The gateway maps the mode
// of the calling API key to the data workspace the services see, so the services' tenant
// isolation (every record and every query scoped by workspace id) keeps test data and live
// data apart everywhere: listings, reservations, guests, PMS connections, plan usage, webhook
// subscriptions and the events they deliver. Workspace ids are `ws_` + base58, which has no
// underscore, so the suffix can never be part of a live id.

export const KEY_MODES = ['test', 'live'] as const;
export type KeyMode = (typeof KEY_MODES)[number];

export const SANDBOX_SUFFIX = '_test';

/** The workspace id the services see for a workspace's data in a mode. */
export function dataWorkspaceId(workspaceId: string, mode: KeyMode): string {
  return mode === 'test' ? `${workspaceId}${SANDBOX_SUFFIX}` : workspaceId;
}

/** The workspace and mode a data workspace id belongs to (the inverse of dataWorkspaceId). */
export function workspaceOfData(dataId: string): { workspaceId: string; mode: KeyMode } {
  return dataId.endsWith(SANDBOX_SUFFIX) ? { workspaceId: dataId.slice(0, -SANDBOX_SUFFIX.length), mode: 'test' } : { workspaceId: dataId, mode: 'live' };
}
