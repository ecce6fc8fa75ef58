// Schemas of guests (spec 2.2, 4.2), conversations and messages, reviews, and reservation
// requests/inquiries. The guest service re-checks every rule; these give callers one 400 naming
// every bad field before anything is called.
import { z } from 'zod';
import { PROVIDERS } from '@vrp/pms-matrix';
import { component, isoDateTime, pageQuery, paginationSchema } from './schemas';

const pms = z.object({ provider: z.string(), externalId: z.string() });
const optionalId = (description: string) => z.string().min(1).max(200).optional().describe(description);
const propertyFilter = optionalId('Only data of this listing (listing id or mapped channel id). A listing the workspace does not have answers 404 not_found; an inactive listing 403 listing_inactive.');
const languageTag = z
  .string()
  .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'must be a language tag such as en or pt-BR')
  .describe('Language preference, a BCP 47 tag such as `en` or `pt-BR`.');
const name = (max: number) => z.string().trim().max(max);

// ---- guests ----

export const guestSchema = component(
  'Guest',
  'A guest profile (spec 2.2). A reservation’s primary guest matches a profile of the workspace by email (case-insensitive), else by phone (digits only), else creates one.',
  z.object({
    id: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    language: z.string().describe('Language preference; `en` by default on create.'),
    contacts: z.array(z.object({ type: z.enum(['EMAIL', 'PHONE']), value: z.string(), isPrimary: z.boolean() })),
    pms: pms.nullable().describe('The PMS the guest is linked to and its id there; null for a local profile.'),
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
    version: z.number().int().describe('Incremented by every change; single-record responses carry it as `ETag: "<version>"`, for `If-Match`.'),
  }),
);

export const listGuestsQuery = z.strictObject({
  search: z.string().max(200).optional().describe('Search by name (first or last), case- and accent-insensitive, matching anywhere in the name.'),
  ...pageQuery,
});

export const createGuestBody = z.strictObject({
  firstName: name(100).min(1, 'is required').describe('Required.'),
  lastName: name(100).optional(),
  language: languageTag.optional(),
  email: z.email('must be an email address').max(254).optional().describe('Also used to match the profile to later reservations.'),
  phone: z.string().regex(/^\+?[0-9 ().-]{6,30}$/, 'must be a phone number').optional(),
  provider: z
    .enum(PROVIDERS)
    .optional()
    .describe('Create the guest in this PMS too. PMS-F cannot write guests: 422 pms_write_unsupported, nothing is sent.'),
});

export const updateGuestBody = z
  .strictObject({
    firstName: name(100).min(1, 'must not be empty').optional(),
    lastName: name(100).optional(),
    language: languageTag.optional(),
  })
  .refine((b) => b.firstName !== undefined || b.lastName !== undefined || b.language !== undefined, { message: 'must change at least one of firstName, lastName, language' });

export const guestPageSchema = z.object({ data: z.array(guestSchema), pagination: paginationSchema });

// ---- conversations and messages ----

export const conversationSchema = component(
  'Conversation',
  'The message thread with a guest: one per reservation, or a PMS thread that arrived by sync.',
  z.object({
    id: z.string(),
    propertyId: z.string(),
    reservationId: z.string().nullable(),
    guestId: z.string().nullable(),
    channel: z.string().nullable(),
    messageCount: z.number().int(),
    lastMessageAt: isoDateTime.nullable(),
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
  }),
);

const attachmentOut = z.object({ url: z.string(), name: z.string().nullable(), contentType: z.string().nullable() });

export const messageSchema = component(
  'Message',
  'A message of a conversation: `inbound` from the guest, `outbound` to the guest.',
  z.object({
    id: z.string(),
    conversationId: z.string(),
    propertyId: z.string(),
    direction: z.enum(['inbound', 'outbound']),
    body: z.string(),
    attachments: z.array(attachmentOut),
    sentAt: isoDateTime,
    pms: z.object({ provider: z.string(), externalId: z.string().nullable() }).nullable().describe('The PMS the message travelled through, null when none.'),
  }),
);

export const listConversationsQuery = z.strictObject({
  property_id: propertyFilter,
  reservation_id: optionalId('Only the conversation of this reservation.'),
  guest_id: optionalId('Only conversations with this guest.'),
  ...pageQuery,
});

export const MAX_MESSAGE_LENGTH = 10_000;
export const MAX_ATTACHMENTS = 10;

export const sendMessageBody = z
  .strictObject({
    body: z.string().max(MAX_MESSAGE_LENGTH).default('').describe('The text; may be empty only when attachments are sent.'),
    attachments: z
      .array(
        z.strictObject({
          url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2000),
          name: z.string().max(255).optional(),
          contentType: z.string().max(255).optional(),
        }),
      )
      .max(MAX_ATTACHMENTS)
      .default([])
      .describe('Files to send. Refused (422 pms_write_unsupported) on listings managed in PMS-F or PMS-G.'),
  })
  .refine((b) => b.body.trim() !== '' || b.attachments.length > 0, { message: 'must send a non-empty body or at least one attachment', path: ['body'] });

export const conversationPageSchema = z.object({ data: z.array(conversationSchema), pagination: paginationSchema });
export const messagePageSchema = z.object({ data: z.array(messageSchema), pagination: paginationSchema });

// ---- reviews ----

export const reviewSchema = component(
  'Review',
  'A guest’s review of a stay, synced from the PMS or channel; `reply` once the host has replied.',
  z.object({
    id: z.string(),
    propertyId: z.string(),
    reservationId: z.string().nullable(),
    guestId: z.string().nullable(),
    guestName: z.string(),
    rating: z.number().describe('1 to 5.'),
    body: z.string(),
    channel: z.string().nullable(),
    reply: z.object({ body: z.string(), repliedAt: isoDateTime }).nullable(),
    pms: pms.nullable(),
    submittedAt: isoDateTime,
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
  }),
);

export const listReviewsQuery = z.strictObject({ property_id: propertyFilter, ...pageQuery });
export const reviewReplyBody = z.strictObject({ body: z.string().trim().min(1, 'is required').max(5000).describe('The public reply.') });
export const reviewPageSchema = z.object({ data: z.array(reviewSchema), pagination: paginationSchema });

// ---- reservation requests and inquiries ----

export const REQUEST_STATUSES = ['pending', 'accepted', 'declined', 'pre_approved', 'expired'] as const;

export const reservationRequestSchema = component(
  'ReservationRequest',
  'A booking request awaiting the host’s answer (`kind: request`), or a question before booking (`kind: inquiry`).',
  z.object({
    id: z.string(),
    propertyId: z.string(),
    kind: z.enum(['request', 'inquiry']),
    status: z.enum(REQUEST_STATUSES),
    guestName: z.string(),
    checkIn: z.string(),
    checkOut: z.string(),
    guests: z.number().int(),
    message: z.string(),
    channel: z.string().nullable(),
    blockInstantBooking: z.boolean(),
    pms: pms.nullable().describe('The PMS that relayed it, null when none.'),
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
  }),
);

export const listRequestsQuery = z.strictObject({
  property_id: propertyFilter,
  status: z.enum(REQUEST_STATUSES).optional(),
  kind: z.enum(['request', 'inquiry']).optional(),
  ...pageQuery,
});

const note = z.string().max(5000).optional().describe('A note to the guest.');
export const answerRequestBody = z.strictObject({ message: note }).optional();
export const preApproveBody = z
  .strictObject({
    blockInstantBooking: z.boolean({ error: 'must be true or false' }).default(false).describe('Keep instant booking blocked for this guest. Refused on PMS-G.'),
    message: note,
  })
  .optional();
export const requestPageSchema = z.object({ data: z.array(reservationRequestSchema), pagination: paginationSchema });
