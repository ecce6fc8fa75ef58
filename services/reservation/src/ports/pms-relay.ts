// Relaying a supported write to the PMS managing a listing, through the pms-adapter's
// RelayWrite. The reservation service decides refusals from the capability matrix first; this
// port is only called for writes the PMS can perform.
import { pms } from '@vrp/contracts';
import { AppError, type Upstream } from '@vrp/platform';
import type { PmsWrite } from '@vrp/pms-matrix';

export interface RelayRequest {
  workspaceId: string;
  provider: string;
  operation: PmsWrite;
  listingExternalId: string;
  /** The PMS's id of the reservation; '' on create. */
  entityExternalId: string;
  payload: unknown;
  idempotencyKey: string;
}

export interface PmsRelay {
  /** Resolves with the PMS's id of the reservation once the PMS has applied the write. */
  relay(req: RelayRequest): Promise<{ entityExternalId: string }>;
}

/** Failures that mean "the PMS (or the way to it) is down": the caller may retry later. */
const UNAVAILABLE = new Set(['pms_unavailable', 'service_unavailable', 'upstream_timeout']);

export function grpcPmsRelay(upstream: Upstream<pms.PmsAdapterServiceClient>): PmsRelay {
  return {
    async relay(req) {
      try {
        const res = await upstream.call('relayWrite', {
          workspaceId: req.workspaceId,
          provider: req.provider,
          operation: req.operation,
          listingExternalId: req.listingExternalId,
          entityExternalId: req.entityExternalId,
          payloadJson: JSON.stringify(req.payload),
          idempotencyKey: req.idempotencyKey,
        });
        return { entityExternalId: res.entityExternalId || req.entityExternalId };
      } catch (err) {
        // Nothing has been stored yet, so "down" is a clean 503 the caller can retry.
        if (err instanceof AppError && UNAVAILABLE.has(err.code)) {
          throw new AppError(
            'service_unavailable',
            `${req.provider} could not be reached to ${req.operation.replace('reservation.', '')} the reservation; nothing was changed.`,
            { retryAfterSeconds: err.details.retryAfterSeconds ?? 5 },
            'Retry later with the same Idempotency-Key.',
          );
        }
        throw err;
      }
    },
  };
}
