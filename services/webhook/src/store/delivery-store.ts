// Events and deliveries: the durable queue of the webhook service. Queries are written once as
// Mongo documents for both engines.
import { findPage, type PageWindow } from '@vrp/platform/paging';
import { notFound } from '@vrp/platform/errors';
import { type Collection, type DocumentStore, type Tx } from '@vrp/platform/store';
import { LRUCache } from 'lru-cache';
import { ACTIVITY_EVENT_TYPES } from '../domain/event-types';
import { eventSortKey, type DeliveryRecord, type DeliveryStatus, type DropReason, type WebhookEvent } from '../domain/delivery';
import { deliverySchema, eventSchema, queueSchema } from './schemas';

type EventDoc = Omit<WebhookEvent, 'id'> & { _id: string; [field: string]: unknown };
type DeliveryDoc = Omit<DeliveryRecord, 'id'> & { _id: string; dedupeKey: string; leaseUntil: Date | null; head: boolean; [field: string]: unknown };

const OPEN: readonly DeliveryStatus[] = ['pending', 'delivering'];
const PENDING: readonly DeliveryStatus[] = ['pending'];
/** Events kept in memory after a read (see DeliveryStore.event). */
const EVENTS_KEPT = 1000;

/** Claim the queue's next head in the settlement's write when it is due by `dueBy` (scheduling clock). */
export interface NextClaim {
  dueBy: Date;
  /** Wall-clock end of the claim's lease. */
  leaseUntil: Date;
}

/** A queue's new head after a settlement; `claimed`: the caller holds its claim and must attempt or release it. */
export interface Handover {
  next: DeliveryRecord | null;
  claimed: boolean;
}

const toEvent = ({ _id, ...rest }: EventDoc): WebhookEvent => ({ id: _id, ...rest });
const toDelivery = ({ _id, dedupeKey: _k, leaseUntil: _l, head: _h, ...rest }: DeliveryDoc): DeliveryRecord => ({ id: _id, ...rest });

export class DeliveryStore {
  readonly events: Collection<EventDoc>;
  readonly deliveries: Collection<DeliveryDoc>;
  private readonly queues: Collection<{ _id: string; turns?: number }>;
  /** Events read last (oldest first out): they never change once stored. */
  private readonly recentEvents = new LRUCache<string, Readonly<WebhookEvent>>({ max: EVENTS_KEPT });
  /** Reads of events in progress: the deliveries of one event are attempted side by side, and share one read. */
  private readonly eventReads = new Map<string, Promise<WebhookEvent | null>>();

  constructor(readonly store: DocumentStore) {
    this.events = store.collection<EventDoc>({ name: 'events', schema: eventSchema });
    this.deliveries = store.collection<DeliveryDoc>({ name: 'deliveries', schema: deliverySchema });
    this.queues = store.collection({ name: 'delivery_queues', schema: queueSchema });
  }

  /** Takes the queue's turn in this transaction (see queueSchema): a concurrent head decision conflicts. */
  private async lockQueue(subscriptionId: string, orderKey: string, tx: Tx): Promise<void> {
    await this.queues.updateOne({ _id: `${subscriptionId}:${orderKey}` }, { $inc: { turns: 1 } }, { upsert: true, tx });
  }

  /**
   * Stores an event and its deliveries in the caller's transaction. False when the event was
   * already stored (a redelivered bus message): nothing is queued twice. "Insert if new" is an
   * upsert that only sets on insert, never a failed insert: a write error aborts a transaction
   * (MongoDB), so catching a duplicate key and going on would fail the commit. Two concurrent
   * intakes of the same event conflict on the upsert; the loser is run again and finds it stored.
   * With `claim`, a delivery that is its queue's head and due by then is stored claimed already
   * (status delivering, with the lease): the caller hands it to its scheduler, which sends it
   * without a claim of its own (one write per delivery fewer when queues keep up), or
   * gives it back. Those claimed deliveries are returned.
   */
  async enqueue(event: WebhookEvent, deliveries: DeliveryRecord[], tx: Tx, claim?: NextClaim): Promise<false | DeliveryRecord[]> {
    const { id, ...rest } = event;
    const stored = await this.events.updateOne({ _id: id }, { $setOnInsert: { ...rest, sortKey: eventSortKey(event) } }, { upsert: true, tx });
    if (stored.upsertedId === null) return false;
    const docs: DeliveryDoc[] = [];
    const claimed: DeliveryRecord[] = [];
    for (const { id: deliveryId, ...d } of deliveries) {
      await this.lockQueue(d.subscriptionId, d.orderKey, tx);
      const head = !(await this.hasOpen(d.subscriptionId, d.orderKey, tx));
      const doc: DeliveryDoc = { _id: deliveryId, ...d, dedupeKey: `${d.subscriptionId}:${d.eventId}`, leaseUntil: null, head };
      if (head && claim && d.status === 'pending' && d.nextAttemptAt !== null && d.nextAttemptAt <= claim.dueBy) {
        Object.assign(doc, { status: 'delivering', leaseUntil: claim.leaseUntil });
        claimed.push(toDelivery(doc));
      }
      docs.push(doc);
    }
    // One write for the event's fan-out (every subscription's delivery), not one per subscription.
    if (docs.length > 0) await this.deliveries.insertMany(docs, { tx });
    return claimed;
  }

  async insertReplay(delivery: DeliveryRecord, tx?: Tx): Promise<DeliveryRecord> {
    const { id, ...rest } = delivery;
    // A replay has a queue of its own, so it is its head.
    return toDelivery(await this.deliveries.insertOne({ _id: id, ...rest, dedupeKey: `replay:${id}`, leaseUntil: null, head: true }, { tx }));
  }

  /**
   * A stored event. Events are written once (enqueue's `$setOnInsert`) and never changed, so the
   * last ones read are kept in memory: an event fans out to every subscription, and each of its
   * deliveries would otherwise read it again.
   */
  async event(id: string): Promise<WebhookEvent | null> {
    const kept = this.recentEvents.get(id);
    if (kept) return kept;
    // An event's deliveries are attempted side by side (a fan-out is handed to the scheduler at
    // once): they wait for the one read in progress instead of each reading it.
    let reading = this.eventReads.get(id);
    if (!reading) {
      reading = this.events
        .findOne({ _id: id })
        .then((doc) => {
          if (!doc) return null;
          const event = Object.freeze(toEvent(doc));
          this.recentEvents.set(id, event);
          return event;
        })
        .finally(() => this.eventReads.delete(id));
      this.eventReads.set(id, reading);
    }
    return reading;
  }

  async get(workspaceId: string, subscriptionId: string, id: string): Promise<DeliveryRecord> {
    const doc = await this.deliveries.findOne({ _id: id, workspaceId, subscriptionId });
    if (!doc) throw notFound('webhook delivery', id);
    return toDelivery(doc);
  }

  /** The delivery log of a subscription, newest first. */
  async page(
    workspaceId: string,
    subscriptionId: string,
    status: DeliveryStatus | null,
    window: PageWindow,
  ): Promise<{ deliveries: DeliveryRecord[]; total: number }> {
    const filter = { workspaceId, subscriptionId, ...(status ? { status } : {}) };
    const { docs, total } = await findPage(this.deliveries, filter, { _id: -1 }, window);
    return { deliveries: docs.map(toDelivery), total };
  }

  /** Queue heads whose time has come, oldest due first. */
  async due(now: Date, limit: number): Promise<DeliveryRecord[]> {
    const docs = await this.deliveries.find({ status: 'pending', head: true, nextAttemptAt: { $lte: now } }, { sort: { nextAttemptAt: 1, _id: 1 }, limit });
    return docs.map(toDelivery);
  }

  /** When the next pending delivery is due (to arm the scheduler's timer). */
  async nextDueAt(): Promise<Date | null> {
    const [doc] = await this.deliveries.find({ status: 'pending', head: true, nextAttemptAt: { $ne: null } }, { sort: { nextAttemptAt: 1 }, limit: 1 });
    return doc?.nextAttemptAt ?? null;
  }

  /**
   * True when the queue has an open delivery (one indexed read when a pending one exists, the
   * common case with a backlog). Sorted like oldestOpen, so that the embedded engine walks the
   * same ordered index instead of testing every delivery of the subscription.
   */
  private async hasOpen(subscriptionId: string, orderKey: string, tx: Tx): Promise<boolean> {
    for (const status of OPEN)
      if ((await this.deliveries.find({ subscriptionId, orderKey, status }, { sort: { _id: 1 }, limit: 1, tx })).length > 0) return true;
    return false;
  }

  /**
   * The oldest open delivery of a queue: only it may be sent. One query per open status, each an
   * equality prefix of the `{subscriptionId, orderKey, status, _id}` index walked in `_id` order,
   * so the answer costs the same however many settled deliveries the queue has behind it (a `$in`
   * over the statuses makes the embedded engine read them all).
   */
  private async oldestOpen(subscriptionId: string, orderKey: string, tx?: Tx, statuses: readonly DeliveryStatus[] = OPEN): Promise<DeliveryDoc | null> {
    // No projection: on the embedded engine a projection compiles a full mingo query per call,
    // which costs more than copying one small document.
    const firsts = await Promise.all(
      statuses.map(async (status) => (await this.deliveries.find({ subscriptionId, orderKey, status }, { sort: { _id: 1 }, limit: 1, tx }))[0]),
    );
    const open = firsts.filter((d): d is DeliveryDoc => d !== undefined).sort((x, y) => (x._id < y._id ? -1 : x._id > y._id ? 1 : 0));
    return open[0] ?? null;
  }

  /**
   * After a head settled: the next open delivery of the queue becomes its head, which is returned.
   * With `claim`, a next head that is pending and due is also claimed in the same write (status
   * delivering, with the lease): the sender that settled the queue sends it next, without a claim
   * of its own (one write per delivery fewer).
   */
  private async promote(subscriptionId: string, orderKey: string, tx: Tx, claim?: NextClaim, headSettled = false): Promise<Handover> {
    // Only a queue's head is ever claimed (status delivering), and a queue has one head. When this
    // transaction has just settled the claimed head, no delivery of the queue is delivering: the
    // next open one is the oldest pending (one read per delivery fewer).
    const next = await this.oldestOpen(subscriptionId, orderKey, tx, headSettled ? PENDING : OPEN);
    if (!next) {
      // The queue looks empty: an enqueue not visible to this snapshot may have decided "not
      // head" behind the delivery that just settled. Taking the queue's turn makes the two
      // conflict, and the one run again sees the other. When a next delivery is visible, the turn
      // is not needed: a concurrent enqueue sees an open delivery ahead of its own (the settled
      // one or this next) and is right not to be head, and this next becomes head (one write
      // per delivery fewer while a queue has a backlog).
      await this.lockQueue(subscriptionId, orderKey, tx);
      return { next: null, claimed: false };
    }
    if (claim && next.status === 'pending' && next.nextAttemptAt !== null && next.nextAttemptAt <= claim.dueBy) {
      const taken = await this.deliveries.updateOne(
        { _id: next._id, status: 'pending' },
        { $set: { head: true, status: 'delivering', leaseUntil: claim.leaseUntil } },
        { tx },
      );
      // Read as pending in this transaction, so it matches (a concurrent change is a write
      // conflict, and the transaction runs again); never hand over a claim that was not taken.
      if (taken.modifiedCount === 1) return { next: toDelivery({ ...next, head: true, status: 'delivering', leaseUntil: claim.leaseUntil }), claimed: true };
    }
    if (!next.head) await this.deliveries.updateOne({ _id: next._id, head: false }, { $set: { head: true } }, { tx });
    return { next: toDelivery({ ...next, head: true }), claimed: false };
  }

  /** Takes a pending delivery for sending; null when another sender (or a drop) got there first. */
  async claim(id: string, leaseUntil: Date): Promise<DeliveryRecord | null> {
    const doc = await this.deliveries.findOneAndUpdate({ _id: id, status: 'pending' }, { $set: { status: 'delivering', leaseUntil } });
    return doc ? toDelivery(doc) : null;
  }

  /**
   * Records an attempt's result on a claimed delivery; a settled head hands over to the next,
   * which is returned (the scheduler sends it next when it is due), claimed already when `claim`
   * is given and it is due by then. Next null when the delivery stays the head (a retry) or the
   * queue is empty.
   */
  async complete(d: Pick<DeliveryRecord, 'id' | 'subscriptionId' | 'orderKey'>, patch: Partial<DeliveryRecord>, claim?: NextClaim): Promise<Handover> {
    return this.store.transaction(async (tx) => {
      const settled = await this.deliveries.updateOne({ _id: d.id, status: 'delivering' }, { $set: { ...patch, leaseUntil: null } }, { tx });
      // Not matched: the claim was lost (its lease ran out and another sender may hold it now), so
      // the queue is read whole.
      return patch.status !== 'pending' ? this.promote(d.subscriptionId, d.orderKey, tx, claim, settled.matchedCount === 1) : { next: null, claimed: false };
    });
  }

  /**
   * Gives back a claim that will not be attempted (the scheduler stopped before sending it). Only
   * the claim with that lease: once settled, or claimed again by another sender, it is left alone.
   */
  async release(id: string, leaseUntil: Date): Promise<void> {
    await this.deliveries.updateOne({ _id: id, status: 'delivering', leaseUntil }, { $set: { status: 'pending', leaseUntil: null } });
  }

  /** Claims whose sender died (crash, kill -9): back to pending, to be sent again (at-least-once). */
  async releaseExpiredClaims(realNow: Date): Promise<number> {
    const res = await this.deliveries.updateMany({ status: 'delivering', leaseUntil: { $lt: realNow } }, { $set: { status: 'pending', leaseUntil: null } });
    return res.modifiedCount;
  }

  /**
   * Drops a head, pending or (`claimed`) claimed by the caller; the queue's next head is returned
   * (null: the queue is empty).
   */
  async drop(d: Pick<DeliveryRecord, 'id' | 'subscriptionId' | 'orderKey'>, reason: DropReason, now: Date, claimed = false): Promise<DeliveryRecord | null> {
    return this.store.transaction(async (tx) => {
      await this.deliveries.updateOne({ _id: d.id, status: claimed ? 'delivering' : 'pending' }, { $set: dropped(reason, now) }, { tx });
      return (await this.promote(d.subscriptionId, d.orderKey, tx)).next;
    });
  }

  /** Drops the pending deliveries and retries of a listing that became inactive. */
  async dropPendingOfListing(workspaceId: string, listingId: string, now: Date): Promise<number> {
    return this.store.transaction(async (tx) => {
      const res = await this.deliveries.updateMany(
        { workspaceId, listingId, status: 'pending', eventType: { $nin: ACTIVITY_EVENT_TYPES } },
        { $set: dropped('listing_inactive', now) },
        { tx },
      );
      // What stays open in those queues (activity events) needs a head again.
      const open = await this.deliveries.find({ workspaceId, listingId, status: { $in: OPEN } }, { projection: { subscriptionId: 1, orderKey: 1 }, tx });
      const queues = new Map(open.map((d) => [`${d.subscriptionId}\u0000${d.orderKey}`, d]));
      for (const d of queues.values()) await this.promote(d.subscriptionId, d.orderKey, tx);
      return res.modifiedCount;
    });
  }

  async dropPendingOfSubscription(subscriptionId: string, reason: DropReason, now: Date, tx?: Tx): Promise<number> {
    const res = await this.deliveries.updateMany({ subscriptionId, status: 'pending' }, { $set: dropped(reason, now) }, { tx });
    return res.modifiedCount;
  }
}

function dropped(reason: DropReason, now: Date) {
  return { status: 'dropped', droppedReason: reason, nextAttemptAt: null, completedAt: now, leaseUntil: null };
}
