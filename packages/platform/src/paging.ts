// Offset pagination and the workspace guard, shared by every service that serves a collection,
// so that limits, defaults and the page envelope mean the same thing on every endpoint.
import { validationFailed } from './errors/app-error';
import type { Collection, Doc, Filter, Sort, Tx } from './store/port';

export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 200;
/** Largest `offset` a collection accepts (the wire field is an int32; deeper pages are refused, 400). */
export const MAX_PAGE_OFFSET = 1_000_000;

/** A resolved page window (limit within 1..max, offset >= 0). */
export interface PageWindow {
  limit: number;
  offset: number;
}

/** The page envelope of every list response (vrp.common.v1.PageInfo). */
export interface PageInfo {
  total: number;
  limit: number;
  offset: number;
  hasMore: boolean;
}

/**
 * Resolves the proto PageRequest. proto3 has no "unset" for int32, so limit 0 means "the
 * default"; out-of-range values are clamped rather than refused, the same as the listing
 * service, because the gateway validates user input and a service should not fail a page read
 * over a window it can serve.
 */
export function pageWindow(page: { limit: number; offset: number } | undefined, defaults: { limit?: number; max?: number } = {}): PageWindow {
  const max = defaults.max ?? MAX_PAGE_LIMIT;
  const limit = Math.min(Math.max(page?.limit || (defaults.limit ?? DEFAULT_PAGE_LIMIT), 1), max);
  const offset = Math.max(page?.offset ?? 0, 0);
  return { limit, offset };
}

export function pageInfo(window: PageWindow, returned: number, total: number): PageInfo {
  return { total, limit: window.limit, offset: window.offset, hasMore: window.offset + returned < total };
}

/**
 * The answer of a List RPC: resolves the request's PageRequest, reads that window through
 * `load`, and returns its items encoded under the response field `key` with the page envelope.
 */
export async function listResponse<K extends string, T, P>(
  key: K,
  page: { limit: number; offset: number } | undefined,
  load: (window: PageWindow) => Promise<{ items: T[]; total: number }>,
  encode: (item: T) => P,
): Promise<Record<K, P[]> & { page: PageInfo }> {
  const window = pageWindow(page);
  const { items, total } = await load(window);
  return { [key]: items.map(encode), page: pageInfo(window, items.length, total) } as Record<K, P[]> & { page: PageInfo };
}

/**
 * One page of a collection plus the total matching `filter`. `sort` must end in a unique field
 * (usually `_id`) so that consecutive pages neither repeat nor skip documents.
 */
export async function findPage<T extends Doc>(
  collection: Collection<T>,
  filter: Filter,
  sort: Sort,
  window: PageWindow,
  tx?: Tx,
): Promise<{ docs: T[]; total: number }> {
  const [docs, total] = await Promise.all([
    collection.find(filter, { sort, skip: window.offset, limit: window.limit, tx }),
    collection.countDocuments(filter, { tx }),
  ]);
  return { docs, total };
}

/**
 * Every service query is tenant-scoped; a request without a workspace is a caller bug and is
 * refused before any query runs (an empty workspaceId would otherwise just match nothing).
 */
export function requireWorkspace(workspaceId: string): void {
  if (!workspaceId) throw validationFailed({ workspaceId: 'is required' });
}

/** Single-record reads: an empty id is a validation error, not a not_found. */
export function requireId(id: string, field = 'id'): void {
  if (!id) throw validationFailed({ [field]: 'is required' });
}
