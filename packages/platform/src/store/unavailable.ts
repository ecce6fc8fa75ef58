// A store that cannot take a write right now (full or read-only disk, closed engine). It is an
// AppError with the `service_unavailable` code, so every service and the gateway answer it with
// the 503 envelope (and Retry-After) without mapping it themselves.
import { AppError } from '../errors/app-error';

export class StoreUnavailableError extends AppError {
  /** What failed underneath (for logs). */
  readonly reason: string;

  constructor(message: string, cause?: unknown) {
    super('service_unavailable', 'The data store could not save this change; nothing was changed.', { retryAfterSeconds: 5 });
    this.name = 'StoreUnavailableError';
    // The reason stays in logs, never in the response.
    this.reason = message;
    if (cause !== undefined) (this as { cause?: unknown }).cause = cause;
  }
}
