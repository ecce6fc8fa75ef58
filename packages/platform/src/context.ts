// Request context: the request id (and workspace) of the call being served, carried through
// async work with AsyncLocalStorage so logs and outgoing gRPC metadata pick it up implicitly.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

export interface RequestContext {
  requestId: string;
  workspaceId?: string;
  /**
   * When the gateway's answer to the request is due (epoch ms): every gRPC call the gateway makes
   * for it gets at most the time left (grpc/client.ts). A service's own calls keep their
   * deadlines: work it started goes on after the gateway answered (its outcome is recorded).
   */
  deadline?: number;
  /**
   * A preflight (`?dry_run=true`): the request runs its checks and decisions as the real write
   * would, and nothing it writes is kept (store/dry-run.ts), relayed to a PMS or published.
   * Carried across gRPC in the `x-dry-run` metadata.
   */
  dryRun?: boolean;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` with `ctx` as the request context. */
export function runWithContext<T>(ctx: RequestContext, fn: () => T): T {
  return storage.run(ctx, fn);
}

export function currentContext(): RequestContext | undefined {
  return storage.getStore();
}

/** True while serving a dry run (see RequestContext.dryRun). */
export function isDryRun(): boolean {
  return storage.getStore()?.dryRun === true;
}

/** Metadata key that carries the dry-run flag across gRPC (value `1`). */
export const DRY_RUN_METADATA = 'x-dry-run';

/** Metadata key that carries the request id across gRPC. */
export const REQUEST_ID_METADATA = 'x-request-id';

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{8,128}$/;

/** A caller's request id is kept when well-formed; otherwise a new one is made. */
export function acceptOrCreateRequestId(candidate: unknown): string {
  if (typeof candidate === 'string' && REQUEST_ID_PATTERN.test(candidate)) return candidate;
  return `req_${randomUUID().replace(/-/g, '')}`;
}
