// Workspace rules of the gateway: a workspace is the tenant every API key is bound to. Its plan
// limit is owned by the listing service; the gateway keeps the value it set so the admin API
// can show it. Pure: no I/O.
import { newId } from '@vrp/platform/ids';
import type { RateLimitOverrides } from './rate-limits';

export const WORKSPACE_NAME_MAX_LENGTH = 100;
export const ACTIVE_LISTING_LIMIT_MAX = 100_000;

export interface Workspace {
  id: string;
  name: string;
  activeListingLimit: number;
  /** The plan's rate and concurrency limits an operator set; the rest are the defaults. */
  rateLimits: RateLimitOverrides;
  createdAt: Date;
  updatedAt: Date;
}

export function newWorkspaceId(): string {
  return newId('ws');
}

/** Display form of a name: trimmed, inner whitespace collapsed. */
export function normalizeWorkspaceName(name: string): string {
  return name.trim().replace(/\s+/g, ' ');
}

/** Lookup form of a name: names that differ only in case or spacing are the same workspace. */
export function workspaceNameKey(name: string): string {
  return normalizeWorkspaceName(name).toLowerCase();
}

export function newWorkspace(input: { name: string; activeListingLimit: number; rateLimits?: RateLimitOverrides }, now: Date): Workspace {
  return {
    id: newWorkspaceId(),
    name: normalizeWorkspaceName(input.name),
    activeListingLimit: input.activeListingLimit,
    rateLimits: { ...input.rateLimits },
    createdAt: now,
    updatedAt: now,
  };
}
