// Schemas of the listing toggles and of a listing's data: calendar, availability, content,
// photos and publishing.
import { z } from 'zod';
import {
  CONTENT_LANGUAGE_PATTERN,
  DATE_PATTERN,
  HOUSE_RULE_SWITCHES,
  MAX_AMENITIES,
  MAX_AMENITY_LENGTH,
  MAX_AVAILABILITY_UPDATES,
  MAX_CALENDAR_RANGE_DAYS,
  MAX_LISTING_DESCRIPTION_LENGTH,
  MAX_HOUSE_RULES_LENGTH,
  MAX_MIN_NIGHTS,
  MAX_PHOTO_CAPTION_LENGTH,
  MAX_PHOTO_URL_LENGTH,
  MAX_TOGGLE_LISTINGS,
} from '../vocabulary';
import { component, idInput, isoDateTime } from './common';

/** A real calendar date, YYYY-MM-DD (the listing service re-checks ranges). */
export const dateString = z
  .string()
  .regex(DATE_PATTERN, 'must be a date as YYYY-MM-DD')
  .refine((s) => {
    const d = new Date(`${s}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
  }, 'must be a real calendar date')
  .meta({ format: 'date' });

export const activeToggleBody = z.strictObject({
  active: z.boolean({ error: 'must be true or false' }).describe('true activates the listing, false deactivates it.'),
});

export const statusBatchBody = z.strictObject({
  listingIds: z
    .array(idInput)
    .min(1, 'must name at least one listing')
    .max(MAX_TOGGLE_LISTINGS, `must name at most ${MAX_TOGGLE_LISTINGS} listings`)
    .describe('Listing ids or channel ids mapped to listings.'),
  active: z.boolean({ error: 'must be true or false' }),
});

export const statusBatchResultSchema = component(
  'ListingStatusResult',
  'Outcome of POST /v1/listings/status: the listings changed and those already in the requested state.',
  z.object({ active: z.boolean(), updated: z.array(z.string()), unchanged: z.array(z.string()) }),
);

export const calendarQuery = z.strictObject({
  from: dateString.describe('First day, YYYY-MM-DD (inclusive).'),
  to: dateString.describe(`Last day, YYYY-MM-DD (inclusive); the range spans at most ${MAX_CALENDAR_RANGE_DAYS} days.`),
});

export const calendarSchema = component(
  'Calendar',
  'Availability and nightly prices of one listing, one entry per day.',
  z.object({
    listingId: z.string(),
    currency: z.string(),
    days: z.array(
      z.object({
        date: z.string(),
        available: z.boolean().describe('False when the night is closed on the calendar or booked by a reservation.'),
        price: z.number(),
        minNights: z.number().int(),
        reservationId: z.string().nullable().describe('The PENDING or CONFIRMED reservation (or owner block) holding the night; null when none.'),
      }),
    ),
  }),
);

export const availabilityBatchBody = z.strictObject({
  updates: z
    .array(
      z
        .strictObject({
          listingId: idInput.describe('Listing id or mapped channel id.'),
          from: dateString,
          to: dateString,
          available: z.boolean().optional(),
          price: z.number().finite().min(0).optional().describe('Nightly price in the listing currency.'),
          minNights: z.number().int('must be an integer').min(1).max(MAX_MIN_NIGHTS).optional(),
        })
        .refine((u) => u.available !== undefined || u.price !== undefined || u.minNights !== undefined, {
          message: 'must set at least one of available, price, minNights',
        }),
    )
    .min(1, 'must contain at least one update')
    .max(MAX_AVAILABILITY_UPDATES, `must contain at most ${MAX_AVAILABILITY_UPDATES} updates`),
});

export const availabilityResultSchema = component(
  'AvailabilityBatchResult',
  'Listings written by PATCH /v1/availability/batch and the number of listing-days written.',
  z.object({ listingIds: z.array(z.string()), daysUpdated: z.number().int() }),
);

const sectionValues = {
  description: z.string().min(1).max(MAX_LISTING_DESCRIPTION_LENGTH),
  amenities: z.array(z.string().min(1).max(MAX_AMENITY_LENGTH)).max(MAX_AMENITIES),
  house_rules: z.string().max(MAX_HOUSE_RULES_LENGTH),
  house_rule_switches: z.strictObject(
    Object.fromEntries(HOUSE_RULE_SWITCHES.map((s) => [s, z.boolean().optional()])) as Record<
      (typeof HOUSE_RULE_SWITCHES)[number],
      z.ZodOptional<z.ZodBoolean>
    >,
  ),
  rooms: z.strictObject({ bedrooms: z.number().int().min(0), bathrooms: z.number().min(0).multipleOf(0.5), beds: z.number().int().min(0) }),
  translations: z.record(
    z.string().regex(CONTENT_LANGUAGE_PATTERN, 'must be a language code like fr, pt-BR, es-419 or zh-Hant'),
    z.strictObject({ description: z.string().max(MAX_LISTING_DESCRIPTION_LENGTH).optional(), house_rules: z.string().max(MAX_HOUSE_RULES_LENGTH).optional() }),
  ),
};

export const contentSchema = component(
  'ContentSections',
  'Content sections of a listing, each optional: a section never written is absent. Sections a PMS cannot store are listed in `deferred` on write.',
  z.strictObject({
    description: sectionValues.description.optional(),
    amenities: sectionValues.amenities.optional(),
    house_rules: sectionValues.house_rules.optional(),
    house_rule_switches: sectionValues.house_rule_switches.optional(),
    rooms: sectionValues.rooms.optional(),
    translations: sectionValues.translations.optional(),
  }),
);

export const contentBody = z.strictObject({
  sections: contentSchema.refine((s) => Object.keys(s).length > 0, 'must contain at least one section').meta({ minProperties: 1 }),
});

export const contentResponseSchema = component(
  'ListingContent',
  'The content of a listing: its sections and when they last changed (null when never written).',
  z.object({
    listingId: z.string(),
    sections: contentSchema,
    updatedAt: isoDateTime.nullable(),
  }),
);

export const contentWriteResultSchema = component(
  'ContentWriteResult',
  'Outcome of PUT /v1/listings/{id}/content. On a PMS listing, `applied` sections were stored and accepted by the PMS; `deferred` ones are not stored because the PMS cannot store them (see `pms.errors`).',
  z.object({
    listingId: z.string(),
    applied: z.array(z.string()),
    deferred: z.array(z.string()),
    pms: z.object({ provider: z.string(), errors: z.array(z.object({ section: z.string(), message: z.string() })) }).nullable(),
    sections: contentSchema,
  }),
);

export const photoSchema = component(
  'Photo',
  'A photo of a listing.',
  z.object({ id: z.string(), url: z.string(), caption: z.string(), position: z.number().int(), createdAt: isoDateTime.nullable() }),
);

export const addPhotoBody = z.strictObject({
  url: z
    .url({ protocol: /^https$/, error: 'must be an https:// URL' })
    .max(MAX_PHOTO_URL_LENGTH)
    .meta({ pattern: '^https://', description: 'Public https URL of the image.' }),
  caption: z.string().max(MAX_PHOTO_CAPTION_LENGTH).default(''),
});

export const publishResultSchema = component(
  'PublishResult',
  'The channels the listing was published to.',
  z.object({ listingId: z.string(), publishedAt: isoDateTime.nullable(), channels: z.array(z.string()) }),
);
