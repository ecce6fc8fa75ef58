// Consumes pms.sync.outcomes.v1: what the owning services (listing, reservation, guest) did with
// each pms.sync.v1 change, folded into the connection's sync health once per change.
import { syncHealth, TOPICS } from '@vrp/contracts';
import { PermanentError, type ConsumerRunner } from '@vrp/platform/consumer';
import type { Subscription } from '@vrp/platform/bus';
import type { OutcomeKind } from '../store/sync-health-store';
import { recordSyncOutcome, type SyncHealthDeps } from '../use-cases/sync-health';

export const OUTCOMES_GROUP = 'pms-adapter-sync-outcomes';
const KINDS: readonly OutcomeKind[] = ['applied', 'failed', 'dead_lettered', 'discarded'];

export async function startOutcomeConsumer(consumers: ConsumerRunner, deps: SyncHealthDeps): Promise<Subscription> {
  const subscription = await consumers.subscribe({
    groupId: OUTCOMES_GROUP,
    topics: [TOPICS.pmsSyncOutcomes],
    fromBeginning: true,
    decode: (bytes) => syncHealth.SyncChangeOutcome.decode(bytes),
    describe: (o) => ({ workspaceId: o.workspaceId }),
    handle: async (o) => {
      if (!o.changeId || !o.connectionId || !(KINDS as readonly string[]).includes(o.outcome)) {
        throw new PermanentError('malformed_payload', `sync outcome ${o.eventId} lacks a change, a connection or a known outcome ('${o.outcome}')`);
      }
      await recordSyncOutcome(deps, {
        changeId: o.changeId,
        connectionId: o.connectionId,
        service: o.service,
        outcome: o.outcome as OutcomeKind,
        errorCode: o.errorCode,
        errorMessage: o.errorMessage,
        at: o.occurredAt ?? new Date(),
      });
    },
  });
  await subscription.ready;
  return subscription;
}
