// The route table's vocabulary. Every endpoint is declared once with its input and output
// schemas; the router derives validation from the declaration and the OpenAPI document derives
// the reference from it, so the two cannot disagree.
import type { Request, Response } from 'express';
import { z } from 'zod';
import type { ErrorCode } from '@vrp/platform/errors';
import type { ApiKeyPrincipal } from '../domain/api-key-record';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';
/** Methods whose requests honour `Idempotency-Key`: every POST and PATCH. */
export const IDEMPOTENT_METHODS: ReadonlySet<HttpMethod> = new Set<HttpMethod>(['post', 'patch']);
/** The query parameter of a preflight: `?dry_run=true` answers what the write would do, writing nothing. */
export const DRY_RUN_PARAM = 'dry_run';
export type AuthKind = 'api_key' | 'admin' | 'none';
export type ResponseSchemas = { readonly [status: number]: z.ZodType };

export interface HandlerInput<A extends AuthKind, Q, P, B> {
  query: Q;
  params: P;
  body: B;
  /** The verified caller of an `api_key` route. */
  principal: A extends 'api_key' ? ApiKeyPrincipal : null;
  req: Request;
  res: Response;
}

/** One of the declared responses: its status and a body of that status's schema. */
export type HandlerResult<R extends ResponseSchemas> = {
  [S in keyof R & number]: { status: S; body: z.input<R[S]> };
}[keyof R & number];

/** What a route declares and the router and the OpenAPI builder read as declared. */
interface RouteIdentity {
  method: HttpMethod;
  /** Express syntax (`/v1/listings/:id`); the OpenAPI path is derived (`/v1/listings/{id}`). */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
}

export interface RouteDefinition<
  A extends AuthKind,
  Q extends z.ZodType,
  P extends z.ZodType,
  B extends z.ZodType,
  R extends ResponseSchemas,
> extends RouteIdentity {
  auth: A;
  /** Query parameters; unknown ones are refused. Default: none allowed. */
  query?: Q;
  /** Path parameters. Default: every `:name` of the path as a non-empty string. */
  params?: P;
  /** JSON body. Routes without one ignore any body sent. */
  body?: B;
  responses: R;
  /** Error codes this route may answer besides the generic ones (documentation). */
  errors?: ErrorCode[];
  /**
   * The route answers one versioned record: its response carries `ETag`, and (PATCH, and POST
   * actions on the record) `If-Match` is accepted and documented with its 412.
   */
  versioned?: boolean;
  handler(input: HandlerInput<A, z.output<Q>, z.output<P>, z.output<B>>): Promise<HandlerResult<R>>;
}

/** A declared route with its types erased, as the router and the OpenAPI builder see it. */
export interface Route extends RouteIdentity {
  auth: AuthKind;
  query: z.ZodType;
  params: z.ZodType;
  body?: z.ZodType;
  responses: ResponseSchemas;
  errors: ErrorCode[];
  /** Every POST and PATCH: honours `Idempotency-Key`. */
  idempotent: boolean;
  /** Every write of the public API: accepts `?dry_run=true` (docs/api.md, "Dry runs"). */
  dryRunnable: boolean;
  versioned: boolean;
  handler(input: HandlerInput<AuthKind, unknown, unknown, unknown>): Promise<{ status: number; body: unknown }>;
}

/** Names of the `:params` of an Express path. */
export function pathParamNames(path: string): string[] {
  return path
    .split('/')
    .filter((segment) => segment.startsWith(':'))
    .map((segment) => segment.slice(1));
}

export function defineRoute<
  A extends AuthKind,
  R extends ResponseSchemas,
  Q extends z.ZodType = z.ZodObject<Record<string, never>>,
  P extends z.ZodType = z.ZodObject<Record<string, z.ZodString>>,
  B extends z.ZodType = z.ZodUndefined,
>(def: RouteDefinition<A, Q, P, B, R>): Route {
  const defaultParams = z.strictObject(Object.fromEntries(pathParamNames(def.path).map((name) => [name, z.string().min(1)])));
  return {
    method: def.method,
    path: def.path,
    operationId: def.operationId,
    summary: def.summary,
    ...(def.description ? { description: def.description } : {}),
    tags: def.tags,
    auth: def.auth,
    query: def.query ?? z.strictObject({}),
    params: def.params ?? defaultParams,
    ...(def.body ? { body: def.body } : {}),
    responses: def.responses,
    errors: def.errors ?? [],
    idempotent: IDEMPOTENT_METHODS.has(def.method),
    dryRunnable: def.method !== 'get' && def.auth === 'api_key',
    versioned: def.versioned ?? false,
    // Sound because the router hands the handler exactly what these schemas produced.
    handler: def.handler as unknown as Route['handler'],
  };
}

/** Typed success results (a literal status survives TypeScript's inference through the route generics). */
export const ok = <B>(body: B): { status: 200; body: B } => ({ status: 200, body });
export const created = <B>(body: B): { status: 201; body: B } => ({ status: 201, body });
