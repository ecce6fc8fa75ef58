// The API's JSON shapes as zod schemas. They validate input (in the gateway), type the
// handlers, give the Api* types of the renderers (z.infer) and are the source of the OpenAPI
// document, so the reference can never drift from what is served. Shared pieces live here, one
// module per resource beside it; every enum, pattern and limit comes from ../vocabulary.
// Schemas registered in `componentSchemas` become named `#/components/schemas/<id>` entries.
import { z } from 'zod';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT, MAX_PAGE_OFFSET } from '@vrp/platform/paging';
import { ERROR_CATALOG, type ErrorCode } from '@vrp/platform/errors';
import { DATE_CONFLICT_REASONS, MAX_ID_LENGTH } from '../vocabulary';

export const componentSchemas = z.registry<{ id: string; description?: string }>();

export function component<T extends z.ZodType>(id: string, description: string, schema: T): T {
  componentSchemas.add(schema, { id, description });
  return schema;
}

// ---- shared pieces ----

/** Wording for a value that is not a number at all; range problems keep their own wording. */
export const notANumber = (issue: { code: string }) => (issue.code === 'invalid_type' ? 'must be an integer' : undefined);

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

export const deletedSchema = component(
  'Deleted',
  'What a DELETE removed: its id, and `deleted: true`.',
  z.object({ id: z.string(), deleted: z.literal(true) }),
);

export const isoDateTime = z.iso.datetime().describe('ISO 8601, UTC.');
export const idParam = (description: string) => z.string().min(1).max(MAX_ID_LENGTH).describe(description);
/** An id in a body or a query (a listing id or a mapped channel id, a reservation id...). */
export const idInput = z.string().min(1).max(MAX_ID_LENGTH);

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
      listings: z
        .array(z.object({ id: z.string(), name: z.string() }))
        .optional()
        .describe('Only listing_inactive.'),
      provider: z.string().optional().describe('Only pms_write_unsupported: the PMS that cannot perform the write.'),
      conflicts: z
        .array(
          z.object({
            date: z.string().describe('YYYY-MM-DD: a night of the stay.'),
            reason: z
              .enum(DATE_CONFLICT_REASONS)
              .describe('booked: a PENDING or CONFIRMED reservation (or owner block) holds it; closed: closed on the calendar.'),
            reservationId: z.string().optional().describe('The reservation holding the night (reason booked).'),
          }),
        )
        .optional()
        .describe('Only dates_unavailable: every night of the request that is taken.'),
    }),
  }),
);
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;
