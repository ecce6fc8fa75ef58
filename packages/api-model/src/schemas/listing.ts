// Schemas of a listing (spec 2.3): the record, its list row, capabilities and the list query.
import { z } from 'zod';
import { LISTING_STATUS_FILTERS } from '../vocabulary';
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

export const listingRowSchema = z.discriminatedUnion('status', [listingSchema, inactiveListingRowSchema]);

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

