// Collections of the pms-adapter service's own database.
import { Schema } from 'mongoose';
import { CONNECTION_STATUSES } from '@vrp/api-model';
import { PMS_PROVIDERS } from '../domain/connection';

export const connectionSchema = new Schema(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    provider: { type: String, enum: PMS_PROVIDERS, required: true },
    accountId: { type: String, required: true },
    status: { type: String, enum: CONNECTION_STATUSES, required: true },
    createdAt: { type: Date, required: true },
    lastSyncedAt: { type: Date, default: null },
    cursor: { type: String, default: '0' },
  },
  { versionKey: false },
);
// A workspace's connections in a stable order.
connectionSchema.index({ workspaceId: 1, createdAt: 1, _id: 1 });
// One connection per PMS account within a workspace: a second one would import everything twice.
connectionSchema.index({ workspaceId: 1, provider: 1, accountId: 1 }, { unique: true });
// Connected accounts, for the scheduled sync (every workspace).
connectionSchema.index({ status: 1, _id: 1 });

/**
 * Which connection a PMS listing came from, recorded by the sync that published it: a relayed
 * write goes to the account that manages the listing when a workspace has several accounts of
 * the same PMS.
 */
export const listingRefSchema = new Schema(
  {
    _id: { type: String, required: true }, // <connectionId>:<listingExternalId>
    workspaceId: { type: String, required: true },
    provider: { type: String, enum: PMS_PROVIDERS, required: true },
    connectionId: { type: String, required: true },
    listingExternalId: { type: String, required: true },
  },
  { versionKey: false },
);
listingRefSchema.index({ workspaceId: 1, provider: 1, listingExternalId: 1 });
// What a disconnection deactivates.
listingRefSchema.index({ workspaceId: 1, connectionId: 1 });

const syncErrorSchema = new Schema(
  {
    source: { type: String, enum: ['pms', 'apply'], required: true },
    code: { type: String, default: '' },
    message: { type: String, default: '' },
    at: { type: Date, required: true },
    service: { type: String, default: '' },
    changeId: { type: String, default: '' },
  },
  { _id: false },
);

/** Sync health counters of one connection (_id = connection id); see domain/sync-health.ts. */
export const syncHealthSchema = new Schema(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    provider: { type: String, enum: PMS_PROVIDERS, required: true },
    lastSuccessfulSyncAt: { type: Date, default: null },
    lastAttemptAt: { type: Date, default: null },
    consecutiveFailures: { type: Number, default: 0 },
    published: { type: Number, default: 0 },
    applied: { type: Number, default: 0 },
    failed: { type: Number, default: 0 },
    deadLettered: { type: Number, default: 0 },
    lastError: { type: syncErrorSchema, default: null },
  },
  { versionKey: false },
);

/**
 * A published change whose outcome is not settled (_id = change id): pending until its owning
 * service reports it applied (then removed) or dead-lettered (kept until replayed or deleted).
 */
export const syncChangeSchema = new Schema(
  {
    _id: { type: String, required: true },
    connectionId: { type: String, required: true },
    workspaceId: { type: String, required: true },
    /** When the adapter read the change from the PMS (lag is measured from it). */
    readAt: { type: Date, required: true },
    status: { type: String, enum: ['pending', 'dead_lettered'], required: true },
    /** Its application failed at least once (counted once). */
    failed: { type: Boolean, default: false },
  },
  { versionKey: false },
);
// The oldest pending change of a connection (lag), and the counts per status.
syncChangeSchema.index({ connectionId: 1, status: 1, readAt: 1 });
