// Held events: domain events whose delivery decision waits for the listing's activity to settle
// (domain/activity-decision.ts). Not queued for delivery: a held event becomes a webhook event
// with its deliveries when released, or disappears when dropped. Durable, because the bus offset
// of its message is committed once it is held.
import { DuplicateKeyError, type Collection, type DocumentStore, type Tx } from '@vrp/platform/store';
import { sortableId } from '@vrp/platform/ids';
import { Schema } from 'mongoose';
import type { WebhookEvent } from '../domain/delivery';

/** An event as ingest stores it, with the listings its delivery depends on. */
export interface DecidableEvent extends WebhookEvent {
  /** The listings whose activity decides (the event's listing, or a guest's listings). */
  listingIds: string[];
}

export interface HeldEvent {
  event: DecidableEvent;
  /** Release order: the order in which ingest held them. */
  seq: string;
  heldAt: Date;
  /** When the decision is taken at the latest. */
  decideAt: Date;
}

type HeldDoc = Omit<DecidableEvent, 'id'> & { _id: string; seq: string; heldAt: Date; decideAt: Date; [field: string]: unknown };

const heldSchema = new Schema(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    type: { type: String, required: true },
    listingId: { type: String, default: null },
    listingIds: { type: [String], default: [] },
    orderKey: { type: String, required: true },
    occurredAt: { type: Date, required: true },
    body: { type: String, required: true },
    seq: { type: String, required: true },
    heldAt: { type: Date, required: true },
    decideAt: { type: Date, required: true },
  },
  { versionKey: false },
);
// Re-decision when a listing's activity changes; the sweep of ended windows.
heldSchema.index({ workspaceId: 1, listingIds: 1, seq: 1 });
heldSchema.index({ decideAt: 1 });

const toHeld = ({ _id, seq, heldAt, decideAt, ...event }: HeldDoc): HeldEvent => ({ event: { id: _id, ...event }, seq, heldAt, decideAt });

export class HeldEventStore {
  private readonly held: Collection<HeldDoc>;

  constructor(store: DocumentStore) {
    this.held = store.collection<HeldDoc>({ name: 'held_events', schema: heldSchema });
  }

  /** Holds an event once: a redelivered message finds it held and changes nothing. */
  async hold(event: DecidableEvent, heldAt: Date, decideAt: Date): Promise<void> {
    const { id, ...rest } = event;
    try {
      await this.held.updateOne({ _id: id }, { $setOnInsert: { ...rest, seq: sortableId('hld'), heldAt, decideAt } }, { upsert: true });
    } catch (err) {
      // Two replicas holding the same redelivered message at once: the other one did.
      if (!(err instanceof DuplicateKeyError)) throw err;
    }
  }

  /** The held events that depend on a listing, in the order they were held. */
  async ofListing(workspaceId: string, listingId: string): Promise<HeldEvent[]> {
    return (await this.held.find({ workspaceId, listingIds: listingId }, { sort: { seq: 1 } })).map(toHeld);
  }

  /** Held events whose window has ended, in the order they were held. */
  async due(now: Date, limit: number): Promise<HeldEvent[]> {
    return (await this.held.find({ decideAt: { $lte: now } }, { sort: { seq: 1 }, limit })).map(toHeld);
  }

  /** When the next window ends (to arm a timer). */
  async nextDecideAt(): Promise<Date | null> {
    const [doc] = await this.held.find({}, { sort: { decideAt: 1 }, limit: 1, projection: { decideAt: 1 } });
    return doc?.decideAt ?? null;
  }

  async reschedule(id: string, decideAt: Date): Promise<void> {
    await this.held.updateOne({ _id: id }, { $set: { decideAt } });
  }

  /** Removes a held event; false when another replica (or an earlier pass) already took it. */
  async take(id: string, tx?: Tx): Promise<boolean> {
    return (await this.held.deleteOne({ _id: id }, { tx })).deletedCount === 1;
  }

  count(): Promise<number> {
    return this.held.countDocuments({});
  }
}
