// Collections of the listing service's own database.
import { Schema } from 'mongoose';
import { LISTING_STATUSES } from '@vrp/api-model';

const channelSchema = new Schema({ channel: { type: String, required: true }, externalId: { type: String, required: true } }, { _id: false });
const addressSchema = new Schema(
  {
    line1: { type: String, default: '' },
    line2: { type: String, default: '' },
    city: { type: String, default: '' },
    region: { type: String, default: '' },
    postalCode: { type: String, default: '' },
    country: { type: String, default: '' },
  },
  { _id: false },
);

export const listingSchema = new Schema(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    name: { type: String, required: true },
    status: { type: String, enum: LISTING_STATUSES, required: true },
    channels: { type: [channelSchema], default: [] },
    /** Every id the listing answers to (own id + channel ids), for one-query resolution. */
    aliases: { type: [String], default: [] },
    address: { type: addressSchema, default: () => ({}) },
    timezone: { type: String, default: 'UTC' },
    currency: { type: String, default: 'EUR' },
    maxGuests: { type: Number, default: 2, min: 0 },
    bedrooms: { type: Number, default: 1, min: 0 },
    bathrooms: { type: Number, default: 1, min: 0 },
    beds: { type: Number, default: 1, min: 0 },
    checkInTime: { type: String, default: '15:00' },
    checkOutTime: { type: String, default: '11:00' },
    pmsProvider: { type: String, default: '' },
    pmsExternalId: { type: String, default: '' },
    defaultNightlyPrice: { type: Number, default: 100, min: 0 },
    cleaningFee: { type: Number, default: 0, min: 0 },
    taxRate: { type: Number, default: 0, min: 0, max: 1 },
    publishedAt: { type: Date, default: null },
    activityVersion: { type: Number, default: 1 },
    version: { type: Number, default: 1, min: 0 },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
// Tenant-scoped listing pages in a stable order, by status.
listingSchema.index({ workspaceId: 1, status: 1, createdAt: 1, _id: 1 });
// A channel id resolves to exactly one listing in a workspace.
listingSchema.index({ workspaceId: 1, aliases: 1 }, { unique: true });
// A listing by the id its PMS knows it by (FindPmsListing, PMS sync, disconnecting an account).
listingSchema.index({ workspaceId: 1, pmsProvider: 1, pmsExternalId: 1 });

export const planSchema = new Schema(
  {
    _id: { type: String, required: true }, // workspace id
    activeListingLimit: { type: Number, required: true, min: 0 },
    /** Maintained in the same transaction as every status change (guarded increment). */
    activeListings: { type: Number, required: true, min: 0, default: 0 },
  },
  { versionKey: false },
);
