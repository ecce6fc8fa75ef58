// Schemas of guests, conversations and messages, reviews, and reservation
// requests/inquiries. The guest service re-checks every rule; these give callers one 400 naming
// every bad field before anything is called.
import { z } from 'zod';
import { PROVIDERS, refusalNote } from '@vrp/pms-matrix';
import {
  CONTACT_TYPES,
  DEFAULT_GUEST_LANGUAGE,
  GUEST_LANGUAGE_PATTERN,
  MAX_ATTACHMENT_URL_LENGTH,
  MAX_ATTACHMENTS,
  MAX_GUEST_NAME_LENGTH,
  MAX_ID_LENGTH,
  MAX_MESSAGE_LENGTH,
  MAX_REQUEST_NOTE_LENGTH,
  MAX_REVIEW_REPLY_LENGTH,
  MESSAGE_DIRECTIONS,
  REQUEST_KINDS,
  REQUEST_STATUSES,
} from '../vocabulary';
import { component, idInput, isoDateTime, pageQuery, paginationSchema } from './common';

const pms = z.object({ provider: z.string(), externalId: z.string() });
const optionalId = (description: string) => idInput.optional().describe(description);
const propertyFilter = optionalId(
  'Only data of this listing (listing id or mapped channel id). A listing the workspace does not have answers 404 not_found; an inactive listing 403 listing_inactive.',
);
const languageTag = z
  .string()
  .regex(GUEST_LANGUAGE_PATTERN, 'must be a language tag such as en or pt-BR')
  .describe('Language preference, a BCP 47 tag such as `en` or `pt-BR`.');
const name = (max: number) => z.string().trim().max(max);

// ---- guests ----

export const guestSchema = component(
  'Guest',
  'A guest profile. A reservation’s primary guest matches a profile of the workspace by email (case-insensitive), else by phone (digits only), else creates one.',
  z.object({
    id: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    language: z.string().describe(`Language preference; \`${DEFAULT_GUEST_LANGUAGE}\` by default on create.`),
    contacts: z.array(z.object({ type: z.enum(CONTACT_TYPES), value: z.string(), isPrimary: z.boolean() })),
    pms: pms.nullable().describe('The PMS the guest is linked to and its id there; null for a local profile.'),
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
    version: z.number().int().describe('Incremented by every change; single-record responses carry it as `ETag: "<version>"`, for `If-Match`.'),
  }),
);

export const listGuestsQuery = z.strictObject({
  search: z.string().max(MAX_ID_LENGTH).optional().describe('Search by name (first or last), case- and accent-insensitive, matching anywhere in the name.'),
  ...pageQuery,
});

export const createGuestBody = z.strictObject({
  firstName: name(MAX_GUEST_NAME_LENGTH).min(1, 'is required').describe('Required.'),
  lastName: name(MAX_GUEST_NAME_LENGTH).optional(),
  language: languageTag.optional(),
  email: z.email('must be an email address').max(254).optional().describe('Also used to match the profile to later reservations.'),
  phone: z
    .string()
    .regex(/^\+?[0-9 ().-]{6,30}$/, 'must be a phone number')
    .optional(),
  provider: z
    .enum(PROVIDERS)
    .optional()
    .describe(`Create the guest in this PMS too. ${refusalNote('guest.write')}`),
});

export const updateGuestBody = z
  .strictObject({
    firstName: name(MAX_GUEST_NAME_LENGTH).min(1, 'must not be empty').optional(),
    lastName: name(MAX_GUEST_NAME_LENGTH).optional(),
    language: languageTag.optional(),
  })
  .refine((b) => b.firstName !== undefined || b.lastName !== undefined || b.language !== undefined, {
    message: 'must change at least one of firstName, lastName, language',
  })
  .meta({ minProperties: 1 });

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
    direction: z.enum(MESSAGE_DIRECTIONS),
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

export const sendMessageBody = z
  .strictObject({
    body: z.string().max(MAX_MESSAGE_LENGTH).default('').describe('The text; may be empty only when attachments are sent.'),
    attachments: z
      .array(
        z.strictObject({
          url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(MAX_ATTACHMENT_URL_LENGTH),
          name: z.string().max(255).optional(),
          contentType: z.string().max(255).optional(),
        }),
      )
      .max(MAX_ATTACHMENTS)
      .default([])
      .describe(`Files to send. ${refusalNote('message.attachments')}`),
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
export const reviewReplyBody = z.strictObject({ body: z.string().trim().min(1, 'is required').max(MAX_REVIEW_REPLY_LENGTH).describe('The public reply.') });
export const reviewPageSchema = z.object({ data: z.array(reviewSchema), pagination: paginationSchema });

// ---- reservation requests and inquiries ----

export const reservationRequestSchema = component(
  'ReservationRequest',
  'A booking request awaiting the host’s answer (`kind: request`), or a question before booking (`kind: inquiry`).',
  z.object({
    id: z.string(),
    propertyId: z.string(),
    kind: z.enum(REQUEST_KINDS),
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
  kind: z.enum(REQUEST_KINDS).optional(),
  ...pageQuery,
});

const note = z.string().max(MAX_REQUEST_NOTE_LENGTH).optional().describe('A note to the guest.');
export const answerRequestBody = z.strictObject({ message: note }).optional();
export const preApproveBody = z
  .strictObject({
    blockInstantBooking: z
      .boolean({ error: 'must be true or false' })
      .default(false)
      .describe(`Keep instant booking blocked for this guest. ${refusalNote('inquiry.block_instant_booking')}`),
    message: note,
  })
  .optional();
export const requestPageSchema = z.object({ data: z.array(reservationRequestSchema), pagination: paginationSchema });
