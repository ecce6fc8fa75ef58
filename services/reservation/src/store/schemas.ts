// Collections of the reservation service's own database.
import { Schema } from 'mongoose';
import { LEASE_FIELDS } from '@vrp/platform/store';
import { DATE_PATTERN } from '@vrp/api-model';
import { PLATFORMS, RESERVATION_SOURCES, WRITABLE_STATUSES } from '../domain/reservation';

const primaryGuestSchema = new Schema(
  {
    firstName: { type: String, required: true },
    lastName: { type: String, default: '' },
    email: { type: String, default: '' },
    language: { type: String, default: '' },
    phone: { type: String, default: '' },
  },
  { _id: false },
);

const occupancySchema = new Schema(
  {
    adults: { type: Number, default: 1, min: 0 },
    children: { type: Number, default: 0, min: 0 },
    infants: { type: Number, default: 0, min: 0 },
    pets: { type: Number, default: 0, min: 0 },
  },
  { _id: false },
);

const amountLineSchema = new Schema({ type: { type: String, required: true }, amount: { type: Number, required: true } }, { _id: false });
const taxSchema = new Schema(
  { type: { type: String, required: true }, amount: { type: Number, required: true }, rate: { type: Number, default: 0 } },
  { _id: false },
);

const breakdownSchema = new Schema(
  {
    basePrice: { type: Number, default: 0 },
    cleaningFee: { type: Number, default: 0 },
    fees: { type: [amountLineSchema], default: [] },
    taxes: { type: [taxSchema], default: [] },
    discounts: { type: [amountLineSchema], default: [] },
  },
  { _id: false },
);

const financialsSchema = new Schema(
  {
    totalPrice: { type: Number, default: 0 },
    currency: { type: String, default: '' },
    paymentStatus: { type: String, default: '' },
    breakdown: { type: breakdownSchema, default: () => ({}) },
  },
  { _id: false },
);

const notesSchema = new Schema({ host: { type: String, default: '' }, guest: { type: String, default: '' } }, { _id: false });

const YMD = DATE_PATTERN;

export const reservationSchema = new Schema(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    propertyId: { type: String, required: true },
    roomTypeId: { type: String, default: '' },
    // POST_STAY is never stored: it follows from the dates (see domain effectiveStatus).
    status: { type: String, enum: WRITABLE_STATUSES, required: true },
    source: { type: String, enum: RESERVATION_SOURCES, required: true },
    confirmationCode: { type: String, required: true },
    // Strings, not Dates: a stay date has no time zone, and YYYY-MM-DD sorts as it should.
    checkIn: { type: String, required: true, match: YMD },
    checkOut: { type: String, required: true, match: YMD },
    primaryGuest: { type: primaryGuestSchema, required: true },
    guestId: { type: String, default: '' },
    occupancy: { type: occupancySchema, default: () => ({}) },
    financials: { type: financialsSchema, default: () => ({}) },
    bookedAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
    notes: { type: notesSchema, default: () => ({}) },
    customFields: { type: Schema.Types.Mixed, default: () => ({}) },
    checkInTime: { type: String, default: '' },
    checkOutTime: { type: String, default: '' },
    platform: { type: String, enum: ['', ...PLATFORMS], default: '' },
    unitId: { type: String, default: '' },
    tentativeHold: { type: Boolean, default: false },
    groupId: { type: String, default: '' },
    pmsProvider: { type: String, default: '' },
    pmsExternalId: { type: String, default: '' },
    pmsUpdatedAt: { type: Date, default: null },
    /** Incremented by every change (the API's ETag); 0 on documents written before it existed. */
    version: { type: Number, default: 0, min: 0 },
    /** PMS reservations: local reservations whose nights this one overlaps (see docs/reservations.md). */
    conflictsWith: { type: [String], default: [] },
    /** The caller's Idempotency-Key of the create; '' when none. */
    idempotencyKey: { type: String, default: '' },
    /** Write lease of PMS-relayed changes (see @vrp/platform store/lease.ts). */
    ...LEASE_FIELDS,
  },
  // minimize: false keeps `customFields: {}` stored as an empty object rather than dropped.
  { versionKey: false, minimize: false },
);
// Each index leads with workspaceId: every query is tenant-scoped.
// The default page: stable order by check-in, ties broken by id.
reservationSchema.index({ workspaceId: 1, checkIn: 1, _id: 1 });
// property_id filter, still in check-in order (also backs the check-in range within a property).
reservationSchema.index({ workspaceId: 1, propertyId: 1, checkIn: 1 });
// status filter, in check-in order (CONFIRMED / POST_STAY add a checkOut bound on top).
reservationSchema.index({ workspaceId: 1, status: 1, checkIn: 1 });
// source filter, in check-in order.
reservationSchema.index({ workspaceId: 1, source: 1, checkIn: 1 });
// updated_since (incremental sync by API clients).
reservationSchema.index({ workspaceId: 1, updatedAt: 1 });
// A confirmation code identifies one reservation within its workspace.
reservationSchema.index({ workspaceId: 1, confirmationCode: 1 }, { unique: true });
// A create's Idempotency-Key: a retry (even after a crash between commit and reply) finds the
// reservation instead of writing a second one.
reservationSchema.index({ workspaceId: 1, idempotencyKey: 1 }, { unique: true, partialFilterExpression: { idempotencyKey: { $gt: '' } } });
// PMS sync matches a PMS's reservation by its id there; one reservation per PMS id.
reservationSchema.index({ workspaceId: 1, pmsProvider: 1, pmsExternalId: 1 }, { unique: true, partialFilterExpression: { pmsExternalId: { $gt: '' } } });

/**
 * One document per night held by a PENDING or CONFIRMED reservation (owner blocks included):
 * `_id` = `${workspaceId}:${listingId}:${night}`, so two reservations can never hold the same
 * night of a listing, on either engine. Written in the same transaction as the reservation.
 */
export const bookedNightSchema = new Schema(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    listingId: { type: String, required: true },
    night: { type: String, required: true, match: YMD },
    reservationId: { type: String, required: true },
    // Set while the night is a pending hold (a write waiting for its PMS's answer): the hold
    // lapses at this time unless its holder renews it; null once it is the stay's night.
    holdUntil: { type: Date, default: null },
    // The Idempotency-Key of the write holding a pending hold ('' without one).
    holdKey: { type: String, default: '' },
  },
  { versionKey: false },
);
// The occupancy invariant, stated as an index too (the _id already implies it).
bookedNightSchema.index({ workspaceId: 1, listingId: 1, night: 1 }, { unique: true });
// Freeing a reservation's nights (cancel, date change, move).
bookedNightSchema.index({ workspaceId: 1, reservationId: 1 });

/** A listing's guard: written by the transactions that check nights they do not hold (NightStore.guardListing). */
export const nightGuardSchema = new Schema(
  {
    _id: { type: String, required: true },
    writes: { type: Number, default: 0 },
  },
  { versionKey: false },
);

/** A workspace's settings (`_id` = the workspace id), as the WorkspaceSettings schema of @vrp/api-model describes them. */
export const workspaceSettingsDocSchema = new Schema(
  {
    _id: { type: String, required: true },
    settings: { type: Schema.Types.Mixed, default: () => ({}) },
    updatedAt: { type: Date, required: true },
  },
  // minimize: false keeps `settings: {}` stored as an empty object.
  { versionKey: false, minimize: false },
);

/**
 * Progress of a one-time data migration of this database (`_id` = its name): the last
 * reservation id it finished (it resumes after it) and whether it is done.
 */
export const migrationSchema = new Schema(
  {
    _id: { type: String, required: true },
    after: { type: String, default: '' },
    done: { type: Boolean, default: false },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
