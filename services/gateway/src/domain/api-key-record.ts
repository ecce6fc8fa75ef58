// An issued API key as the gateway keeps it: never the key itself, only its hash and a short
// display prefix. A key is bound to exactly one workspace and one mode.
import { dataWorkspaceId } from '@vrp/platform/sandbox';
import { newId } from '@vrp/platform/ids';
import { displayPrefix, hashApiKey, type ApiKeyMode, type ParsedApiKey } from './api-key';

export interface ApiKeyRecord {
  id: string;
  workspaceId: string;
  mode: ApiKeyMode;
  name: string | null;
  /** `sk_test_abcd`: enough to recognise a key, useless to use it. */
  prefix: string;
  hash: string;
  createdAt: Date;
  revokedAt: Date | null;
}

/** Who is calling, once a key has been verified. */
export interface ApiKeyPrincipal {
  /**
   * The data workspace the services see: the workspace itself for a live key, its sandbox
   * (`<id>_test`) for a test key (see packages/platform/src/sandbox.ts).
   */
  workspaceId: string;
  /** The workspace the key was issued for (X-Workspace-Id, plan, admin API). */
  publicWorkspaceId: string;
  keyId: string;
  mode: ApiKeyMode;
}

export function newApiKeyRecord(key: ParsedApiKey, input: { workspaceId: string; name?: string | null }, pepper: string, now: Date): ApiKeyRecord {
  return {
    id: newId('key'),
    workspaceId: input.workspaceId,
    mode: key.mode,
    name: input.name ?? null,
    prefix: displayPrefix(key),
    hash: hashApiKey(key.raw, pepper),
    createdAt: now,
    revokedAt: null,
  };
}

/** A key authenticates only while it is not revoked and its mode matches the presented prefix. */
export function principalOf(record: ApiKeyRecord, presented: ParsedApiKey): ApiKeyPrincipal | null {
  if (record.revokedAt !== null || record.mode !== presented.mode) return null;
  return { workspaceId: dataWorkspaceId(record.workspaceId, record.mode), publicWorkspaceId: record.workspaceId, keyId: record.id, mode: record.mode };
}
