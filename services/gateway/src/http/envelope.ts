// The error envelope of spec section 7, rendered from an AppError, and the mapping of every
// other failure (body parser, Express, bugs) onto a catalog code.
import type { Response } from 'express';
import { AppError, docsPath, storeFailureToAppError } from '@vrp/platform';
import type { ErrorEnvelope } from '@vrp/api-model';

export function toErrorEnvelope(err: AppError, requestId: string, baseUrl: string): ErrorEnvelope {
  const error: ErrorEnvelope['error'] = {
    code: err.code,
    message: err.message,
    fix: err.fix,
    docs_url: `${baseUrl}${docsPath(err.code)}`,
    request_id: requestId,
  };
  if (err.code === 'validation_failed' && err.details.fields) error.fields = err.details.fields;
  // docs/api.md, "Errors": listing_ids/listings only on listing_inactive, provider only on pms_write_unsupported.
  if (err.code === 'listing_inactive') {
    error.listing_ids = err.details.listingIds ?? err.details.listings?.map((l) => l.id) ?? [];
    error.listings = err.details.listings ?? [];
  }
  if (err.code === 'pms_write_unsupported' && err.details.provider) error.provider = err.details.provider;
  if (err.code === 'dates_unavailable') error.conflicts = err.details.conflicts ?? [];
  return { error };
}

export function sendError(res: Response, err: AppError, requestId: string, baseUrl: string): void {
  // After the response deadline's answer the headers are gone; the outcome still reaches res.json
  // (the idempotency recorder), whose answer is then dropped.
  if (err.details.retryAfterSeconds && err.details.retryAfterSeconds > 0 && !res.headersSent) {
    res.setHeader('Retry-After', String(Math.ceil(err.details.retryAfterSeconds)));
  }
  res.status(err.httpStatus).json(toErrorEnvelope(err, requestId, baseUrl));
}

interface HttpErrorLike {
  status?: unknown;
  type?: unknown;
}

/**
 * Any thrown value -> the AppError to render. `expected` is false for failures that are bugs
 * or outages of our own (they are logged with their stack, and the caller sees internal_error).
 */
export function classifyError(err: unknown): { appError: AppError; expected: boolean } {
  if (err instanceof AppError) return { appError: err, expected: err.code !== 'internal_error' };
  const { status, type } = (typeof err === 'object' && err !== null ? err : {}) as HttpErrorLike;
  switch (type) {
    case 'entity.parse.failed':
      return { appError: new AppError('invalid_json'), expected: true };
    case 'entity.too.large':
      return { appError: new AppError('payload_too_large'), expected: true };
    case 'charset.unsupported':
      return { appError: new AppError('unsupported_media_type', 'The body must be UTF-8 JSON.'), expected: true };
    case 'encoding.unsupported':
      return { appError: new AppError('unsupported_encoding'), expected: true };
    case 'request.aborted':
    case 'request.size.invalid':
      return { appError: new AppError('invalid_json', 'The request body was incomplete.'), expected: true };
    default:
      break;
  }
  // The gateway's own store (API keys, idempotency records) unavailable: 503, as upstreams answer.
  const storeFailure = storeFailureToAppError(err);
  if (storeFailure) return { appError: storeFailure, expected: true };
  // Express itself answers malformed URLs (bad percent-encoding in a path parameter) with 400.
  if (status === 400) {
    return {
      appError: new AppError('validation_failed', 'The request URL is malformed.', { fields: { path: 'is not valid percent-encoding' } }),
      expected: true,
    };
  }
  return { appError: new AppError('internal_error'), expected: false };
}
