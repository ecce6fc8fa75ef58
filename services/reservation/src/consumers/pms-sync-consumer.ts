// Consumer of pms.sync.v1: reservation changes made in a PMS reach this service with the PMS's
// next sync. Other entities are for the listing and guest services. Each change is held to the
// API's rules and mapped to the domain's PmsStayChange here, then applied (applyPmsReservation).
// Failures: a malformed payload or a listing the workspace deleted is permanent (a dead letter
// at once); a listing not imported yet, the listing service or the store being unavailable are
// transient (retried in place, dead-lettered past the budget).
import { checkPmsInput } from '@vrp/api-model';
import type { pmsSync } from '@vrp/contracts';
import { PermanentError, pmsSyncConsumer, type ConsumerRunner } from '@vrp/platform/consumer';
import { type Subscription } from '@vrp/platform/bus';
import type { PmsStay, PmsStayChange } from '../domain/pms-stay';
import { isOneOf, WRITABLE_STATUSES } from '../domain/reservation';
import type { ReservationDeps } from '../use-cases/deps';
import { applyPmsReservation } from '../use-cases/sync-apply';

export const PMS_SYNC_GROUP = 'reservation-pms-sync';

export async function consumePmsSync(consumers: ConsumerRunner, deps: ReservationDeps): Promise<Subscription> {
  const subscription = await consumers.subscribe(
    pmsSyncConsumer(
      PMS_SYNC_GROUP,
      (entity) => entity === 'reservation',
      async (change) => {
        await applyPmsReservation(deps, pmsStayChangeOf(change));
      },
    ),
  );
  await subscription.ready;
  return subscription;
}

/**
 * The reservation of a sync change, held to the API's vocabulary and limits (checkPmsInput:
 * harmless differences normalised, nonsense refused) and checked for every field this service
 * needs; a payload no retry can fix is a permanent failure (dead letter).
 */
function pmsStayChangeOf(received: pmsSync.PmsSyncChange): PmsStayChange {
  const change = checkPmsInput(received);
  const p = change.reservation;
  const problems: string[] = [];
  if (!p) problems.push('no reservation in the change');
  else {
    if (!p.externalId) problems.push('externalId is missing');
    if (!isOneOf(WRITABLE_STATUSES, p.status)) problems.push(`status '${String(p.status)}' is unknown`);
    if (!p.updatedAt || Number.isNaN(p.updatedAt.getTime())) problems.push('updatedAt is not a time');
    if (!p.guest) problems.push('guest is missing');
    if (!p.occupancy) problems.push('occupancy is missing');
  }
  if (problems.length || !p || !p.guest || !p.occupancy || !p.updatedAt || !isOneOf(WRITABLE_STATUSES, p.status))
    throw new PermanentError('malformed_payload', `pms sync change ${change.changeId} (${change.provider} reservation): ${problems.join('; ')}`);
  const stay: PmsStay = {
    externalId: p.externalId,
    listingExternalId: p.listingExternalId,
    status: p.status,
    source: p.source,
    checkIn: p.checkIn,
    checkOut: p.checkOut,
    guest: { ...p.guest },
    occupancy: { ...p.occupancy },
    ...(p.totalPrice !== undefined ? { totalPrice: p.totalPrice } : {}),
    ...(p.currency !== undefined ? { currency: p.currency } : {}),
    updatedAt: p.updatedAt,
  };
  return { workspaceId: change.workspaceId, provider: change.provider, changeId: change.changeId, listingExternalId: change.listingExternalId, stay };
}
