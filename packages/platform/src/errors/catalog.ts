// The one error catalog: every code any service can return, its HTTP status, the gRPC status
// it travels as, and the human text of its envelope. Services throw AppError with a code from
// here; the gateway renders the envelope of spec section 7 from the same entry.
import { status as GrpcStatus } from '@grpc/grpc-js';

export interface CatalogEntry {
  http: number;
  grpc: GrpcStatus;
  title: string;
  /** Default message; a thrower may give a more precise one. */
  message: string;
  /** Suggested remedy shown as `error.fix`. */
  fix: string;
}

export const ERROR_CATALOG = {
  validation_failed: {
    http: 400,
    grpc: GrpcStatus.INVALID_ARGUMENT,
    title: 'Validation failed',
    message: 'The request has invalid parameters.',
    fix: 'Correct the fields named in `error.fields` and send the request again.',
  },
  invalid_json: {
    http: 400,
    grpc: GrpcStatus.INVALID_ARGUMENT,
    title: 'Malformed JSON body',
    message: 'The request body is not valid JSON.',
    fix: 'Send a well-formed JSON document in the body.',
  },
  unsupported_media_type: {
    http: 415,
    grpc: GrpcStatus.INVALID_ARGUMENT,
    title: 'Unsupported content type',
    message: 'Request bodies must be JSON.',
    fix: 'Send the body with `Content-Type: application/json`.',
  },
  unsupported_encoding: {
    http: 415,
    grpc: GrpcStatus.INVALID_ARGUMENT,
    title: 'Unsupported content encoding',
    message: 'The request body uses a Content-Encoding this API does not accept; accepted: gzip, deflate, br, identity.',
    fix: 'Send the body uncompressed (no Content-Encoding, or `identity`) or with one of `gzip`, `deflate`, `br`.',
  },
  expectation_failed: {
    http: 417,
    grpc: GrpcStatus.INVALID_ARGUMENT,
    title: 'Expectation not supported',
    message: 'The request carries an `Expect` header this API cannot meet; only `100-continue` is supported.',
    fix: 'Send the request without `Expect`, or with `Expect: 100-continue`.',
  },
  payload_too_large: {
    http: 413,
    grpc: GrpcStatus.INVALID_ARGUMENT,
    title: 'Body too large',
    message: 'The request body exceeds the 1 MiB limit.',
    fix: 'Send a smaller body; split large batches into several requests.',
  },
  malformed_request: {
    http: 400,
    grpc: GrpcStatus.INVALID_ARGUMENT,
    title: 'Malformed HTTP request',
    message: 'The request is not valid HTTP/1.1.',
    fix: 'Send a well-formed HTTP request (request line, headers, framing); most HTTP client libraries do.',
  },
  headers_too_large: {
    http: 431,
    grpc: GrpcStatus.INVALID_ARGUMENT,
    title: 'Request headers too large',
    message: 'The request headers exceed the 16 KiB limit.',
    fix: 'Send fewer or shorter headers (large cookies are the usual cause).',
  },
  request_timeout: {
    http: 408,
    grpc: GrpcStatus.DEADLINE_EXCEEDED,
    title: 'Request timeout',
    message: 'The request was not received completely in time.',
    fix: 'Send the whole request promptly, then retry.',
  },
  route_not_found: {
    http: 404,
    grpc: GrpcStatus.NOT_FOUND,
    title: 'Unknown route',
    message: 'No endpoint exists at this path.',
    fix: 'Check the path against the API reference at /docs; every path starts with /v1.',
  },
  method_not_allowed: {
    http: 405,
    grpc: GrpcStatus.UNIMPLEMENTED,
    title: 'Method not allowed',
    message: 'This endpoint does not accept this HTTP method.',
    fix: 'Use one of the methods listed in the `Allow` response header.',
  },
  authentication_required: {
    http: 401,
    grpc: GrpcStatus.UNAUTHENTICATED,
    title: 'Authentication required',
    message: 'No API key was sent.',
    fix: 'Send `Authorization: Bearer <API_KEY>` with a key that starts with sk_test_ or sk_live_.',
  },
  invalid_api_key: {
    http: 401,
    grpc: GrpcStatus.UNAUTHENTICATED,
    title: 'Invalid API key',
    message: 'The API key is malformed, unknown or revoked.',
    fix: 'Check the key for typos, or issue a new key; revoked keys stop working at once.',
  },
  workspace_mismatch: {
    http: 403,
    grpc: GrpcStatus.PERMISSION_DENIED,
    title: 'Workspace mismatch',
    message: 'The X-Workspace-Id header names a workspace this API key does not belong to.',
    fix: 'Send the workspace id the key was issued for, or leave the header out.',
  },
  admin_token_invalid: {
    http: 401,
    grpc: GrpcStatus.UNAUTHENTICATED,
    title: 'Invalid admin token',
    message: 'The admin API needs a valid operator token.',
    fix: 'Send `Authorization: Bearer <ADMIN_TOKEN>` as configured for the gateway.',
  },
  not_found: {
    http: 404,
    grpc: GrpcStatus.NOT_FOUND,
    title: 'Not found',
    message: 'The requested resource does not exist in this workspace.',
    fix: 'Check the id; ids from another workspace are never visible.',
  },
  listing_inactive: {
    http: 403,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    title: 'Listing inactive',
    message: 'The request addresses an inactive listing.',
    fix: 'Activate the listing (PATCH /v1/listings/{id} with {"active": true} or POST /v1/listings/status), then retry. If activation returns 402, deactivate another listing or upgrade the plan. The listing kept syncing while inactive.',
  },
  pms_write_unsupported: {
    http: 422,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    title: 'PMS cannot perform this write',
    message: 'The listing is managed in a PMS whose API cannot perform this write. Nothing was sent to the PMS.',
    fix: 'Make this change in the PMS named in `provider`; it reaches this API with the next sync. Do not retry: reconnecting does not change it.',
  },
  listings_limit_exceeded: {
    http: 402,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    title: 'Active listing limit reached',
    message: "Activating would exceed the plan's active-listing limit.",
    fix: 'Deactivate another listing or upgrade the plan, then retry.',
  },
  conflict: {
    http: 409,
    grpc: GrpcStatus.ALREADY_EXISTS,
    title: 'Conflict',
    message: 'The request conflicts with the current state of the resource.',
    fix: 'Read the resource again and retry with the current state.',
  },
  dates_unavailable: {
    http: 409,
    grpc: GrpcStatus.ABORTED,
    title: 'Dates unavailable',
    message: 'Some nights of the stay are already booked or closed on the calendar. Nothing was written.',
    fix: 'Choose other dates: `error.conflicts` names every night that is taken, with the reason (booked or closed) and the reservation holding it.',
  },
  precondition_failed: {
    http: 412,
    grpc: GrpcStatus.FAILED_PRECONDITION,
    title: 'Precondition failed',
    message: 'The record changed since the version named in If-Match. Nothing was changed.',
    fix: 'GET the record again, re-apply your change to it, and send it with the new ETag in If-Match.',
  },
  idempotency_in_progress: {
    http: 409,
    grpc: GrpcStatus.ABORTED,
    title: 'Idempotent request in progress',
    message: 'A request with this Idempotency-Key is still being processed.',
    fix: 'Wait for the number of seconds in the `Retry-After` header, then retry with the same key and body to receive its response.',
  },
  idempotency_conflict: {
    http: 409,
    grpc: GrpcStatus.ABORTED,
    title: 'Idempotency key reused',
    message: 'This Idempotency-Key was already used with a different request.',
    fix: 'Use a new Idempotency-Key for a different request, or resend the original body.',
  },
  rate_limited: {
    http: 429,
    grpc: GrpcStatus.RESOURCE_EXHAUSTED,
    title: 'Too many requests',
    message: 'Too many requests: a rate or concurrency limit was reached.',
    fix: 'Wait for the number of seconds in the `Retry-After` header, then retry; spread requests out or lower their concurrency (see the `RateLimit-*` response headers).',
  },
  pms_unavailable: {
    http: 502,
    grpc: GrpcStatus.UNAVAILABLE,
    title: 'PMS unavailable',
    message: 'The PMS did not accept the write. Nothing was changed here.',
    fix: 'Retry later with the same Idempotency-Key.',
  },
  service_unavailable: {
    http: 503,
    grpc: GrpcStatus.UNAVAILABLE,
    title: 'Service unavailable',
    message: 'A service needed for this request is unavailable.',
    fix: 'Retry after the number of seconds in the `Retry-After` header.',
  },
  upstream_timeout: {
    http: 504,
    grpc: GrpcStatus.DEADLINE_EXCEEDED,
    title: 'Upstream timeout',
    message: 'A service needed for this request did not answer in time.',
    fix: 'Retry the request; writes are safe to retry with the same Idempotency-Key.',
  },
  internal_error: {
    http: 500,
    grpc: GrpcStatus.INTERNAL,
    title: 'Internal error',
    message: 'Something went wrong on our side.',
    fix: 'Retry later. If it persists, contact support with the request_id.',
  },
} as const satisfies Record<string, CatalogEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export function isErrorCode(code: string): code is ErrorCode {
  return Object.prototype.hasOwnProperty.call(ERROR_CATALOG, code);
}

/** Path of the docs page of a code, served by the gateway. */
export function docsPath(code: ErrorCode): string {
  return `/docs/errors/${code}`;
}
