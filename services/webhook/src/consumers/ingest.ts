// The webhook service's consumer of every domain event topic: decodes a message into the
// webhook event it stands for (consumers/render.ts) and hands it to the intake (use-cases/intake.ts).
import type { ConsumerRunner } from '@vrp/platform/consumer';
import type { DeliveredMessage, Subscription } from '@vrp/platform/bus';
import type { ListingLookup } from '../ports/listings';
import type { EventIntake } from '../use-cases/intake';
import { SOURCE_DECODERS, SOURCE_TOPICS, toIncomingEvent } from './render';

/** The consumer group of ingest; new groups start at the end of each topic (no history replay). */
export const INGEST_GROUP = 'webhook-ingest';

export async function startIngestConsumer(consumers: ConsumerRunner, intake: EventIntake, listings: ListingLookup): Promise<Subscription> {
  // Failures: an undecodable message is a dead letter at once; the listing service (rendering
  // activity events) or the store being unavailable is transient, retried in place.
  const subscription = await consumers.subscribe<{ message: DeliveredMessage; workspaceId: string; listingId: string }>({
    groupId: INGEST_GROUP,
    topics: SOURCE_TOPICS,
    // A subscription receives what happens after it exists; committed offsets make restarts resume exactly.
    fromBeginning: false,
    decode: (bytes, message) => {
      const decoded = SOURCE_DECODERS[message.topic]?.(bytes);
      return { message, workspaceId: decoded?.workspaceId ?? '', listingId: decoded?.listingId ?? '' };
    },
    describe: (d) => ({ workspaceId: d.workspaceId, listingId: d.listingId }),
    handle: async ({ message }) => {
      const event = await toIncomingEvent(message.topic, message.value, listings);
      if (event) await intake.accept(event);
    },
  });
  await subscription.ready;
  return subscription;
}
