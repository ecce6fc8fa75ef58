// RelayWrite: one write of the capability matrix performed in a workspace's PMS account. Refused
// from the matrix alone before anything is sent (docs/api.md, "Writes that a PMS cannot
// perform"); the request the PMS API needs is built by domain/relay.ts, and sent by the
// connector of that PMS.
import { AppError, validationFailed } from '@vrp/platform/errors';
import { isDryRun } from '@vrp/platform/context';
import { assertSupported } from '@vrp/pms-matrix';
import { requireProvider, type ConnectionRecord, type PmsProvider } from '../domain/connection';
import { isWrite, pmsRequestFor, RelayInputError } from '../domain/relay';
import type { PmsAdapterDeps } from './deps';

export type RelayDeps = Pick<PmsAdapterDeps, 'connections' | 'connectors'>;

export interface RelayWriteInput {
  provider: string;
  operation: string;
  listingExternalId: string;
  entityExternalId: string;
  /** The write's body as JSON; empty = `{}`. */
  payloadJson: string;
  idempotencyKey: string;
}

export async function relayWrite(deps: RelayDeps, workspaceId: string, input: RelayWriteInput): Promise<{ entityExternalId: string; result: unknown }> {
  const provider = requireProvider(input.provider);
  if (!isWrite(input.operation)) throw validationFailed({ operation: `'${input.operation}' is not a write of the capability matrix` });
  // Decided from the matrix alone, before anything is sent (docs/api.md, "Writes that a PMS cannot perform").
  assertSupported(provider, input.operation);
  let payload: unknown = {};
  if (input.payloadJson) {
    try {
      payload = JSON.parse(input.payloadJson);
    } catch {
      throw validationFailed({ payloadJson: 'is not valid JSON' });
    }
  }
  let request;
  try {
    request = pmsRequestFor({
      operation: input.operation,
      listingExternalId: input.listingExternalId,
      entityExternalId: input.entityExternalId,
      payload,
      idempotencyKey: input.idempotencyKey,
    });
  } catch (err) {
    if (err instanceof RelayInputError) throw validationFailed(err.fields);
    throw err;
  }
  const account = await accountFor(deps, workspaceId, provider, input.listingExternalId);
  // A dry run stops here, every check above passed: the PMS receives nothing.
  if (isDryRun()) return { entityExternalId: input.entityExternalId, result: null };
  const answer = await deps.connectors.of(provider).write(account.accountId, request);
  const id = (answer as { id?: unknown } | null)?.id;
  return { entityExternalId: typeof id === 'string' && id ? id : input.entityExternalId, result: answer ?? null };
}

/** The connected account that manages a listing (the one that imported it, else the oldest). */
async function accountFor(deps: RelayDeps, workspaceId: string, provider: PmsProvider, listingExternalId: string): Promise<ConnectionRecord> {
  const connected = await deps.connections.connectedOf(workspaceId, provider);
  if (connected.length > 1 && listingExternalId) {
    const owners = new Set(await deps.connections.connectionIdsOfListing(workspaceId, provider, listingExternalId));
    const owner = connected.find((c) => owners.has(c.id));
    if (owner) return owner;
  }
  const first = connected[0];
  if (!first) {
    throw new AppError(
      'conflict',
      `This workspace has no connected ${provider} account; nothing was sent.`,
      {},
      `Connect the ${provider} account (POST /admin/v1/workspaces/{id}/connections), then retry.`,
    );
  }
  return first;
}
