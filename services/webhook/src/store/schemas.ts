// Collections of the webhook service's own database.
import { Schema } from 'mongoose';
import { DELIVERY_STATUSES, MODES } from '@vrp/api-model';

export const subscriptionSchema = new Schema(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    url: { type: String, required: true },
    description: { type: String, default: '' },
    eventTypes: { type: [String], default: [] },
    enabled: { type: Boolean, default: true },
    mode: { type: String, enum: MODES, default: 'test' },
    disabledReason: { type: String, default: null },
    disabledAt: { type: Date, default: null },
    secret: { type: String, required: true },
    previousSecret: { type: String, default: null },
    previousSecretExpiresAt: { type: Date, default: null },
    lastSuccessAt: { type: Date, default: null },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
// A workspace's subscriptions in a stable order; ingest reads a workspace's enabled ones.
subscriptionSchema.index({ workspaceId: 1, createdAt: 1, _id: 1 });

/** Events accepted for delivery; the id is the source event's id, so a replayed message is stored once. */
export const eventSchema = new Schema(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    type: { type: String, required: true },
    listingId: { type: String, default: null },
    orderKey: { type: String, required: true },
    occurredAt: { type: Date, required: true },
    body: { type: String, required: true },
    // The Events API: the listings a guest event depends on (it is hidden when all are inactive),
    // the order of the list (createdAt, then id: `<ISO time>|<id>`), and the end of its retention.
    listingIds: { type: [String], default: [] },
    sortKey: { type: String, default: null },
    expiresAt: { type: Date, default: null },
  },
  { versionKey: false },
);
// GET /v1/events, newest first: by workspace, by listing, by type.
eventSchema.index({ workspaceId: 1, sortKey: -1 });
eventSchema.index({ workspaceId: 1, listingId: 1, sortKey: -1 });
eventSchema.index({ workspaceId: 1, type: 1, sortKey: -1 });
// Retention: MongoDB removes an event once expiresAt has passed (the embedded engine: EventLog.purgeExpired).
eventSchema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });

export const deliverySchema = new Schema(
  {
    // Sortable ids: creation order within an order key is delivery order.
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    subscriptionId: { type: String, required: true },
    eventId: { type: String, required: true },
    eventType: { type: String, required: true },
    listingId: { type: String, default: null },
    orderKey: { type: String, required: true },
    // One original delivery per (subscription, event); replays get their own key.
    dedupeKey: { type: String, required: true },
    status: { type: String, enum: DELIVERY_STATUSES, required: true },
    // The oldest open delivery of its queue (subscription + order key): only heads are sent, and
    // the scheduler scans heads only, so a long blocked queue cannot starve the others.
    head: { type: Boolean, default: false },
    attempts: { type: Number, default: 0 },
    nextAttemptAt: { type: Date, default: null },
    lastAttemptAt: { type: Date, default: null },
    // Real time: a crashed sender's claim expires by the wall clock, whatever the scheduling clock says.
    leaseUntil: { type: Date, default: null },
    responseStatus: { type: Number, default: null },
    responseBody: { type: String, default: null },
    responseTimeMs: { type: Number, default: null },
    lastError: { type: String, default: null },
    createdAt: { type: Date, required: true },
    completedAt: { type: Date, default: null },
    droppedReason: { type: String, default: null },
    replayOf: { type: String, default: null },
  },
  { versionKey: false },
);
deliverySchema.index({ dedupeKey: 1 }, { unique: true });
// The scheduler's scan of due queue heads.
deliverySchema.index({ status: 1, head: 1, nextAttemptAt: 1, _id: 1 });
// Head of a queue: the oldest open delivery of a subscription + order key.
deliverySchema.index({ subscriptionId: 1, orderKey: 1, status: 1, _id: 1 });
// The delivery log of a subscription, newest first.
deliverySchema.index({ workspaceId: 1, subscriptionId: 1, _id: -1 });
// Dropping a listing's pending deliveries when it becomes inactive.
deliverySchema.index({ workspaceId: 1, listingId: 1, status: 1 });

/**
 * One document per delivery queue (subscription + order key). Every enqueue writes it, and so does
 * every settlement or drop that finds the queue empty behind it, so two such transactions conflict
 * and one is run again: snapshot isolation alone lets an enqueue and a completing head both decide
 * on a stale head (write skew: the new delivery would never become head). A settlement that finds
 * a next delivery needs no turn (see DeliveryStore.promote).
 */
export const queueSchema = new Schema(
  {
    _id: { type: String, required: true },
    turns: { type: Number, default: 0 },
  },
  { versionKey: false },
);
