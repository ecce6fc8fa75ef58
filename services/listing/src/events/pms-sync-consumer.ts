// Consumer of pms.sync.v1 for the listing service: decodes each change and hands the listing
// changes to the use case (use-cases/pms-sync.ts). Failures: an unreadable payload or a channel
// id taken by another listing are permanent (dead letters); store trouble is transient (retried
// in place by the runner).
import { pmsSync, TOPICS } from '@vrp/contracts';
import { describeSyncChange, type ConsumerRunner } from '@vrp/platform/consumer';
import type { Subscription } from '@vrp/platform/bus';
import type { ApplyPmsListing } from '../use-cases/pms-sync';

export const PMS_SYNC_GROUP = 'listing.pms-sync';

export class PmsSyncConsumer {
  private subscription: Subscription | null = null;

  constructor(private readonly deps: { consumers: ConsumerRunner; sync: ApplyPmsListing }) {}

  async start(): Promise<void> {
    this.subscription = await this.deps.consumers.subscribe({
      groupId: PMS_SYNC_GROUP,
      topics: [TOPICS.pmsSync],
      fromBeginning: true,
      decode: (bytes) => pmsSync.PmsSyncChange.decode(bytes),
      reportsSyncOutcomes: true,
      describe: (change) => describeSyncChange(change, change.entity === 'listing'),
      handle: async (change) => {
        await this.deps.sync.apply(change);
      },
    });
    await this.subscription.ready;
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
    this.subscription = null;
  }
}
