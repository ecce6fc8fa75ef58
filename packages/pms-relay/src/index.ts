// The one client every service relays a write to a PMS with: the pms-adapter's RelayWrite.
// Callers decide refusals from the capability matrix BEFORE calling it; it is only
// called for writes the PMS can perform.
//
// One policy for everyone:
// - deadline and breaker: one gRPC upstream named `pms-adapter` (platform's createUpstream:
//   5 s deadline, one opossum breaker that only `service_unavailable` / `upstream_timeout` open);
// - errors: the pms-adapter's decided answer is the caller's answer, unchanged. A PMS refusing
//   a write the matrix allowed is `422 pms_write_unsupported` (naming the PMS); a PMS that
//   answered an error or could not be reached is `502 pms_unavailable` with its reason; a PMS
//   whose breaker (in the pms-adapter) is open, or a pms-adapter that cannot be reached, is
//   `503 service_unavailable` with Retry-After; no answer within the deadline is
//   `504 upstream_timeout` (the write may have been applied: retry with the same key).
import { pms } from '@vrp/contracts';
import { createUpstream, type Upstream } from '@vrp/platform/grpc';
import type { PmsWrite } from '@vrp/pms-matrix';

export interface RelayRequest {
  workspaceId: string;
  provider: string;
  /** The write of the capability matrix (`reservation.create`, `content.description`, ...). */
  operation: PmsWrite;
  listingExternalId: string;
  /** The PMS's id of the entity written; '' on create. */
  entityExternalId: string;
  /** Sent as JSON. */
  payload: unknown;
  /** Derived from the caller's Idempotency-Key (or the write itself): a retried write is applied once by the PMS. */
  idempotencyKey: string;
}

export interface PmsRelay {
  /** Resolves once the PMS applied the write, with the PMS's id of the entity written (the given one when the PMS names none). */
  relay(req: RelayRequest): Promise<{ entityExternalId: string }>;
}

export function pmsRelay(adapter: Upstream<pms.PmsAdapterServiceClient>): PmsRelay {
  return {
    async relay(req) {
      const res = await adapter.call('relayWrite', {
        workspaceId: req.workspaceId,
        provider: req.provider,
        operation: req.operation,
        listingExternalId: req.listingExternalId,
        entityExternalId: req.entityExternalId,
        payloadJson: JSON.stringify(req.payload),
        idempotencyKey: req.idempotencyKey,
      });
      return { entityExternalId: res.entityExternalId || req.entityExternalId };
    },
  };
}

/** The relay over its own upstream to the pms-adapter at `address`; close() on shutdown. */
export function connectPmsRelay(address: string): PmsRelay & { close(): void } {
  const adapter = createUpstream(pms.PmsAdapterServiceClient, { name: 'pms-adapter', address });
  return { ...pmsRelay(adapter), close: () => adapter.close() };
}
