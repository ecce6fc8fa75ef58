// Collections of the guest service's own database.
import { Schema } from 'mongoose';
import { CONTACT_TYPES, MESSAGE_DIRECTIONS, REQUEST_KINDS, REQUEST_STATUSES } from '@vrp/api-model';
import { LEASE_FIELDS } from '@vrp/platform/store';

const contactSchema = new Schema(
  {
    type: { type: String, enum: CONTACT_TYPES, required: true },
    value: { type: String, required: true },
    isPrimary: { type: Boolean, default: false },
  },
  { _id: false },
);

/** A reservation linked to a profile (ReservationLink). */
const linkFields = {
  reservationId: { type: String, required: true },
  listingId: { type: String, required: true },
  changedAt: { type: Date, default: null },
  /** The primary guest's contacts the reservation reported last (a later change replaces them). */
  email: { type: String, default: '' },
  phone: { type: String, default: '' },
};

/** A link as profiles embedded them before guest_reservation_links (read by the migration only). */
const embeddedLinkSchema = new Schema(linkFields, { _id: false });

export const guestSchema = new Schema(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    firstName: { type: String, required: true },
    lastName: { type: String, default: '' },
    language: { type: String, default: 'en' },
    contacts: { type: [contactSchema], default: [] },
    provider: { type: String, default: '' },
    externalId: { type: String, default: '' },
    /**
     * No longer written: links live in guest_reservation_links (one document each, so a profile
     * does not grow with its stays). Profiles written before keep theirs here until the guest
     * service's start moves them (GuestStore.migrateEmbeddedLinks).
     */
    reservations: { type: [embeddedLinkSchema], default: undefined },
    /** The email and phone the PMS's own guest record reported last (replaced when it changes them). */
    pmsContacts: { type: new Schema({ email: { type: String, default: '' }, phone: { type: String, default: '' } }, { _id: false }), default: null },
    /**
     * Kept with the reservation links (a new link adds its listing, a move recomputes them from
     * the guest's links): the distinct listings of the guest, so the
     * visibility rule of guests is one filter over an indexed array on both engines.
     */
    listingIds: { type: [String], default: [] },
    /**
     * Derived from the name on every write (see searchNameOf): case and accents are folded once
     * at write time, so search is a plain regex over one indexed field on both engines, with no
     * collation support needed from the embedded engine.
     */
    searchName: { type: String, required: true },
    /** When the PMS last changed the profile (sync); older sync changes are ignored. */
    sourceUpdatedAt: { type: Date, default: null },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
    /** Incremented by every change (the API's ETag); 0 on documents written before it existed. */
    version: { type: Number, default: 0, min: 0 },
    /** No longer written (change keys live in applied_requests); kept so older profiles validate. */
    changeKeys: { type: [String], default: undefined },
    /** The Idempotency-Key of the create that wrote it; '' when none. */
    idempotencyKey: { type: String, default: '' },
    /** Write lease of PMS-relayed changes (see @vrp/platform store/lease.ts). */
    ...LEASE_FIELDS,
  },
  { versionKey: false },
);
// A create's Idempotency-Key: a retry (even after a crash between commit and reply) finds the
// profile instead of creating a second one.
guestSchema.index({ workspaceId: 1, idempotencyKey: 1 }, { unique: true, partialFilterExpression: { idempotencyKey: { $gt: '' } } });
// Name search within a workspace and the alphabetical page order; _id last makes the order
// total, so pages neither repeat nor skip guests with the same name.
guestSchema.index({ workspaceId: 1, searchName: 1, _id: 1 });
guestSchema.index({ workspaceId: 1, provider: 1, externalId: 1 });

/**
 * One document per reservation linked to a guest profile (ReservationLink plus the profile):
 * `_id` = `<workspaceId>|<reservationId>`, unique on both engines, so a reservation is linked to
 * one profile at most. Written in the transaction that writes the profile; the profile document
 * itself stays of constant size whatever the number of stays (MongoDB's 16 MB document limit,
 * and a write that no longer re-casts every link).
 */
export const reservationLinkSchema = new Schema(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    guestId: { type: String, required: true },
    ...linkFields,
  },
  { versionKey: false },
);
// A profile's links (contact sources, the listings after a move).
reservationLinkSchema.index({ workspaceId: 1, guestId: 1 });

/**
 * One document per matching key (`email:…`, `phone:…`) of a workspace, claimed by the profile
 * it points to. `_id` = `<workspaceId>|<key>` is unique on both engines, so two reservations of
 * the same new guest processed at the same time cannot both create a profile: the second
 * transaction fails on the key, is redelivered by the bus, and then matches the first.
 */
export const matchKeySchema = new Schema(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    guestId: { type: String, required: true },
  },
  { versionKey: false },
);

export const conversationSchema = new Schema(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    listingId: { type: String, required: true },
    reservationId: { type: String, default: '' },
    guestId: { type: String, default: '' },
    channel: { type: String, default: '' },
    externalId: { type: String, default: '' },
    pmsReservationId: { type: String, default: '' },
    messageCount: { type: Number, default: 0 },
    lastMessageAt: { type: Date, default: null },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
// Newest first within a workspace; _id makes the order total.
conversationSchema.index({ workspaceId: 1, createdAt: -1, _id: -1 });
conversationSchema.index({ workspaceId: 1, reservationId: 1 });
conversationSchema.index({ workspaceId: 1, externalId: 1 });
conversationSchema.index({ workspaceId: 1, pmsReservationId: 1 });

const attachmentSchema = new Schema(
  { url: { type: String, required: true }, name: { type: String, default: '' }, contentType: { type: String, default: '' } },
  { _id: false },
);

export const messageSchema = new Schema(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    conversationId: { type: String, required: true },
    listingId: { type: String, required: true },
    direction: { type: String, enum: MESSAGE_DIRECTIONS, required: true },
    body: { type: String, default: '' },
    attachments: { type: [attachmentSchema], default: [] },
    sentAt: { type: Date, required: true },
    provider: { type: String, default: '' },
    externalId: { type: String, default: '' },
  },
  { versionKey: false },
);
// Oldest first within a conversation (reading order).
messageSchema.index({ workspaceId: 1, conversationId: 1, sentAt: 1, _id: 1 });
// Sync de-duplication: a PMS message is stored once.
messageSchema.index({ workspaceId: 1, provider: 1, externalId: 1 });

const replySchema = new Schema({ body: { type: String, required: true }, repliedAt: { type: Date, required: true } }, { _id: false });

export const reviewSchema = new Schema(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    listingId: { type: String, required: true },
    reservationId: { type: String, default: '' },
    guestId: { type: String, default: '' },
    guestName: { type: String, default: '' },
    rating: { type: Number, required: true, min: 1, max: 5 },
    body: { type: String, default: '' },
    channel: { type: String, default: '' },
    provider: { type: String, default: '' },
    externalId: { type: String, default: '' },
    reply: { type: replySchema, default: null },
    submittedAt: { type: Date, required: true },
    sourceUpdatedAt: { type: Date, required: true },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
reviewSchema.index({ workspaceId: 1, submittedAt: -1, _id: -1 });
reviewSchema.index({ workspaceId: 1, provider: 1, externalId: 1 });

export const requestSchema = new Schema(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    listingId: { type: String, required: true },
    kind: { type: String, enum: REQUEST_KINDS, required: true },
    status: { type: String, enum: REQUEST_STATUSES, required: true },
    guestId: { type: String, default: '' },
    guestName: { type: String, default: '' },
    checkIn: { type: String, default: '' },
    checkOut: { type: String, default: '' },
    guests: { type: Number, default: 0 },
    message: { type: String, default: '' },
    channel: { type: String, default: '' },
    provider: { type: String, default: '' },
    externalId: { type: String, default: '' },
    blockInstantBooking: { type: Boolean, default: false },
    sourceUpdatedAt: { type: Date, required: true },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
requestSchema.index({ workspaceId: 1, createdAt: -1, _id: -1 });
requestSchema.index({ workspaceId: 1, provider: 1, externalId: 1 });
