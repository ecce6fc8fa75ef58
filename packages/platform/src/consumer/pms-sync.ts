// The one way a service consumes its share of pms.sync.v1: every service reads the whole topic in
// its own group, handles the entities it owns (their outcomes are reported on
// pms.sync.outcomes.v1) and skips the rest.
import { pmsSync, TOPICS } from '@vrp/contracts';
import { describeSyncChange, type ConsumerSpec } from './runner';

export function pmsSyncConsumer(
  groupId: string,
  owns: (entity: string) => boolean,
  handle: (change: pmsSync.PmsSyncChange) => Promise<void>,
): ConsumerSpec<pmsSync.PmsSyncChange> {
  return {
    groupId,
    topics: [TOPICS.pmsSync],
    fromBeginning: true,
    decode: (bytes) => pmsSync.PmsSyncChange.decode(bytes),
    reportsSyncOutcomes: true,
    describe: (change) => describeSyncChange(change, owns(change.entity)),
    handle: async (change) => {
      if (owns(change.entity)) await handle(change);
    },
  };
}
