// The API's JSON of conversations, messages, reviews and reservation requests/inquiries, from
// the guest service's proto messages. Responses and webhook payloads (message.received,
// review.created...) both use them.
import type { guest as pb } from '@vrp/contracts';

const iso = (d: Date | undefined): string => (d ?? new Date(0)).toISOString();
const isoOrNull = (d: Date | undefined): string | null => (d ? d.toISOString() : null);
const orNull = (v: string): string | null => (v === '' ? null : v);

export interface ApiConversation {
  id: string;
  propertyId: string;
  reservationId: string | null;
  guestId: string | null;
  channel: string | null;
  messageCount: number;
  lastMessageAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ApiAttachment {
  url: string;
  name: string | null;
  contentType: string | null;
}

export interface ApiMessage {
  id: string;
  conversationId: string;
  propertyId: string;
  direction: 'inbound' | 'outbound';
  body: string;
  attachments: ApiAttachment[];
  sentAt: string;
  /** The PMS the message travelled through, null when none. */
  pms: { provider: string; externalId: string | null } | null;
}

export interface ApiReview {
  id: string;
  propertyId: string;
  reservationId: string | null;
  guestId: string | null;
  guestName: string;
  rating: number;
  body: string;
  channel: string | null;
  reply: { body: string; repliedAt: string } | null;
  pms: { provider: string; externalId: string } | null;
  submittedAt: string;
  createdAt: string;
  updatedAt: string;
}

export interface ApiReservationRequest {
  id: string;
  propertyId: string;
  kind: 'request' | 'inquiry';
  status: 'pending' | 'accepted' | 'declined' | 'pre_approved' | 'expired';
  guestName: string;
  checkIn: string;
  checkOut: string;
  guests: number;
  message: string;
  channel: string | null;
  blockInstantBooking: boolean;
  pms: { provider: string; externalId: string } | null;
  createdAt: string;
  updatedAt: string;
}

export function toApiConversation(c: pb.Conversation): ApiConversation {
  return {
    id: c.id,
    propertyId: c.listingId,
    reservationId: orNull(c.reservationId),
    guestId: orNull(c.guestId),
    channel: orNull(c.channel),
    messageCount: c.messageCount,
    lastMessageAt: isoOrNull(c.lastMessageAt),
    createdAt: iso(c.createdAt),
    updatedAt: iso(c.updatedAt ?? c.createdAt),
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
    pms: r.provider ? { provider: r.provider, externalId: r.externalId } : null,
    submittedAt: iso(r.submittedAt),
    createdAt: iso(r.createdAt),
    updatedAt: iso(r.updatedAt ?? r.createdAt),
  };
}

const REQUEST_STATUSES = ['pending', 'accepted', 'declined', 'pre_approved', 'expired'] as const;

export function toApiReservationRequest(r: pb.ReservationRequest): ApiReservationRequest {
  return {
    id: r.id,
    propertyId: r.listingId,
    kind: r.kind === 'inquiry' ? 'inquiry' : 'request',
    status: (REQUEST_STATUSES as readonly string[]).includes(r.status) ? (r.status as ApiReservationRequest['status']) : 'pending',
    guestName: r.guestName,
    checkIn: r.checkIn,
    checkOut: r.checkOut,
    guests: r.guests,
    message: r.message,
    channel: orNull(r.channel),
    blockInstantBooking: r.blockInstantBooking,
    pms: r.provider ? { provider: r.provider, externalId: r.externalId } : null,
    createdAt: iso(r.createdAt),
    updatedAt: iso(r.updatedAt ?? r.createdAt),
  };
}
