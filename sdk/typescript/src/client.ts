// The client: openapi-fetch over the generated types (./generated/api.ts) with the transport of
// ./transport.ts, answers unwrapped to their JSON body and errors thrown as typed errors.
import createClient, { type Client, type MaybeOptionalInit } from 'openapi-fetch';
import { errorFromResponse, PreconditionFailedError } from './errors';
import type { components, paths } from './generated/api';
import { DEFAULT_RETRY_POLICY, retryingFetch, type RetryPolicy } from './transport';
import { verify } from './webhooks';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
/** The paths having an operation for `M`. */
export type PathsWith<M extends Method> = { [P in keyof paths]: paths[P][M] extends { responses: unknown } ? P : never }[keyof paths];
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
/** The JSON body of an operation's success (200, 201 or 202). */
export type Success<Op> = Op extends { responses: infer R } ? JsonOf<R[Extract<keyof R, 200 | 201 | 202>]> : never;
type OperationOf<P extends keyof paths, M extends Method> = paths[P][M];
type InitOf<P extends keyof paths, M extends Method> = MaybeOptionalInit<paths[P], M>;
/** An init argument that may be left out when the operation needs nothing (no path parameter, no required body). */
type InitArg<I> = undefined extends I ? [init?: I] : [init: I];

/** Paths of a GET answering `{ data: [...], pagination: { offset, ... } }`: every offset-paginated collection. */
export type CollectionPath = {
  [P in PathsWith<'get'>]: Success<OperationOf<P, 'get'>> extends { data: unknown[]; pagination: { offset: number } } ? P : never;
}[PathsWith<'get'>];
/** An event of the Events API: the object its webhook deliveries carry. */
export type ApiEvent = components['schemas']['Event'];
/** Filters and cursors of `events.list` (GET /v1/events). */
export type EventListQuery = NonNullable<paths['/v1/events']['get']['parameters']['query']>;
/** `dryRun: true` on a write: `?dry_run=true`, the answer of the write without the write (docs/api.md, "Dry runs"). */
export interface DryRunOption {
  dryRun?: boolean;
}
/** A write's init with `dryRun`; still optional when the operation needs nothing. */
type WriteInit<I> = undefined extends I ? (NonNullable<I> & DryRunOption) | undefined : I & DryRunOption;
/** One item of a collection. */
export type ItemOf<P extends CollectionPath> = Success<OperationOf<P, 'get'>> extends { data: (infer T)[] } ? T : never;
/** Paths read with GET and changed with PATCH. */
export type UpdatablePath = Extract<PathsWith<'get'>, PathsWith<'patch'>>;
type RecordOf<P extends UpdatablePath> = Success<OperationOf<P, 'get'>> extends { data: infer T } ? T : never;
type PatchBodyOf<P extends UpdatablePath> = OperationOf<P, 'patch'> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

export interface VrpOptions {
  /** An API key: sk_test_... or sk_live_.... */
  apiKey: string;
  /** Where the API is, e.g. http://localhost:8080 (no /v1). */
  baseUrl: string;
  /** Sent as X-Workspace-Id; the API refuses a key of another workspace (403 workspace_mismatch). */
  workspaceId?: string;
  retry?: Partial<RetryPolicy>;
  fetch?: typeof fetch;
  /** Waits between retries; default setTimeout. */
  sleep?: (ms: number) => Promise<void>;
}

type RawResult = { data?: unknown; error?: unknown; response: Response };

export class Vrp {
  /** The openapi-fetch client underneath (same auth, keys and retries), for what the methods here do not cover. */
  readonly raw: Client<paths>;
  readonly webhooks = { verify };
  /**
   * The Events API: `list(query)` is an async iterator over every event matching `query`, newest
   * first, page after page (`starting_after` the last id of each page; with `ending_before`, towards
   * newer events); `retrieve(id)` answers one event.
   */
  readonly events = {
    list: (query: EventListQuery = {}): AsyncGenerator<ApiEvent, void, undefined> => this.eventPages(query),
    retrieve: async (id: string): Promise<ApiEvent> => (await this.send<{ data: ApiEvent }>('GET', '/v1/events/{id}', { params: { path: { id } } })).data,
  };

  constructor(opts: VrpOptions) {
    const fetchImpl = opts.fetch ?? globalThis.fetch;
    this.raw = createClient<paths>({
      baseUrl: opts.baseUrl.replace(/\/+$/, ''),
      headers: { Authorization: `Bearer ${opts.apiKey}`, ...(opts.workspaceId ? { 'X-Workspace-Id': opts.workspaceId } : {}) },
      fetch: retryingFetch({
        retry: { ...DEFAULT_RETRY_POLICY, ...opts.retry },
        fetch: (input, init) => fetchImpl(input, init),
        sleep: opts.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
        random: Math.random,
      }),
    });
  }

  get<P extends PathsWith<'get'>>(path: P, ...init: InitArg<InitOf<P, 'get'>>): Promise<Success<OperationOf<P, 'get'>>> {
    return this.send('GET', path, init[0]);
  }

  post<P extends PathsWith<'post'>>(path: P, ...init: InitArg<WriteInit<InitOf<P, 'post'>>>): Promise<Success<OperationOf<P, 'post'>>> {
    return this.send('POST', path, withDryRun(init[0]));
  }

  put<P extends PathsWith<'put'>>(path: P, ...init: InitArg<WriteInit<InitOf<P, 'put'>>>): Promise<Success<OperationOf<P, 'put'>>> {
    return this.send('PUT', path, withDryRun(init[0]));
  }

  patch<P extends PathsWith<'patch'>>(path: P, ...init: InitArg<WriteInit<InitOf<P, 'patch'>>>): Promise<Success<OperationOf<P, 'patch'>>> {
    return this.send('PATCH', path, withDryRun(init[0]));
  }

  delete<P extends PathsWith<'delete'>>(path: P, ...init: InitArg<WriteInit<InitOf<P, 'delete'>>>): Promise<Success<OperationOf<P, 'delete'>>> {
    return this.send('DELETE', path, withDryRun(init[0]));
  }

  /**
   * Every item of a collection, page after page (`offset` advanced by what each page held) until
   * `pagination.hasMore` is false. Filters and `limit` (the page size) go in `init` as for `get`.
   */
  async *paginate<P extends CollectionPath>(path: P, ...init: InitArg<InitOf<P, 'get'>>): AsyncGenerator<ItemOf<P>, void, undefined> {
    const base = (init[0] ?? {}) as { params?: { query?: Record<string, unknown> } };
    let offset = Number(base.params?.query?.offset ?? 0);
    for (;;) {
      const page = (await this.send('GET', path, { ...base, params: { ...base.params, query: { ...base.params?.query, offset } } })) as {
        data: ItemOf<P>[];
        pagination: { hasMore: boolean };
      };
      for (const item of page.data) yield item;
      if (!page.pagination.hasMore || page.data.length === 0) return;
      offset += page.data.length;
    }
  }

  /**
   * Read-modify-write: reads the record, lets `change` compute the PATCH body from it and sends
   * it with `If-Match: <the ETag read>`; when someone changed the record in between (412
   * precondition_failed) it reads and computes again, up to `attempts` times. `change` returning
   * null leaves the record as it is and answers it.
   */
  async update<P extends UpdatablePath>(
    path: P,
    init: { params: { path: Record<string, string> } },
    change: (current: RecordOf<P>) => PatchBodyOf<P> | null | Promise<PatchBodyOf<P> | null>,
    opts: { attempts?: number } = {},
  ): Promise<RecordOf<P>> {
    const attempts = opts.attempts ?? 3;
    for (let attempt = 1; ; attempt++) {
      const read = await this.exchange('GET', path, init);
      const current = (read.body as { data: RecordOf<P> }).data;
      const body = await change(current);
      if (body === null) return current;
      const etag = read.response.headers.get('etag');
      try {
        const written = await this.send('PATCH', path, { ...init, body, headers: etag ? { 'If-Match': etag } : {} });
        return (written as { data: RecordOf<P> }).data;
      } catch (err) {
        if (!(err instanceof PreconditionFailedError) || attempt >= attempts) throw err;
      }
    }
  }

  private async *eventPages(query: EventListQuery): AsyncGenerator<ApiEvent, void, undefined> {
    const newer = query.ending_before !== undefined;
    let cursor = newer ? query.ending_before : query.starting_after;
    for (;;) {
      const page = await this.send<{ data: ApiEvent[]; pagination: { hasMore: boolean } }>('GET', '/v1/events', {
        params: { query: { ...query, ...(cursor ? (newer ? { ending_before: cursor } : { starting_after: cursor }) : {}) } },
      });
      for (const event of page.data) yield event;
      if (!page.pagination.hasMore || page.data.length === 0) return;
      // Each page is newest first: older events follow its last one, newer ones precede its first.
      cursor = newer ? page.data[0]!.id : page.data.at(-1)!.id;
    }
  }

  private async send<T>(method: string, path: string, init: unknown): Promise<T> {
    return (await this.exchange(method, path, init)).body as T;
  }

  /** One call (with its retries): the JSON body and the response, or the typed error. */
  private async exchange(method: string, path: string, init: unknown): Promise<{ body: unknown; response: Response }> {
    const call = this.raw[method as 'GET'] as (path: string, init: unknown) => Promise<RawResult>;
    const result = await call(path, init ?? {});
    if (!result.response.ok) throw errorFromResponse(result.response.status, result.response.headers, result.error);
    return { body: result.data, response: result.response };
  }
}

/** `dryRun: true` becomes the `dry_run=true` query parameter. */
function withDryRun(init: (DryRunOption & { params?: { query?: Record<string, unknown> } }) | undefined): unknown {
  if (!init?.dryRun) {
    if (init && 'dryRun' in init) {
      const { dryRun: _off, ...rest } = init;
      return rest;
    }
    return init;
  }
  const { dryRun: _on, ...rest } = init;
  return { ...rest, params: { ...rest.params, query: { ...rest.params?.query, dry_run: 'true' } } };
}
