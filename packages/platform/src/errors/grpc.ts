// The one place where errors cross gRPC. A service handler's AppError becomes a gRPC status
// plus a google.rpc.Status (with a vrp.common.v1.ErrorDetail) in the grpc-status-details-bin
// trailer; the client side turns it back into the same AppError. Anything that is not an
// AppError leaves a service as INTERNAL with no internals in the message.
import { Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { common, protobufAny, rpcStatus } from '@vrp/contracts';
import { AppError, type ErrorDetails } from './app-error';
import { ERROR_CATALOG, isErrorCode, type ErrorCode } from './catalog';

export const STATUS_DETAILS_KEY = 'grpc-status-details-bin';
const DETAIL_TYPE_URL = 'type.googleapis.com/vrp.common.v1.ErrorDetail';

export interface GrpcErrorPayload {
  code: GrpcStatus;
  details: string;
  metadata: Metadata;
}

/** AppError -> what a grpc-js callback receives. */
export function appErrorToGrpc(err: AppError): GrpcErrorPayload {
  const grpcCode = ERROR_CATALOG[err.code].grpc;
  const detail = common.ErrorDetail.create({
    code: err.code,
    message: err.message,
    fix: err.fix,
    fields: err.details.fields ?? {},
    listingIds: err.details.listingIds ?? [],
    listings: err.details.listings ?? [],
    provider: err.details.provider ?? '',
    retryAfterSeconds: err.details.retryAfterSeconds ?? 0,
    conflicts: (err.details.conflicts ?? []).map((c) => ({ date: c.date, reason: c.reason, reservationId: c.reservationId ?? '' })),
  });
  const statusMessage = rpcStatus.Status.encode({
    code: grpcCode,
    message: err.message,
    details: [protobufAny.Any.create({ typeUrl: DETAIL_TYPE_URL, value: Buffer.from(common.ErrorDetail.encode(detail).finish()) })],
  }).finish();
  const metadata = new Metadata();
  metadata.set(STATUS_DETAILS_KEY, Buffer.from(statusMessage));
  return { code: grpcCode, details: err.message, metadata };
}

/** Fallback mapping of bare gRPC statuses (grpc-gateway's table) for errors without details. */
function codeForStatus(code: number): ErrorCode {
  switch (code) {
    case GrpcStatus.INVALID_ARGUMENT:
    case GrpcStatus.FAILED_PRECONDITION:
    case GrpcStatus.OUT_OF_RANGE:
      return 'validation_failed';
    case GrpcStatus.UNAUTHENTICATED:
      return 'invalid_api_key';
    case GrpcStatus.NOT_FOUND:
      return 'not_found';
    case GrpcStatus.ALREADY_EXISTS:
    case GrpcStatus.ABORTED:
      return 'conflict';
    case GrpcStatus.RESOURCE_EXHAUSTED:
      return 'rate_limited';
    case GrpcStatus.UNAVAILABLE:
      return 'service_unavailable';
    case GrpcStatus.DEADLINE_EXCEEDED:
      return 'upstream_timeout';
    default:
      return 'internal_error';
  }
}

/** ServiceError from a client call -> AppError (details decoded when present). */
export function grpcToAppError(err: ServiceError): AppError {
  const raw = err.metadata?.get(STATUS_DETAILS_KEY)[0];
  if (raw && Buffer.isBuffer(raw)) {
    try {
      const st = rpcStatus.Status.decode(raw);
      const any = st.details.find((d) => d.typeUrl === DETAIL_TYPE_URL);
      if (any) {
        const d = common.ErrorDetail.decode(any.value);
        if (isErrorCode(d.code)) {
          const details: ErrorDetails = {};
          if (Object.keys(d.fields).length) details.fields = d.fields;
          if (d.listingIds.length) details.listingIds = d.listingIds;
          if (d.listings.length) details.listings = d.listings.map((l) => ({ id: l.id, name: l.name }));
          if (d.provider) details.provider = d.provider;
          if (d.retryAfterSeconds) details.retryAfterSeconds = d.retryAfterSeconds;
          if (d.conflicts.length) {
            details.conflicts = d.conflicts.map((c) => ({
              date: c.date,
              reason: c.reason,
              ...(c.reservationId ? { reservationId: c.reservationId } : {}),
            }));
          }
          return new AppError(d.code, d.message, details, d.fix || undefined);
        }
      }
    } catch {
      // Undecodable details: fall through to the bare status.
    }
  }
  const code = codeForStatus(err.code);
  // A bare status carries an upstream's message; only expected codes keep it.
  return code === 'internal_error' ? new AppError(code) : new AppError(code, err.details || undefined);
}

export function isServiceError(err: unknown): err is ServiceError {
  return err instanceof Error && typeof (err as Partial<ServiceError>).code === 'number' && 'metadata' in err;
}
