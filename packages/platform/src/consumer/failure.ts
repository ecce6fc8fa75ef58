// Failure classes of a consumer handler. Permanent: the message can never be applied as it is
// (undecodable payload, a listing that does not exist or was deleted, invalid data); retrying
// only blocks the partition, so it is dead-lettered at once. Transient: the infrastructure
// (store unavailable, timed out, a write conflict, an upstream service down) may recover, so
// the runner retries in place with backoff. Anything not recognized counts as transient:
// retrying a permanent failure a few times costs a short delay, dead-lettering a transient
// one at once would set aside a message that would have applied.
import { AppError } from '../errors/app-error';
import type { ErrorCode } from '../errors/catalog';

export type FailureClass = 'permanent' | 'transient';

/** A handler failure whose class its thrower knows; `code` names the cause in the dead letter. */
abstract class ClassifiedError extends Error {
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A failure that no retry can fix (e.g. listing_deleted, malformed_payload): a dead letter at once. */
export class PermanentError extends ClassifiedError {
  override name = 'PermanentError';
  readonly permanent = true;
}

/** A failure expected to pass (e.g. data another consumer has not applied yet): retried in place. */
export class TransientError extends ClassifiedError {
  override name = 'TransientError';
  readonly isTransient = true;
}

export interface Failure {
  class: FailureClass;
  /** A short stable code: the PermanentError's or AppError's code, or the error's name. */
  code: string;
  message: string;
}

/** Catalog codes that say "try again later"; every other AppError is a decision that stands. */
const TRANSIENT_APP_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'service_unavailable',
  'upstream_timeout',
  'rate_limited',
  'pms_unavailable',
  'internal_error',
  // An optimistic-concurrency miss ("changed by another request meanwhile"): re-reading fixes it.
  'conflict',
]);

/** Errors of the store port that say the data is wrong: the same write fails every time. */
const PERMANENT_NAMES: ReadonlySet<string> = new Set(['DocumentValidationError', 'PermanentError']);

function transientFlag(err: object): boolean | undefined {
  const flag = (err as { isTransient?: unknown; transient?: unknown }).isTransient ?? (err as { transient?: unknown }).transient;
  if (typeof flag === 'boolean') return flag;
  if (typeof flag === 'function') {
    try {
      return Boolean((flag as () => unknown).call(err));
    } catch {
      return undefined;
    }
  }
  const labels = (err as { errorLabels?: unknown; errorLabelSet?: unknown }).errorLabels;
  if (Array.isArray(labels) && labels.some((l) => l === 'TransientTransactionError' || l === 'RetryableWriteError')) return true;
  return undefined;
}

/** Classifies what a handler threw. */
export function classifyFailure(err: unknown): Failure {
  if (!(err instanceof Error)) return { class: 'transient', code: 'unknown_error', message: String(err) };
  const message = err.message || err.name;
  if (err instanceof PermanentError || (err as { permanent?: unknown }).permanent === true) {
    return { class: 'permanent', code: String((err as { code?: unknown }).code ?? 'permanent'), message };
  }
  if (err instanceof AppError) return { class: TRANSIENT_APP_CODES.has(err.code) ? 'transient' : 'permanent', code: err.code, message };
  const flag = transientFlag(err);
  const rawCode = (err as { code?: unknown }).code;
  const code = typeof rawCode === 'string' ? rawCode : err.name;
  if (flag !== undefined) return { class: flag ? 'transient' : 'permanent', code, message };
  if (PERMANENT_NAMES.has(err.name)) return { class: 'permanent', code: err.name === 'DocumentValidationError' ? 'validation_failed' : code, message };
  // Store unavailable or timed out, write conflicts, driver network errors, and the unknown.
  return { class: 'transient', code, message };
}
