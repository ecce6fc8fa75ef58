// Consumer of pms.sync.v1: reservation changes made in a PMS reach this service with the
// PMS's next sync. Other entities are for the listing and guest services.
import { pmsSync, TOPICS } from '@vrp/contracts';
import type { EventBus, Subscription } from '@vrp/platform';
import type { Reservations } from '../reservations';

export const PMS_SYNC_GROUP = 'reservation-pms-sync';

export async function consumePmsSync(bus: EventBus, reservations: Reservations): Promise<Subscription> {
  await bus.ensureTopics([TOPICS.pmsSync]);
  const subscription = await bus.subscribe({
    groupId: PMS_SYNC_GROUP,
    topics: [TOPICS.pmsSync.name],
    fromBeginning: true,
    handler: async (message) => {
      await reservations.applySync(pmsSync.PmsSyncChange.decode(message.value));
    },
  });
  await subscription.ready;
  return subscription;
}
