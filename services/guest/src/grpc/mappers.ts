// Domain <-> proto for the guest service.
import { guest as pb } from '@vrp/contracts';
import { type GuestRecord } from '../domain/guest';
import type { Attachment, ConversationRecord, MessageRecord, RequestRecord, ReviewRecord } from '../domain/messaging';

export function toProtoGuest(g: GuestRecord): pb.Guest {
  return pb.Guest.create({
    id: g.id,
    workspaceId: g.workspaceId,
    firstName: g.firstName,
    lastName: g.lastName,
    language: g.language,
    contacts: g.contacts.map((c) => ({ type: c.type, value: c.value, isPrimary: c.isPrimary })),
    createdAt: g.createdAt,
    updatedAt: g.updatedAt,
    provider: g.provider,
    externalId: g.externalId,
    listingIds: g.listingIds,
    version: g.version,
  });
}

export function toProtoConversation(c: ConversationRecord): pb.Conversation {
  return pb.Conversation.create({
    id: c.id,
    workspaceId: c.workspaceId,
    listingId: c.listingId,
    reservationId: c.reservationId,
    guestId: c.guestId,
    channel: c.channel,
    messageCount: c.messageCount,
    lastMessageAt: c.lastMessageAt ?? undefined,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  });
}

export const toProtoAttachment = (a: Attachment): pb.Attachment => ({ url: a.url, name: a.name, contentType: a.contentType });
export const fromProtoAttachment = (a: pb.Attachment): Attachment => ({ url: a.url, name: a.name, contentType: a.contentType });

export function toProtoMessage(m: MessageRecord): pb.Message {
  return pb.Message.create({
    id: m.id,
    workspaceId: m.workspaceId,
    conversationId: m.conversationId,
    listingId: m.listingId,
    direction: m.direction,
    body: m.body,
    attachments: m.attachments.map(toProtoAttachment),
    sentAt: m.sentAt,
    provider: m.provider,
    externalId: m.externalId,
  });
}

export function toProtoReview(r: ReviewRecord): pb.Review {
  return pb.Review.create({
    id: r.id,
    workspaceId: r.workspaceId,
    listingId: r.listingId,
    reservationId: r.reservationId,
    guestId: r.guestId,
    guestName: r.guestName,
    rating: r.rating,
    body: r.body,
    channel: r.channel,
    provider: r.provider,
    externalId: r.externalId,
    reply: r.reply ? { body: r.reply.body, repliedAt: r.reply.repliedAt } : undefined,
    submittedAt: r.submittedAt,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  });
}

export function toProtoRequest(r: RequestRecord): pb.ReservationRequest {
  return pb.ReservationRequest.create({
    id: r.id,
    workspaceId: r.workspaceId,
    listingId: r.listingId,
    kind: r.kind,
    status: r.status,
    guestId: r.guestId,
    guestName: r.guestName,
    checkIn: r.checkIn,
    checkOut: r.checkOut,
    guests: r.guests,
    message: r.message,
    channel: r.channel,
    provider: r.provider,
    externalId: r.externalId,
    blockInstantBooking: r.blockInstantBooking,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  });
}
