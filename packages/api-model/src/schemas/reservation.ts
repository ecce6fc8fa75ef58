// Schemas of the reservation endpoints: the record, the list query, the create
// and change bodies and the quote. The reservation service re-checks every rule; these give
// callers one 400 naming every bad field before anything is called.
import { z } from 'zod';
import {
  CURRENCY_PATTERN,
  CUSTOM_FIELD_KEY_PATTERN,
  MAX_CUSTOM_FIELD_KEY_LENGTH,
  MAX_CUSTOM_FIELD_VALUE_LENGTH,
  MAX_CUSTOM_FIELDS,
  MAX_NIGHTS,
  MAX_NOTE_LENGTH,
  MAX_PRICE,
  MAX_PRIMARY_GUEST_NAME_LENGTH,
  MAX_PRIMARY_GUEST_PHONE_LENGTH,
  RESERVATION_PLATFORMS,
  RESERVATION_SOURCES,
  RESERVATION_STATUSES,
  TIME_PATTERN,
  WRITABLE_RESERVATION_STATUSES,
} from '../vocabulary';
import { CREATE_REQUIRES_TOTAL_PRICE, listOfProviders, refusalNote } from '@vrp/pms-matrix';
import { component, idInput, isoDateTime, pageQuery, paginationSchema } from './common';
import { dateString } from './listing-data';

const time = z.string().regex(TIME_PATTERN, 'must be a time as HH:MM (24 h)');
const nonNegativeInt = z
  .number({ error: 'must be a non-negative integer' })
  .int({ error: 'must be a non-negative integer' })
  .min(0, 'must be a non-negative integer');
const money = z.number({ error: 'must be a number' }).min(0, 'must be >= 0').max(MAX_PRICE);
const customFieldsInput = z
  .record(
    z.string().min(1).max(MAX_CUSTOM_FIELD_KEY_LENGTH).regex(CUSTOM_FIELD_KEY_PATTERN, 'keys must not contain "." or start with "$"'),
    z.string().max(MAX_CUSTOM_FIELD_VALUE_LENGTH),
  )
  .refine((o) => Object.keys(o).length <= MAX_CUSTOM_FIELDS, `may hold at most ${MAX_CUSTOM_FIELDS} keys`);
const notesInput = z.strictObject({ host: z.string().max(MAX_NOTE_LENGTH).optional(), guest: z.string().max(MAX_NOTE_LENGTH).optional() });

const moneyLine = z.object({ type: z.string(), amount: z.number() });
export const breakdownSchema = component(
  'PriceBreakdown',
  'How a total is made up. Tax `rate` is a fraction (0.1 = 10 %). A caller-set total adds a CUSTOM_PRICE discount or fee so the lines add up.',
  z.object({
    basePrice: z.number().describe('Sum of the nightly prices.'),
    cleaningFee: z.number(),
    fees: z.array(moneyLine),
    taxes: z.array(moneyLine.extend({ rate: z.number().describe('Fraction, e.g. 0.06 for 6 %.') })),
    discounts: z.array(moneyLine),
  }),
);

export const reservationSchema = component(
  'Reservation',
  'A reservation. `notes` and `customFields` are returned in reads. POST_STAY is shown once the stay has ended (a confirmed reservation whose check-out day has come, UTC).',
  z.object({
    id: z.string(),
    propertyId: z.string().describe('The listing it belongs to.'),
    roomTypeId: z.string().nullable(),
    status: z.enum(RESERVATION_STATUSES),
    source: z.enum(RESERVATION_SOURCES),
    confirmationCode: z.string().describe('Assigned on create; unique in the workspace; 8 characters without look-alikes (no 0/O, 1/I/L, 2/Z, 5/S, 8/B, U/V).'),
    checkIn: z.string().describe('YYYY-MM-DD.'),
    checkOut: z.string().describe('YYYY-MM-DD.'),
    checkInTime: z.string().nullable().describe('HH:MM local time of the listing; null = the listing’s own check-in time.'),
    checkOutTime: z.string().nullable().describe('HH:MM local time; null = the listing’s own check-out time.'),
    primaryGuest: z
      .object({ firstName: z.string(), lastName: z.string(), email: z.string().nullable(), language: z.string().nullable(), phone: z.string().nullable() })
      .describe('The guest as booked; `email`, `language` and `phone` are null when not known.'),
    occupancy: z.object({ adults: z.number().int(), children: z.number().int(), infants: z.number().int(), pets: z.number().int() }),
    financials: z.object({
      totalPrice: z.number(),
      currency: z.string().describe('ISO 4217.'),
      paymentStatus: z.string().describe('UNPAID on create.'),
      breakdown: breakdownSchema,
    }),
    notes: z.object({ host: z.string(), guest: z.string() }),
    customFields: z.record(z.string(), z.string()),
    platform: z.string().nullable().describe('"owner" for an owner block; null for a guest stay.'),
    unitId: z.string().nullable().describe('The unit of a multi-unit listing booked, when one was chosen.'),
    tentativeHold: z.boolean().describe('A tentative hold rather than a firm booking.'),
    groupId: z.string().nullable().describe('Shared by the reservations of one group booking.'),
    pms: z.object({ provider: z.string(), externalId: z.string() }).nullable().describe('The PMS managing it and its id there; null when none.'),
    bookedAt: isoDateTime,
    updatedAt: isoDateTime,
    version: z.number().int().describe('Incremented by every change; single-record responses carry it as `ETag: "<version>"`, for `If-Match`.'),
    conflict: z
      .object({ reservationIds: z.array(z.string()).describe('The reservations holding nights this one overlaps.') })
      .nullable()
      .describe(
        'PMS listings only: set when a booking made in the PMS and one made here overlap. The PMS is the source of truth, so both are kept and flagged (and a reservation.updated webhook fires); resolve it in the PMS or by cancelling one. Null otherwise.',
      ),
  }),
);

export const reservationPageSchema = z.object({ data: z.array(reservationSchema), pagination: paginationSchema });

export const listReservationsQuery = z.strictObject({
  ...pageQuery,
  status: z
    .enum(RESERVATION_STATUSES)
    .optional()
    .describe('POST_STAY: the stay has ended (confirmed, check-out day reached). CONFIRMED: confirmed and not yet ended.'),
  property_id: idInput
    .optional()
    .describe('A listing id or mapped channel id. A listing the workspace does not have answers 404 not_found; an inactive listing 403 listing_inactive.'),
  check_in_after: dateString.optional().describe('YYYY-MM-DD; check-in on or after it.'),
  check_in_before: dateString.optional().describe('YYYY-MM-DD; check-in on or before it.'),
  source: z.enum(RESERVATION_SOURCES).optional(),
  updated_since: z.iso
    .datetime({ offset: true, error: 'must be an ISO 8601 timestamp, e.g. 2025-01-31T00:00:00Z' })
    .optional()
    .describe('Only reservations updated strictly after it.'),
});

export const createReservationBody = z.strictObject({
  propertyId: idInput.describe('A listing id or mapped channel id.'),
  checkIn: dateString.describe('YYYY-MM-DD.'),
  checkOut: dateString.describe(`YYYY-MM-DD, after checkIn (at most ${MAX_NIGHTS} nights).`),
  primaryGuest: z.strictObject({
    firstName: z.string().trim().min(1, 'is required').max(MAX_PRIMARY_GUEST_NAME_LENGTH),
    lastName: z.string().max(MAX_PRIMARY_GUEST_NAME_LENGTH).optional(),
    email: z.email({ error: 'must be an email address' }).optional(),
    phone: z.string().max(MAX_PRIMARY_GUEST_PHONE_LENGTH).optional(),
  }),
  occupancy: z
    .strictObject({ adults: nonNegativeInt, children: nonNegativeInt.default(0), infants: nonNegativeInt.default(0), pets: nonNegativeInt.default(0) })
    .optional()
    .describe('Default: 1 adult.'),
  financials: z
    .strictObject({
      totalPrice: money.optional().describe(`A custom total; default: the quoted price. Required on ${listOfProviders(CREATE_REQUIRES_TOTAL_PRICE)} listings.`),
      currency: z.string().regex(CURRENCY_PATTERN, 'must be an ISO 4217 code such as EUR').optional().describe('Default: the listing’s currency.'),
    })
    .optional(),
  source: z.enum(RESERVATION_SOURCES).optional().describe('Default DIRECT.'),
  platform: z
    .enum(RESERVATION_PLATFORMS)
    .optional()
    .describe(`"owner" makes an owner block. ${refusalNote('reservation.owner_block')}`),
  unitId: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe(`Book a specific unit of a multi-unit listing. ${refusalNote('reservation.unit_id')}`),
  tentativeHold: z
    .boolean()
    .optional()
    .describe(`Place a tentative hold. ${refusalNote('reservation.tentative_hold')}`),
  groupId: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe(`Makes the reservation part of a group booking (shared by its reservations). ${refusalNote('reservation.group_booking')}`),
  roomTypeId: z.string().max(100).optional(),
  notes: notesInput.optional(),
  customFields: customFieldsInput.optional(),
});

export const updateReservationBody = z
  .strictObject({
    status: z
      .enum(WRITABLE_RESERVATION_STATUSES, { error: `must be one of ${WRITABLE_RESERVATION_STATUSES.join(', ')} (POST_STAY follows from the dates)` })
      .optional(),
    checkIn: dateString.optional(),
    checkOut: dateString.optional(),
    notes: notesInput.optional(),
    customFields: customFieldsInput
      .optional()
      .describe(
        `Merged into the existing fields; an empty string removes a key. At most ${MAX_CUSTOM_FIELDS} keys in the request and on the reservation after the merge.`,
      ),
    propertyId: idInput.optional().describe(`Move the stay to another listing. ${refusalNote('reservation.move_listing')}`),
    checkInTime: time.optional().describe(refusalNote('reservation.change_times')),
    checkOutTime: time.optional().describe(refusalNote('reservation.change_times')),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'must change at least one field', path: [] });

export const quoteBody = z.strictObject({
  propertyId: idInput,
  checkIn: dateString,
  checkOut: dateString,
  occupancy: z
    .strictObject({ adults: nonNegativeInt, children: nonNegativeInt.default(0), infants: nonNegativeInt.default(0), pets: nonNegativeInt.default(0) })
    .optional(),
});

export const quoteSchema = component(
  'Quote',
  'The price of a stay from the listing’s calendar: nights x nightly price + cleaning fee + taxes.',
  z.object({
    propertyId: z.string(),
    checkIn: z.string(),
    checkOut: z.string(),
    nights: z.number().int(),
    currency: z.string(),
    totalPrice: z.number(),
    breakdown: breakdownSchema,
    available: z.boolean().describe('Every night is open on the calendar.'),
    unavailableDates: z.array(z.string()).describe('Nights of the stay that are closed.'),
  }),
);
