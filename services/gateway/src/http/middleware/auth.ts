// Authentication of a route: an API key (`Bearer sk_test_…|sk_live_…`, optionally with
// X-Workspace-Id naming the key's workspace), the operator token of the admin API, or none.
// Verified keys are cached briefly (store/api-key-store.ts); revoking a key evicts it, so a
// revocation takes effect on the next request.
import type { Request, RequestHandler } from 'express';
import { AppError } from '@vrp/platform/errors';
import { adminTokenMatches } from '../../domain/admin-token';
import { hashApiKey, hashesMatch, parseApiKey } from '../../domain/api-key';
import { principalOf } from '../../domain/api-key-record';
import type { ApiKeyStore } from '../../store/api-key-store';
import { requestState } from '../request-state';
import type { AuthKind } from '../route';

/** The idempotency scope of admin API requests (no workspace: the operator's). */
export const ADMIN_SCOPE = 'admin';

export interface AuthDeps {
  apiKeys: ApiKeyStore;
  apiKeyPepper: string;
  adminToken: string;
}

/** The credentials of `Authorization: Bearer <token>`; undefined when no header was sent. */
function bearerToken(req: Request): { token: string | null } | undefined {
  const header = req.get('authorization');
  if (header === undefined || header.trim() === '') return undefined;
  const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(header);
  return { token: match?.[1] ?? null };
}

async function authenticateApiKey(req: Request, deps: AuthDeps): Promise<void> {
  const bearer = bearerToken(req);
  if (!bearer) throw new AppError('authentication_required');
  if (bearer.token === null) throw new AppError('invalid_api_key', 'The Authorization header must have the form `Bearer <API_KEY>`.');
  const key = parseApiKey(bearer.token);
  if (!key) throw new AppError('invalid_api_key', 'The API key is malformed: keys start with sk_test_ or sk_live_ followed by the secret.');

  const hash = hashApiKey(key.raw, deps.apiKeyPepper);
  const record = await deps.apiKeys.findUsableByHash(hash);
  // The lookup matched by index; the constant-time re-check keeps a store with looser string
  // equality (a collation) from ever authenticating a near-miss.
  const verified = record !== null && hashesMatch(hash, record.hash);
  const principal = verified ? principalOf(record, key) : null;
  if (!principal) throw new AppError('invalid_api_key', 'The API key is unknown or revoked.');

  const workspaceHeader = req.get('x-workspace-id');
  if (workspaceHeader !== undefined && workspaceHeader !== principal.publicWorkspaceId) {
    throw new AppError('workspace_mismatch');
  }
  const state = requestState(req);
  state.principal = principal;
  state.scope = principal.workspaceId;
  state.context.workspaceId = principal.workspaceId;
}

function authenticateAdmin(req: Request, deps: AuthDeps): void {
  const bearer = bearerToken(req);
  if (!bearer?.token || !adminTokenMatches(bearer.token, deps.adminToken)) throw new AppError('admin_token_invalid');
  requestState(req).scope = ADMIN_SCOPE;
}

export function authenticate(kind: AuthKind, deps: AuthDeps): RequestHandler {
  switch (kind) {
    case 'api_key':
      return async (req, _res, next) => {
        await authenticateApiKey(req, deps);
        next();
      };
    case 'admin':
      return (req, _res, next) => {
        authenticateAdmin(req, deps);
        next();
      };
    case 'none':
      return (_req, _res, next) => next();
  }
}
