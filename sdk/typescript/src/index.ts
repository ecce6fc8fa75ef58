// The TypeScript SDK of the API: see ../README.md.
export {
  Vrp,
  type VrpOptions,
  type PathsWith,
  type Success,
  type CollectionPath,
  type ItemOf,
  type UpdatablePath,
  type ApiEvent,
  type EventListQuery,
  type DryRunOption,
} from './client';
export {
  VrpApiError,
  VrpNetworkError,
  ValidationFailedError,
  ListingInactiveError,
  PmsWriteUnsupportedError,
  DatesUnavailableError,
  AuthenticationError,
  NotFoundError,
  PreconditionFailedError,
  IdempotencyConflictError,
  RateLimitedError,
  ServiceUnavailableError,
  type ErrorCode,
} from './errors';
export { verify as verifyWebhook, WebhookVerificationError, DEFAULT_TOLERANCE_SECONDS, type WebhookEvent, type VerifyOptions } from './webhooks';
export { DEFAULT_RETRY_POLICY, IDEMPOTENCY_HEADER, type RetryPolicy } from './transport';
export type { paths, components } from './generated/api';
