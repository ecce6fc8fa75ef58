// Typed errors: every non-2xx answer of the API becomes a VrpApiError carrying the envelope's
// fields, or the subclass of its `code` where the code carries more (listings, provider, fields,
// conflicts) or is one a caller commonly catches. Codes added to the API later still arrive as
// VrpApiError with their `code`.
import type { components } from './generated/api';

type Envelope = components['schemas']['ErrorEnvelope']['error'];
/** Every error code of the API (its error catalog, as the OpenAPI document lists it). */
export type ErrorCode = Envelope['code'];

export class VrpApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly fix: string;
  readonly docsUrl: string;
  readonly requestId: string;
  /** The whole `error` object of the envelope. */
  readonly envelope: Envelope;
  /** Seconds from `Retry-After`, when the answer had one. */
  readonly retryAfterSeconds: number | null;

  constructor(status: number, envelope: Envelope, retryAfterSeconds: number | null = null) {
    super(`${envelope.code}: ${envelope.message}`);
    this.name = new.target.name;
    this.status = status;
    this.code = envelope.code;
    this.fix = envelope.fix;
    this.docsUrl = envelope.docs_url;
    this.requestId = envelope.request_id;
    this.envelope = envelope;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** 400 validation_failed: `fields` names every invalid parameter and what is wrong with it. */
export class ValidationFailedError extends VrpApiError {
  get fields(): Record<string, string> {
    return this.envelope.fields ?? {};
  }
}

/** 403 listing_inactive: the inactive listings the request touched. */
export class ListingInactiveError extends VrpApiError {
  get listingIds(): string[] {
    return this.envelope.listing_ids ?? [];
  }
  get listings(): { id: string; name: string }[] {
    return this.envelope.listings ?? [];
  }
}

/** 422 pms_write_unsupported: the PMS (`provider`) whose API cannot perform this write; do not retry. */
export class PmsWriteUnsupportedError extends VrpApiError {
  get provider(): string {
    return this.envelope.provider ?? '';
  }
}

/** 409 dates_unavailable: the nights that are taken. */
export class DatesUnavailableError extends VrpApiError {
  get conflicts(): NonNullable<Envelope['conflicts']> {
    return this.envelope.conflicts ?? [];
  }
}

export class AuthenticationError extends VrpApiError {}
export class NotFoundError extends VrpApiError {}
export class PreconditionFailedError extends VrpApiError {}
export class IdempotencyConflictError extends VrpApiError {}
export class RateLimitedError extends VrpApiError {}
export class ServiceUnavailableError extends VrpApiError {}

type ErrorClass = new (status: number, envelope: Envelope, retryAfterSeconds: number | null) => VrpApiError;

const CLASS_OF_CODE: Partial<Record<ErrorCode, ErrorClass>> = {
  validation_failed: ValidationFailedError,
  listing_inactive: ListingInactiveError,
  pms_write_unsupported: PmsWriteUnsupportedError,
  dates_unavailable: DatesUnavailableError,
  authentication_required: AuthenticationError,
  invalid_api_key: AuthenticationError,
  admin_token_invalid: AuthenticationError,
  not_found: NotFoundError,
  precondition_failed: PreconditionFailedError,
  idempotency_conflict: IdempotencyConflictError,
  rate_limited: RateLimitedError,
  service_unavailable: ServiceUnavailableError,
};

/** A network failure or a time-out on every attempt: no answer came. */
export class VrpNetworkError extends Error {
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
    this.name = 'VrpNetworkError';
  }
}

function isEnvelope(body: unknown): body is { error: Envelope } {
  if (typeof body !== 'object' || body === null) return false;
  const error = (body as { error?: unknown }).error;
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string';
}

/** Seconds of a `Retry-After` header (delta-seconds or an HTTP date), or null. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The typed error of an answer; a body that is no envelope (a proxy's page) still gives a VrpApiError. */
export function errorFromResponse(status: number, headers: Headers, body: unknown): VrpApiError {
  const retryAfter = retryAfterSeconds(headers.get('retry-after'));
  const envelope: Envelope = isEnvelope(body)
    ? body.error
    : {
        code: status >= 500 ? 'internal_error' : 'validation_failed',
        message: `HTTP ${status} without an error envelope`,
        fix: 'Check the base URL: the answer did not come from the API.',
        docs_url: '',
        request_id: headers.get('x-request-id') ?? '',
      };
  const Class = CLASS_OF_CODE[envelope.code] ?? VrpApiError;
  return new Class(status, envelope, retryAfter);
}
