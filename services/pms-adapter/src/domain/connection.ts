// PMS connections: a workspace's link to one account in one PMS, and the sync cursor kept per
// connection. No I/O here.
import { newId } from '@vrp/platform/ids';
import { validationFailed } from '@vrp/platform/errors';
import { PROVIDERS, type Provider } from '@vrp/pms-matrix';

/** The providers come from the capability matrix, the one table of PMSs. */
export const PMS_PROVIDERS = PROVIDERS;
export type PmsProvider = Provider;

import type { ConnectionStatus } from '@vrp/api-model';

export type { ConnectionStatus };

export interface ConnectionRecord {
  id: string;
  workspaceId: string;
  provider: PmsProvider;
  /** The account's id in the PMS. */
  accountId: string;
  status: ConnectionStatus;
  createdAt: Date;
  /** When the last sync from the PMS completed; null before the first one. */
  lastSyncedAt: Date | null;
  /**
   * Position in the PMS's change feed up to which changes have been published on pms.sync.v1
   * ('0' = nothing yet). Advanced in the same transaction as the outbox entries it covers.
   */
  cursor: string;
}

export const INITIAL_CURSOR = '0';

/**
 * What Connect does with an existing connection to the same account: a connected one is reused
 * (Connect is safe to retry), a disconnected one is reconnected and re-imported from the start
 * of the feed (imports are idempotent, so listings already known are updated, not duplicated).
 */
export function connectPlan(existing: ConnectionRecord | null): 'create' | 'reuse' | 'reconnect' {
  if (!existing) return 'create';
  return existing.status === 'connected' ? 'reuse' : 'reconnect';
}

/** Normalizes a provider as typed by a caller ('pms-a', 'PMS-A') to the matrix's name, or null. */
export function providerNamed(value: string): PmsProvider | null {
  const upper = value.trim().toUpperCase();
  return (PMS_PROVIDERS as readonly string[]).includes(upper) ? (upper as PmsProvider) : null;
}

/** A provider a caller must name: 400 naming the field when it is missing or not a PMS of the matrix. */
export function requireProvider(value: string, field = 'provider'): PmsProvider {
  if (!value) throw validationFailed({ [field]: 'is required' });
  const provider = providerNamed(value);
  if (!provider) throw validationFailed({ [field]: `must be one of PMS-A..PMS-G, not '${value}'` });
  return provider;
}

/** A new connection to an account, connected, with nothing synced yet. */
export function newConnection(workspaceId: string, provider: PmsProvider, accountId: string, now: Date): ConnectionRecord {
  return { id: newId('pmc'), workspaceId, provider, accountId, status: 'connected', createdAt: now, lastSyncedAt: null, cursor: INITIAL_CURSOR };
}
