// Collections holding the data of a listing: calendar days, content and photos. Every document
// carries its workspace id, and every query filters by it (tenant isolation).
import { Schema } from 'mongoose';
import { DATE_PATTERN, MAX_PHOTO_CAPTION_LENGTH, MAX_PHOTO_URL_LENGTH } from '@vrp/api-model';

/**
 * One document per listing per date that somebody wrote (`_id` = `${listingId}:${date}`); days
 * without one read as the listing's defaults, so an empty calendar costs no storage.
 */
export const calendarDaySchema = new Schema(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    listingId: { type: String, required: true },
    /** YYYY-MM-DD, a local date of the listing; stored as a string so ranges sort and compare as text. */
    date: { type: String, required: true, match: DATE_PATTERN },
    available: { type: Boolean, required: true },
    price: { type: Number, required: true, min: 0 },
    minNights: { type: Number, required: true, min: 1, max: 365 },
  },
  { versionKey: false },
);
// Range reads of one listing's calendar; unique as a second guard against two docs per day.
calendarDaySchema.index({ workspaceId: 1, listingId: 1, date: 1 }, { unique: true });

export const listingContentSchema = new Schema(
  {
    _id: { type: String, required: true }, // the listing id: one document per listing
    workspaceId: { type: String, required: true },
    listingId: { type: String, required: true },
    /** Section name -> its value as sent (validated by domain/content.ts before it gets here). */
    sections: { type: Schema.Types.Mixed, default: () => ({}) },
    updatedAt: { type: Date, required: true },
    /** +1 on every write (the API's ETag); documents written before it read as 0. */
    version: { type: Number, default: 0, min: 0 },
  },
  // minimize: false keeps empty objects such as `house_rule_switches: {}`, which are values.
  { versionKey: false, minimize: false },
);
listingContentSchema.index({ workspaceId: 1, listingId: 1 });

export const listingPhotoSchema = new Schema(
  {
    _id: { type: String, required: true }, // pho_...
    workspaceId: { type: String, required: true },
    listingId: { type: String, required: true },
    url: { type: String, required: true, maxlength: MAX_PHOTO_URL_LENGTH },
    caption: { type: String, default: '', maxlength: MAX_PHOTO_CAPTION_LENGTH },
    /** 1-based; appended at max + 1, kept stable when another photo is removed. */
    position: { type: Number, required: true, min: 1 },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false },
);
// Ordered reads of one listing's photos; unique so two concurrent appends cannot share a slot
// (on MongoDB the loser's transaction hits a write conflict and is retried).
listingPhotoSchema.index({ workspaceId: 1, listingId: 1, position: 1 }, { unique: true });
