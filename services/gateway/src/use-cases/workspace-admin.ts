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
  /** The reservation service, which stores and applies a workspace's settings. */
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

export class WorkspaceAdmin {
  private readonly clock: () => Date;

  constructor(private readonly deps: WorkspaceAdminDeps) {
    this.clock = deps.clock ?? (() => new Date());
  }

  /**
   * The plan is set in the listing service first, then the workspace is stored: if the listing
   * service is down nothing is created, and no workspace is ever visible without its plan. A
   * plan left behind by a failed insert belongs to an id nobody knows, which is harmless.
   */
  async createWorkspace(
    input: { name: string; activeListingLimit: number; rateLimits?: { [K in keyof RateLimits]?: number | null } },
    key: RequestKey | null = null,
  ): Promise<Workspace> {
    // A key already applied (the gateway's record of the request lost) answers the first workspace.
    return this.deps.applied.once(
      key,
      async () => {
        const ws = newWorkspace({ ...input, rateLimits: mergeRateLimitOverrides({}, input.rateLimits ?? {}) }, this.clock());
        await this.setPlanEverywhere(ws.id, ws.activeListingLimit);
        return this.deps.store.transaction(async (tx) => {
          const inserted = await this.deps.workspaces.insert(ws, tx);
          await this.deps.applied.remember(key, inserted.id, tx);
          return inserted;
        });
      },
      (id) => this.getWorkspace(id),
    );
  }

  /** The plan limit of live mode and of the test-mode sandbox (each counts its own listings). */
  private async setPlanEverywhere(workspaceId: string, activeListingLimit: number): Promise<void> {
    for (const mode of KEY_MODES) {
      await this.deps.listing.call('setWorkspacePlan', { workspaceId: dataWorkspaceId(workspaceId, mode), activeListingLimit });
    }
  }

  /** Merges the change into the plan's rate limit overrides; `null` restores a default. */
  async setRateLimits(id: string, change: { [K in keyof RateLimits]?: number | null }): Promise<Workspace> {
    const ws = await this.getWorkspace(id);
    const updated = await this.deps.workspaces.setRateLimits(id, mergeRateLimitOverrides(ws.rateLimits, change), this.clock());
    if (!updated) throw notFound('workspace', id);
    return updated;
  }

  async getWorkspace(id: string): Promise<Workspace> {
    const ws = await this.deps.workspaces.get(id);
    if (!ws) throw notFound('workspace', id);
    return ws;
  }

  async usage(workspaceId: string, mode: KeyMode): Promise<listing.WorkspaceUsage | undefined> {
    const { usage } = await this.deps.listing.call('getWorkspaceUsage', { workspaceId: dataWorkspaceId(workspaceId, mode) });
    return usage;
  }

  /** Listing service first (the owner of the limit), then the gateway's copy; both are plain sets, so a retry converges. */
  async setActiveListingLimit(id: string, activeListingLimit: number): Promise<Workspace> {
    await this.getWorkspace(id);
    await this.setPlanEverywhere(id, activeListingLimit);
    const updated = await this.deps.workspaces.setActiveListingLimit(id, activeListingLimit, this.clock());
    if (!updated) throw notFound('workspace', id);
    return updated;
  }

  /** The workspace's settings, as the reservation service applies them (live mode's; the sandbox holds the same). */
  async getSettings(id: string): Promise<WorkspaceSettings> {
    await this.getWorkspace(id);
    const { settingsJson } = await this.deps.reservation.call('getWorkspaceSettings', { workspaceId: dataWorkspaceId(id, 'live') });
    return storedWorkspaceSettings(JSON.parse(settingsJson));
  }

  /** The same settings for live mode and the test-mode sandbox; plain sets, so a retry converges. */
  async setSettings(id: string, settings: WorkspaceSettings): Promise<WorkspaceSettings> {
    await this.getWorkspace(id);
    let stored = settings;
    for (const mode of KEY_MODES) {
      const { settingsJson } = await this.deps.reservation.call('setWorkspaceSettings', {
        workspaceId: dataWorkspaceId(id, mode),
        settingsJson: JSON.stringify(settings),
      });
      stored = storedWorkspaceSettings(JSON.parse(settingsJson));
    }
    return stored;
  }

  /** Issues a key; the returned `key` is the only time it exists outside the caller's hands. */
  async issueApiKey(workspaceId: string, input: { mode: ApiKeyMode; name?: string | null }): Promise<{ record: ApiKeyRecord; key: string }> {
    await this.getWorkspace(workspaceId);
    const key = generateApiKey(input.mode);
    const record = await this.insertKey(parseApiKey(key)!, workspaceId, input.name ?? null);
    return { record, key };
  }

  async listApiKeys(workspaceId: string, page: { limit: number; offset: number }): Promise<{ items: ApiKeyRecord[]; total: number }> {
    await this.getWorkspace(workspaceId);
    return this.deps.apiKeys.page(workspaceId, page.limit, page.offset);
  }

  async revokeApiKey(id: string): Promise<ApiKeyRecord> {
    const revoked = await this.deps.apiKeys.revoke(id, this.clock());
    if (!revoked) throw notFound('API key', id);
    return revoked;
  }

  /**
   * Idempotent setup of a workspace and a key (the embedded stack's demo workspace): an existing
   * workspace with this name is reused and its plan re-sent to the listing service (whose
   * embedded store may have restarted empty); a pinned key is stored once and reused after.
   */
  async bootstrap(input: BootstrapWorkspaceInput): Promise<BootstrapWorkspaceResult> {
    const pinned = input.key === undefined ? null : parseApiKey(input.key);
    if (input.key !== undefined && !pinned) {
      throw validationFailed({ key: 'must be sk_test_ or sk_live_ followed by 32 to 128 letters or digits' });
    }
    if (pinned && pinned.mode !== input.mode) throw validationFailed({ key: `must be a ${input.mode} key (sk_${input.mode}_...)` });

    let workspace = await this.deps.workspaces.findByName(input.name);
    const workspaceCreated = workspace === null;
    if (workspace) {
      await this.setPlanEverywhere(workspace.id, workspace.activeListingLimit);
    } else {
      workspace = await this.createWorkspace({
        name: input.name,
        activeListingLimit: input.activeListingLimit,
        ...(input.rateLimits ? { rateLimits: input.rateLimits } : {}),
      });
    }
    const dataId = dataWorkspaceId(workspace.id, input.mode);

    if (pinned) {
      const { record, created } = await this.ensurePinnedKey(pinned, workspace.id);
      return {
        workspace,
        dataWorkspaceId: dataId,
        workspaceCreated,
        apiKey: { id: record.id, mode: record.mode, prefix: record.prefix, key: pinned.raw, created },
      };
    }
    // Without a pinned key an existing workspace keeps its key: stored keys cannot be shown again.
    const existing = workspaceCreated ? null : await this.deps.apiKeys.findActive(workspace.id, input.mode);
    if (existing) {
      return {
        workspace,
        dataWorkspaceId: dataId,
        workspaceCreated,
        apiKey: { id: existing.id, mode: existing.mode, prefix: existing.prefix, key: null, created: false },
      };
    }
    const issued = await this.issueApiKey(workspace.id, { mode: input.mode, name: 'bootstrap' });
    return {
      workspace,
      dataWorkspaceId: dataId,
      workspaceCreated,
      apiKey: { id: issued.record.id, mode: issued.record.mode, prefix: issued.record.prefix, key: issued.key, created: true },
    };
  }

  private async ensurePinnedKey(key: ParsedApiKey, workspaceId: string): Promise<{ record: ApiKeyRecord; created: boolean }> {
    const existing = await this.deps.apiKeys.findByHash(hashApiKey(key.raw, this.deps.apiKeyPepper));
    if (!existing) return { record: await this.insertKey(key, workspaceId, 'bootstrap'), created: true };
    if (existing.workspaceId !== workspaceId) throw validationFailed({ key: 'is already bound to another workspace' });
    if (existing.revokedAt) throw validationFailed({ key: 'was revoked; choose another key' });
    return { record: existing, created: false };
  }

  private async insertKey(key: ParsedApiKey, workspaceId: string, name: string | null): Promise<ApiKeyRecord> {
    try {
      return await this.deps.apiKeys.insert(newApiKeyRecord(key, { workspaceId, name }, this.deps.apiKeyPepper, this.clock()));
    } catch (err) {
      // Only a pinned key can collide (a generated one has ~234 random bits).
      if (err instanceof DuplicateKeyError) throw validationFailed({ key: 'is already in use' });
      throw err;
    }
  }
}
