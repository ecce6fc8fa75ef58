// Schemas of a listing: the record, its list row, capabilities and the list query.
import { z } from 'zod';
import { CURRENCY_PATTERN, LISTING_STATUS_FILTERS, MAX_ID_LENGTH, MAX_LISTING_NAME_LENGTH, MAX_LISTING_NIGHTLY_PRICE, MODES } from '../vocabulary';
import { component, isoDateTime, paginationSchema } from './common';

export const listingStatusQuery = z
  .enum(LISTING_STATUS_FILTERS)
  .default('active')
  .describe('`inactive` or `all` include inactive listings; by default only active listings are returned.');

const channelMappingSchema = z.object({ channel: z.string(), externalId: z.string() });

const addressSchema = z.object({
  line1: z.string(),
  line2: z.string(),
  city: z.string(),
  region: z.string(),
  postalCode: z.string(),
  country: z.string().describe('ISO 3166-1 alpha-2.'),
});

export const listingSchema = component(
  'Listing',
  'An active listing (property).',
  z.object({
    id: z.string(),
    name: z.string(),
    status: z.literal('active'),
    channels: z.array(channelMappingSchema),
    address: addressSchema.nullable(),
    timezone: z.string().describe('IANA time zone.'),
    currency: z.string().describe('ISO 4217.'),
    maxGuests: z.number().int(),
    bedrooms: z.number().int(),
    bathrooms: z.number(),
    beds: z.number().int(),
    checkInTime: z.string().describe('HH:MM, local time of the listing.'),
    checkOutTime: z.string().describe('HH:MM, local time of the listing.'),
    pms: z.object({ provider: z.string(), externalId: z.string() }).nullable().describe('The PMS managing the listing, null when none.'),
    createdAt: isoDateTime.nullable(),
    updatedAt: isoDateTime.nullable(),
  }),
);

export const inactiveListingRowSchema = component(
  'InactiveListingRow',
  'A list row of an inactive listing: only id, name, status and channels.',
  z.object({ id: z.string(), name: z.string(), status: z.literal('inactive'), channels: z.array(channelMappingSchema) }),
);

export const listingRowSchema = component(
  'ListingRow',
  'A listing as collections and toggles answer it: the full `Listing` when active, the `InactiveListingRow` when inactive (tell them apart by `status`).',
  z.discriminatedUnion('status', [listingSchema, inactiveListingRowSchema]),
);

export const capabilitiesSchema = component(
  'Capabilities',
  'What the owning PMS supports. A flag states whether the PMS supports that write.',
  z.object({
    reservations: z.object({
      provider: z.string().nullable(),
      create: z.boolean(),
      modify: z.boolean(),
      cancel: z.boolean(),
      quote: z.boolean(),
      customPrice: z.boolean(),
      notes: z.boolean(),
    }),
    pms: z.object({
      provider: z.string().nullable(),
      reviewReplies: z.boolean(),
      requestAnswers: z.boolean(),
      preApprovals: z.boolean(),
      contentSections: z.array(z.string()),
      guests: z.boolean(),
      messageChannel: z.boolean(),
      messageAttachments: z.boolean(),
      calendar: z.boolean(),
    }),
  }),
);

export const listingWithCapabilitiesSchema = component(
  'ListingWithCapabilities',
  'An active listing including what its PMS supports.',
  listingSchema.extend({ capabilities: capabilitiesSchema }),
);

export const listingPageSchema = z.object({ data: z.array(listingRowSchema), pagination: paginationSchema });

/** POST /admin/v1/workspaces/{id}/listings: a listing no PMS manages. */
export const createListingBody = z.strictObject({
  mode: z.enum(MODES).describe('`live` creates it among the data live keys see, `test` in the test-mode sandbox of test keys.'),
  name: z.string().trim().min(1, 'must not be empty').max(MAX_LISTING_NAME_LENGTH),
  currency: z.string().regex(CURRENCY_PATTERN, 'must be an ISO 4217 code such as EUR').default('EUR'),
  defaultNightlyPrice: z.number().finite().positive().max(MAX_LISTING_NIGHTLY_PRICE).default(100).describe('Nightly price where the calendar sets none.'),
  cleaningFee: z.number().finite().min(0).max(MAX_LISTING_NIGHTLY_PRICE).default(0),
  taxRate: z.number().finite().min(0).max(1).default(0).describe('A fraction: 0.1 is 10 %.'),
  maxGuests: z.number().int().min(1).max(100).default(2),
  channels: z
    .array(
      z.strictObject({
        channel: z.string().trim().min(1).max(50).describe('e.g. CHANNEL_A'),
        externalId: z.string().trim().min(1).max(MAX_ID_LENGTH).describe('The listing’s id on that channel.'),
      }),
    )
    .max(20)
    .default([])
    .describe('Channel listings mapped to it: their ids name the listing everywhere a listing id is accepted.'),
  active: z.boolean().default(true).describe('Active listings count toward the plan (402 listings_limit_exceeded when it is full); false creates it inactive.'),
});
