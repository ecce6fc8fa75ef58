import { ERROR_CATALOG, type ErrorCode } from './catalog';

/** Structured details that travel with an error across gRPC into the envelope. */
export interface ErrorDetails {
  /** Field -> what is wrong with it (validation_failed). */
  fields?: Record<string, string>;
  /** listing_inactive: every inactive listing touched. */
  listingIds?: string[];
  listings?: { id: string; name: string }[];
  /** pms_write_unsupported: the PMS that cannot perform the write. */
  provider?: string;
  /** Seconds the caller should wait (service_unavailable, rate_limited). */
  retryAfterSeconds?: number;
  /** dates_unavailable: every night of the request that is taken (the reservation service says which and why). */
  conflicts?: ConflictDetail[];
}

/**
 * One entry of `conflicts`, as the error detail carries it (common.v1.DateConflict): the service
 * that raises dates_unavailable defines what the reasons are.
 */
export interface ConflictDetail {
  date: string;
  reason: string;
  reservationId?: string;
}

/** A typed, expected failure. Anything else thrown is an internal error. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;
  readonly fix: string;

  constructor(code: ErrorCode, message?: string, details: ErrorDetails = {}, fix?: string) {
    super(message ?? ERROR_CATALOG[code].message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
    this.fix = fix ?? ERROR_CATALOG[code].fix;
  }

  get httpStatus(): number {
    return ERROR_CATALOG[this.code].http;
  }
}

export const notFound = (what: string, id: string) => new AppError('not_found', `No ${what} with id '${id}' exists in this workspace.`);

export const listingInactive = (listings: { id: string; name: string }[]) =>
  new AppError(
    'listing_inactive',
    listings.length === 1
      ? `Listing '${listings[0]!.id}' (${listings[0]!.name}) is inactive.`
      : `Listings ${listings.map((l) => `'${l.id}'`).join(', ')} are inactive.`,
    { listingIds: listings.map((l) => l.id), listings },
  );

export const pmsWriteUnsupported = (provider: string, what: string) =>
  new AppError(
    'pms_write_unsupported',
    `${provider} cannot ${what} through its API. Nothing was sent to ${provider}.`,
    { provider },
    `Make this change in ${provider}; it reaches this API with the next sync. Do not retry this request: it is a property of ${provider}, and reconnecting does not change it.`,
  );

export const validationFailed = (fields: Record<string, string>) =>
  new AppError(
    'validation_failed',
    `Invalid request: ${Object.entries(fields)
      .map(([k, v]) => `${k}: ${v}`)
      .join('; ')}`,
    { fields },
  );

export const preconditionFailed = (what: string, id: string, expected: number, current: number) =>
  new AppError('precondition_failed', `${what} '${id}' is at version ${current}, not ${expected} as If-Match says. Nothing was changed.`);
