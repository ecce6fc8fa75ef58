// Consumer of pms.sync.v1: reservation changes made in a PMS reach this service with the
// PMS's next sync. Other entities are for the listing and guest services. Failures (see
// Reservations.applySync): a malformed payload or a listing the workspace deleted is permanent
// (a dead letter at once); a listing not imported yet, the listing service or the store being
// unavailable are transient (retried in place, dead-lettered past the budget).
import { pmsSync, TOPICS } from '@vrp/contracts';
import { describeSyncChange, type ConsumerRunner } from '@vrp/platform/consumer';
import type { Subscription } from '@vrp/platform/bus';
import type { Reservations } from '../use-cases/reservations';

export const PMS_SYNC_GROUP = 'reservation-pms-sync';

export async function consumePmsSync(consumers: ConsumerRunner, reservations: Reservations): Promise<Subscription> {
  const subscription = await consumers.subscribe({
    groupId: PMS_SYNC_GROUP,
    topics: [TOPICS.pmsSync],
    fromBeginning: true,
    decode: (bytes) => pmsSync.PmsSyncChange.decode(bytes),
    reportsSyncOutcomes: true,
    describe: (change) => describeSyncChange(change, change.entity === 'reservation'),
    handle: async (change) => {
      await reservations.applySync(change);
    },
  });
  await subscription.ready;
  return subscription;
}
