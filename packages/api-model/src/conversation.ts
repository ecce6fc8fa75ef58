// The API's JSON of conversations, messages, reviews and reservation requests/inquiries, from
// the guest service's proto messages. Responses and webhook payloads (message.received,
// review.created...) both use them; the types are the schemas' (./schemas/guest.ts).
import type { z } from 'zod';
import type { guest as pb } from '@vrp/contracts';
import type { conversationSchema, messageSchema, reservationRequestSchema, reviewSchema } from './schemas/guest';
import { isOneOf, REQUEST_STATUSES } from './vocabulary';

const iso = (d: Date | undefined): string => (d ?? new Date(0)).toISOString();
const isoOrNull = (d: Date | undefined): string | null => (d ? d.toISOString() : null);
const orNull = (v: string): string | null => (v === '' ? null : v);
/** A record's times; a record never updated shows its creation time as `updatedAt`. */
const times = (r: { createdAt?: Date | undefined; updatedAt?: Date | undefined }) => ({
  createdAt: iso(r.createdAt),
  updatedAt: iso(r.updatedAt ?? r.createdAt),
});
/** The record's PMS-side identity; null when it is not a PMS's. */
const pmsOf = (r: { provider: string; externalId: string }) => (r.provider ? { provider: r.provider, externalId: r.externalId } : null);

export type ApiConversation = z.infer<typeof conversationSchema>;
export type ApiMessage = z.infer<typeof messageSchema>;
export type ApiAttachment = ApiMessage['attachments'][number];
export type ApiReview = z.infer<typeof reviewSchema>;
export type ApiReservationRequest = z.infer<typeof reservationRequestSchema>;

export function toApiConversation(c: pb.Conversation): ApiConversation {
  return {
    id: c.id,
    propertyId: c.listingId,
    reservationId: orNull(c.reservationId),
    guestId: orNull(c.guestId),
    channel: orNull(c.channel),
    messageCount: c.messageCount,
    lastMessageAt: isoOrNull(c.lastMessageAt),
    ...times(c),
  };
}

export function toApiMessage(m: pb.Message): ApiMessage {
  return {
    id: m.id,
    conversationId: m.conversationId,
    propertyId: m.listingId,
    direction: m.direction === 'inbound' ? 'inbound' : 'outbound',
    body: m.body,
    attachments: m.attachments.map((a) => ({ url: a.url, name: orNull(a.name), contentType: orNull(a.contentType) })),
    sentAt: iso(m.sentAt),
    pms: m.provider ? { provider: m.provider, externalId: orNull(m.externalId) } : null,
  };
}

export function toApiReview(r: pb.Review): ApiReview {
  return {
    id: r.id,
    propertyId: r.listingId,
    reservationId: orNull(r.reservationId),
    guestId: orNull(r.guestId),
    guestName: r.guestName,
    rating: r.rating,
    body: r.body,
    channel: orNull(r.channel),
    reply: r.reply ? { body: r.reply.body, repliedAt: iso(r.reply.repliedAt) } : null,
    pms: pmsOf(r),
    submittedAt: iso(r.submittedAt),
    ...times(r),
  };
}

export function toApiReservationRequest(r: pb.ReservationRequest): ApiReservationRequest {
  return {
    id: r.id,
    propertyId: r.listingId,
    kind: r.kind === 'inquiry' ? 'inquiry' : 'request',
    status: isOneOf(REQUEST_STATUSES, r.status) ? r.status : 'pending',
    guestName: r.guestName,
    checkIn: r.checkIn,
    checkOut: r.checkOut,
    guests: r.guests,
    message: r.message,
    channel: orNull(r.channel),
    blockInstantBooking: r.blockInstantBooking,
    pms: pmsOf(r),
    ...times(r),
  };
}
