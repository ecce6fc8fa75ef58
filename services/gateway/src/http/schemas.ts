// The API's JSON shapes as zod schemas. They validate input, type the handlers, and are the
// source of the OpenAPI document, so the reference can never drift from what is served.
// Schemas registered in `componentSchemas` become named `#/components/schemas/<id>` entries.
import { z } from 'zod';
import { DEFAULT_PAGE_LIMIT, ERROR_CATALOG, MAX_PAGE_LIMIT, MAX_PAGE_OFFSET, type ErrorCode } from '@vrp/platform';
import { API_KEY_MODES } from '../domain/api-key';
import { ACTIVE_LISTING_LIMIT_MAX, WORKSPACE_NAME_MAX_LENGTH } from '../domain/workspace';

export const componentSchemas = z.registry<{ id: string; description?: string }>();

export function component<T extends z.ZodType>(id: string, description: string, schema: T): T {
  componentSchemas.add(schema, { id, description });
  return schema;
}

// ---- shared pieces ----

/** Wording for a value that is not a number at all; range problems keep their own wording. */
const notANumber = (issue: { code: string }) => (issue.code === 'invalid_type' ? 'must be an integer' : undefined);

/**
 * Integer query parameters. Query strings are text: the value must be written in decimal digits
 * (`0x10`, `1e1`, `+5` or an empty value are refused, not read as numbers); validation checks the
 * raw text of the parameters registered here before the schema coerces and range-checks it.
 */
export const integerQueryParams = new WeakSet<z.ZodType>();

/** An integer query parameter (query strings are text; coerced, then range-checked). */
export function intQueryParam(opts: { min: number; max?: number; default: number; description: string }) {
  let schema = z.coerce.number({ error: notANumber }).int({ error: 'must be an integer' }).min(opts.min);
  if (opts.max !== undefined) schema = schema.max(opts.max);
  const param = schema.default(opts.default).describe(opts.description);
  integerQueryParams.add(param);
  return param;
}

export const pageQuery = {
  limit: intQueryParam({ min: 1, max: MAX_PAGE_LIMIT, default: DEFAULT_PAGE_LIMIT, description: `Page size, 1..${MAX_PAGE_LIMIT}.` }),
  offset: intQueryParam({ min: 0, max: MAX_PAGE_OFFSET, default: 0, description: `Number of records to skip, 0..${MAX_PAGE_OFFSET}.` }),
};

export const paginationSchema = component(
  'Pagination',
  'Offset pagination of a list response.',
  z.object({
    total: z.number().int().min(0).describe('Records matching the request.'),
    limit: z.number().int().min(0),
    offset: z.number().int().min(0),
    hasMore: z.boolean().describe('True when records follow this page.'),
  }),
);

export const isoDateTime = z.iso.datetime().describe('ISO 8601, UTC.');
export const idParam = (description: string) => z.string().min(1).max(200).describe(description);

// ---- errors ----

const errorCodes = Object.keys(ERROR_CATALOG) as [ErrorCode, ...ErrorCode[]];

export const errorEnvelopeSchema = component(
  'ErrorEnvelope',
  'Every error response. `code` is stable and may be switched on.',
  z.object({
    error: z.object({
      code: z.enum(errorCodes),
      message: z.string().describe('Human-readable.'),
      fix: z.string().describe('Suggested remedy.'),
      docs_url: z.url().describe("URL of the error's documentation page."),
      request_id: z.string().describe('Also carried in the X-Request-Id response header.'),
      fields: z.record(z.string(), z.string()).optional().describe('Only validation_failed: parameter -> what is wrong with it.'),
      listing_ids: z.array(z.string()).optional().describe('Only listing_inactive: every inactive listing touched.'),
      listings: z.array(z.object({ id: z.string(), name: z.string() })).optional().describe('Only listing_inactive.'),
      provider: z.string().optional().describe('Only pms_write_unsupported: the PMS that cannot perform the write.'),
      conflicts: z
        .array(
          z.object({
            date: z.string().describe('YYYY-MM-DD: a night of the stay.'),
            reason: z.enum(['booked', 'closed']).describe('booked: a PENDING or CONFIRMED reservation (or owner block) holds it; closed: closed on the calendar.'),
            reservationId: z.string().optional().describe('The reservation holding the night (reason booked).'),
          }),
        )
        .optional()
        .describe('Only dates_unavailable: every night of the request that is taken.'),
    }),
  }),
);
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;

// ---- listings ----

export const listingStatusQuery = z
  .enum(['active', 'inactive', 'all'])
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

// ---- admin ----

export const workspaceSchema = component(
  'Workspace',
  'A tenant. Every API key belongs to exactly one workspace.',
  z.object({
    id: z.string(),
    name: z.string(),
    activeListingLimit: z.number().int().min(0),
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
  }),
);

export const workspaceUsageSchema = component(
  'WorkspaceUsage',
  'Listing counts of a workspace; inactive listings are not billed and do not count toward the limit.',
  z.object({
    activeListings: z.number().int(),
    inactiveListings: z.number().int(),
    billableListings: z.number().int(),
    activeListingLimit: z.number().int(),
  }),
);

export const workspaceNameInput = z.string().trim().min(1, 'must not be empty').max(WORKSPACE_NAME_MAX_LENGTH);
export const activeListingLimitInput = z
  .number({ error: notANumber })
  .int({ error: 'must be an integer' })
  .min(0)
  .max(ACTIVE_LISTING_LIMIT_MAX)
  .describe("Maximum number of active listings of the workspace's plan.");

export const apiKeyModeSchema = z.enum(API_KEY_MODES).describe('`test` keys start with sk_test_, `live` keys with sk_live_.');

export const apiKeySummarySchema = component(
  'ApiKey',
  'An issued API key, without its secret.',
  z.object({
    id: z.string(),
    workspaceId: z.string(),
    name: z.string().nullable(),
    mode: apiKeyModeSchema,
    prefix: z.string().describe('The first characters of the key, e.g. `sk_test_abcd…`.'),
    createdAt: isoDateTime,
    revokedAt: isoDateTime.nullable(),
  }),
);

export const createdApiKeySchema = component(
  'CreatedApiKey',
  'A newly issued key. `key` is shown only in this response; only its hash is kept.',
  apiKeySummarySchema.extend({ key: z.string().describe('The API key. Store it now: it cannot be shown again.') }),
);
