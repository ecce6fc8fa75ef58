// Proto messages of the upstream services -> the API's JSON. The one place where wire names
// become API names, so every endpoint shows a listing the same way.
import type { z } from 'zod';
import type { common, listing as pb } from '@vrp/contracts';
import type { PageInfo } from '@vrp/platform/paging';
import type { Workspace } from '../domain/workspace';
import type { ApiKeyRecord } from '../domain/api-key-record';
import { maskedKey } from '../domain/api-key';
import type { apiKeySummarySchema, workspaceSchema, workspaceUsageSchema } from './schemas-admin';

// Resources render once, in @vrp/api-model (webhook payloads use the same functions); the
// gateway's modules keep importing them from here.
export { toApiCapabilities, toApiListing, toApiListingWithCapabilities, toInactiveListingRow, toListingRow } from '@vrp/api-model';

/** The upstream's page as served; the request's window when an upstream sent none. */
export function toPagination(page: common.PageInfo | undefined, requested: { limit: number; offset: number }, returned: number): PageInfo {
  if (page) return { total: page.total, limit: page.limit, offset: page.offset, hasMore: page.hasMore };
  return { total: requested.offset + returned, limit: requested.limit, offset: requested.offset, hasMore: false };
}

export function toApiUsage(u: pb.WorkspaceUsage | undefined, fallbackLimit: number): z.input<typeof workspaceUsageSchema> {
  return {
    activeListings: u?.activeListings ?? 0,
    inactiveListings: u?.inactiveListings ?? 0,
    billableListings: u?.billableListings ?? 0,
    activeListingLimit: u?.activeListingLimit ?? fallbackLimit,
  };
}

export function toApiWorkspace(ws: Workspace): z.input<typeof workspaceSchema> {
  return { id: ws.id, name: ws.name, activeListingLimit: ws.activeListingLimit, createdAt: ws.createdAt.toISOString(), updatedAt: ws.updatedAt.toISOString() };
}

export function toApiKeySummary(k: ApiKeyRecord): z.input<typeof apiKeySummarySchema> {
  return {
    id: k.id,
    workspaceId: k.workspaceId,
    name: k.name,
    mode: k.mode,
    prefix: maskedKey(k.prefix),
    createdAt: k.createdAt.toISOString(),
    revokedAt: k.revokedAt ? k.revokedAt.toISOString() : null,
  };
}
