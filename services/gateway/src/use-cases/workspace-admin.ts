// Operator use cases of the gateway: workspaces, their plan limit (owned by the listing
// service, set through it) and API keys. Used by the admin API and by bootstrapWorkspace.
import { storedWorkspaceSettings, type WorkspaceSettings } from '@vrp/api-model';
import type { listing, reservation } from '@vrp/contracts';
import { dataWorkspaceId, KEY_MODES, type KeyMode } from '@vrp/platform/sandbox';
import { DuplicateKeyError, type DocumentStore } from '@vrp/platform/store';
import { notFound, validationFailed } from '@vrp/platform/errors';
import { type AppliedRequests, type RequestKey } from '@vrp/platform/applied-requests';
import { type Upstream } from '@vrp/platform/grpc';
import { mergeRateLimitOverrides, type RateLimitOverrides, type RateLimits } from '../domain/rate-limits';
import { generateApiKey, hashApiKey, parseApiKey, type ApiKeyMode, type ParsedApiKey } from '../domain/api-key';
import { newApiKeyRecord, type ApiKeyRecord } from '../domain/api-key-record';
import { newWorkspace, type Workspace } from '../domain/workspace';
import type { ApiKeyStore } from '../store/api-key-store';
import type { WorkspaceStore } from '../store/workspace-store';

export interface WorkspaceAdminDeps {
  workspaces: WorkspaceStore;
  apiKeys: ApiKeyStore;
  listing: Upstream<listing.ListingServiceClient>;
  /** The owner of the workspace settings the booking rule reads. */
  reservation: Upstream<reservation.ReservationServiceClient>;
  apiKeyPepper: string;
  /** The gateway's own database: a workspace is stored with its Idempotency-Key in one transaction. */
  store: DocumentStore;
  applied: AppliedRequests;
  clock?: () => Date;
}

export interface BootstrapWorkspaceInput {
  name: string;
  activeListingLimit: number;
  rateLimits?: RateLimitOverrides;
  mode: ApiKeyMode;
  /** A fixed key (e.g. the demo key, stable across restarts); generated when absent. */
  key?: string;
}

export interface BootstrapWorkspaceResult {
  workspace: Workspace;
  /** The workspace id the services see for the key's mode (its sandbox for a test key). */
  dataWorkspaceId: string;
  workspaceCreated: boolean;
  apiKey: {
    id: string;
    mode: ApiKeyMode;
    /** Display prefix, e.g. `sk_test_abcd`. */
    prefix: string;
    /** The key, when this call knows it: the pinned one, or a newly generated one. */
    key: string | null;
    created: boolean;
  };
}

/** The time of a change (the deps' clock when tests set one). */
const nowOf = (deps: WorkspaceAdminDeps): Date => deps.clock?.() ?? new Date();

/**
 * The plan is set in the listing service first, then the workspace is stored: if the listing
 * service is down nothing is created, and no workspace is ever visible without its plan. A
 * plan left behind by a failed insert belongs to an id nobody knows, which is harmless.
 */
export async function createWorkspace(
  deps: WorkspaceAdminDeps,
  input: { name: string; activeListingLimit: number; rateLimits?: { [K in keyof RateLimits]?: number | null } },
  key: RequestKey | null = null,
): Promise<Workspace> {
  // A key already applied (the gateway's record of the request lost) answers the first workspace.
  return deps.applied.once(
    key,
    async () => {
      const ws = newWorkspace({ ...input, rateLimits: mergeRateLimitOverrides({}, input.rateLimits ?? {}) }, nowOf(deps));
      await setPlanEverywhere(deps, ws.id, ws.activeListingLimit);
      return deps.store.transaction(async (tx) => {
        const inserted = await deps.workspaces.insert(ws, tx);
        await deps.applied.remember(key, inserted.id, tx);
        return inserted;
      });
    },
    (id) => getWorkspace(deps, id),
  );
}

/** The plan limit of live mode and of the test-mode sandbox (each counts its own listings). */
async function setPlanEverywhere(deps: WorkspaceAdminDeps, workspaceId: string, activeListingLimit: number): Promise<void> {
  for (const mode of KEY_MODES) {
    await deps.listing.call('setWorkspacePlan', { workspaceId: dataWorkspaceId(workspaceId, mode), activeListingLimit });
  }
}

/** Merges the change into the plan's rate limit overrides; `null` restores a default. */
export async function setRateLimits(deps: WorkspaceAdminDeps, id: string, change: { [K in keyof RateLimits]?: number | null }): Promise<Workspace> {
  const ws = await getWorkspace(deps, id);
  const updated = await deps.workspaces.setRateLimits(id, mergeRateLimitOverrides(ws.rateLimits, change), nowOf(deps));
  if (!updated) throw notFound('workspace', id);
  return updated;
}

export async function getWorkspace(deps: WorkspaceAdminDeps, id: string): Promise<Workspace> {
  const ws = await deps.workspaces.get(id);
  if (!ws) throw notFound('workspace', id);
  return ws;
}

export async function workspaceUsage(deps: WorkspaceAdminDeps, workspaceId: string, mode: KeyMode): Promise<listing.WorkspaceUsage | undefined> {
  const { usage } = await deps.listing.call('getWorkspaceUsage', { workspaceId: dataWorkspaceId(workspaceId, mode) });
  return usage;
}

/** Listing service first (the owner of the limit), then the gateway's copy; both are plain sets, so a retry converges. */
export async function setActiveListingLimit(deps: WorkspaceAdminDeps, id: string, activeListingLimit: number): Promise<Workspace> {
  await getWorkspace(deps, id);
  await setPlanEverywhere(deps, id, activeListingLimit);
  const updated = await deps.workspaces.setActiveListingLimit(id, activeListingLimit, nowOf(deps));
  if (!updated) throw notFound('workspace', id);
  return updated;
}

/** The workspace's settings, as the reservation service applies them (live mode's; the sandbox holds the same). */
export async function getSettings(deps: WorkspaceAdminDeps, id: string): Promise<WorkspaceSettings> {
  await getWorkspace(deps, id);
  const { settingsJson } = await deps.reservation.call('getWorkspaceSettings', { workspaceId: dataWorkspaceId(id, 'live') });
  return storedWorkspaceSettings(JSON.parse(settingsJson));
}

/** The same settings for live mode and the test-mode sandbox; plain sets, so a retry converges. */
export async function setSettings(deps: WorkspaceAdminDeps, id: string, settings: WorkspaceSettings): Promise<WorkspaceSettings> {
  await getWorkspace(deps, id);
  let stored = settings;
  for (const mode of KEY_MODES) {
    const { settingsJson } = await deps.reservation.call('setWorkspaceSettings', {
      workspaceId: dataWorkspaceId(id, mode),
      settingsJson: JSON.stringify(settings),
    });
    stored = storedWorkspaceSettings(JSON.parse(settingsJson));
  }
  return stored;
}

/** Issues a key; the returned `key` is the only time it exists outside the caller's hands. */
export async function issueApiKey(
  deps: WorkspaceAdminDeps,
  workspaceId: string,
  input: { mode: ApiKeyMode; name?: string | null },
): Promise<{ record: ApiKeyRecord; key: string }> {
  await getWorkspace(deps, workspaceId);
  const key = generateApiKey(input.mode);
  const record = await insertKey(deps, parseApiKey(key)!, workspaceId, input.name ?? null);
  return { record, key };
}

export async function listApiKeys(
  deps: WorkspaceAdminDeps,
  workspaceId: string,
  page: { limit: number; offset: number },
): Promise<{ items: ApiKeyRecord[]; total: number }> {
  await getWorkspace(deps, workspaceId);
  return deps.apiKeys.page(workspaceId, page.limit, page.offset);
}

export async function revokeApiKey(deps: WorkspaceAdminDeps, id: string): Promise<ApiKeyRecord> {
  const revoked = await deps.apiKeys.revoke(id, nowOf(deps));
  if (!revoked) throw notFound('API key', id);
  return revoked;
}

/**
 * Idempotent setup of a workspace and a key (the embedded stack's demo workspace): an existing
 * workspace with this name is reused and its plan re-sent to the listing service (whose
 * embedded store may have restarted empty); a pinned key is stored once and reused after.
 */
export async function bootstrapWorkspace(deps: WorkspaceAdminDeps, input: BootstrapWorkspaceInput): Promise<BootstrapWorkspaceResult> {
  const pinned = input.key === undefined ? null : parseApiKey(input.key);
  if (input.key !== undefined && !pinned) {
    throw validationFailed({ key: 'must be sk_test_ or sk_live_ followed by 32 to 128 letters or digits' });
  }
  if (pinned && pinned.mode !== input.mode) throw validationFailed({ key: `must be a ${input.mode} key (sk_${input.mode}_...)` });

  let workspace = await deps.workspaces.findByName(input.name);
  const workspaceCreated = workspace === null;
  if (workspace) {
    await setPlanEverywhere(deps, workspace.id, workspace.activeListingLimit);
  } else {
    workspace = await createWorkspace(deps, {
      name: input.name,
      activeListingLimit: input.activeListingLimit,
      ...(input.rateLimits ? { rateLimits: input.rateLimits } : {}),
    });
  }
  const dataId = dataWorkspaceId(workspace.id, input.mode);

  if (pinned) {
    const { record, created } = await ensurePinnedKey(deps, pinned, workspace.id);
    return {
      workspace,
      dataWorkspaceId: dataId,
      workspaceCreated,
      apiKey: { id: record.id, mode: record.mode, prefix: record.prefix, key: pinned.raw, created },
    };
  }
  // Without a pinned key an existing workspace keeps its key: stored keys cannot be shown again.
  const existing = workspaceCreated ? null : await deps.apiKeys.findActive(workspace.id, input.mode);
  if (existing) {
    return {
      workspace,
      dataWorkspaceId: dataId,
      workspaceCreated,
      apiKey: { id: existing.id, mode: existing.mode, prefix: existing.prefix, key: null, created: false },
    };
  }
  const issued = await issueApiKey(deps, workspace.id, { mode: input.mode, name: 'bootstrap' });
  return {
    workspace,
    dataWorkspaceId: dataId,
    workspaceCreated,
    apiKey: { id: issued.record.id, mode: issued.record.mode, prefix: issued.record.prefix, key: issued.key, created: true },
  };
}

async function ensurePinnedKey(deps: WorkspaceAdminDeps, key: ParsedApiKey, workspaceId: string): Promise<{ record: ApiKeyRecord; created: boolean }> {
  const existing = await deps.apiKeys.findByHash(hashApiKey(key.raw, deps.apiKeyPepper));
  if (!existing) return { record: await insertKey(deps, key, workspaceId, 'bootstrap'), created: true };
  if (existing.workspaceId !== workspaceId) throw validationFailed({ key: 'is already bound to another workspace' });
  if (existing.revokedAt) throw validationFailed({ key: 'was revoked; choose another key' });
  return { record: existing, created: false };
}

async function insertKey(deps: WorkspaceAdminDeps, key: ParsedApiKey, workspaceId: string, name: string | null): Promise<ApiKeyRecord> {
  try {
    return await deps.apiKeys.insert(newApiKeyRecord(key, { workspaceId, name }, deps.apiKeyPepper, nowOf(deps)));
  } catch (err) {
    // Only a pinned key can collide (a generated one has ~234 random bits).
    if (err instanceof DuplicateKeyError) throw validationFailed({ key: 'is already in use' });
    throw err;
  }
}
