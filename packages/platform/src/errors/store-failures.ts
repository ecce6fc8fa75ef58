// What a failure of the document store means for a caller. Used by the two places that turn
// non-AppErrors into answers: the gRPC server (services) and the gateway's error envelope.
import { isTransientStoreError, StoreUnavailableError, TransactionAbortedError } from '../store/port';
import { AppError } from './app-error';

/** Seconds a caller should wait before retrying after the store was unavailable or contended. */
const STORE_RETRY_AFTER_SECONDS = 1;

/**
 * `503 service_unavailable` for a store that did not answer in time or cannot be reached, and
 * for a write conflict that outlived the transaction's retries (contention: retrying later
 * helps). Null for any other error (a bug: internal_error).
 */
export function storeFailureToAppError(err: unknown): AppError | null {
  const cause = err instanceof TransactionAbortedError ? err.reason : err;
  if (cause instanceof StoreUnavailableError || isTransientStoreError(err) || isTransientStoreError(cause)) {
    return new AppError('service_unavailable', undefined, { retryAfterSeconds: STORE_RETRY_AFTER_SECONDS });
  }
  return null;
}
