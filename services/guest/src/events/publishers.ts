// Guest, message and review events, written to the outbox in the same transaction as the change
// they describe (no event lost between a write and its publication). Guest events are keyed by
// guest id; message and review events by listing id (order per listing, as the webhook service
// drops events of inactive listings per listing).
import { guestEvents, TOPICS } from '@vrp/contracts';
import { newId, type OutboxMessage } from '@vrp/platform';
import { listingIdsOf, type GuestRecord } from '../domain/guest';
import type { ConversationRecord, MessageRecord, RequestRecord, ReviewRecord } from '../domain/messaging';
import { toProtoConversation, toProtoGuest, toProtoMessage, toProtoRequest, toProtoReview } from '../grpc/mappers';

const headers = (eventId: string, type: string, workspaceId: string) => ({ 'event-id': eventId, 'event-type': type, 'workspace-id': workspaceId });

export function guestEvent(guest: GuestRecord, type: 'created' | 'updated', at: Date): OutboxMessage {
  const event = guestEvents.GuestEvent.create({
    eventId: newId('evt'),
    workspaceId: guest.workspaceId,
    type: type === 'created' ? guestEvents.GuestEventType.GUEST_EVENT_TYPE_CREATED : guestEvents.GuestEventType.GUEST_EVENT_TYPE_UPDATED,
    occurredAt: at,
    guest: toProtoGuest(guest),
    listingIds: listingIdsOf(guest.reservations),
  });
  return {
    topic: TOPICS.guestEvents.name,
    key: guest.id,
    value: guestEvents.GuestEvent.encode(event).finish(),
    headers: headers(event.eventId, `guest.${type}`, guest.workspaceId),
  };
}

export function messageEvent(message: MessageRecord, conversation: ConversationRecord, at: Date): OutboxMessage {
  const received = message.direction === 'inbound';
  const event = guestEvents.MessageEvent.create({
    eventId: newId('evt'),
    workspaceId: message.workspaceId,
    listingId: message.listingId,
    type: received ? guestEvents.MessageEventType.MESSAGE_EVENT_TYPE_RECEIVED : guestEvents.MessageEventType.MESSAGE_EVENT_TYPE_SENT,
    occurredAt: at,
    message: toProtoMessage(message),
    conversation: toProtoConversation(conversation),
  });
  return {
    topic: TOPICS.messageEvents.name,
    key: message.listingId,
    value: guestEvents.MessageEvent.encode(event).finish(),
    headers: headers(event.eventId, received ? 'message.received' : 'message.sent', message.workspaceId),
  };
}

export function reviewEvent(review: ReviewRecord, type: 'created' | 'updated', at: Date): OutboxMessage {
  const event = guestEvents.ReviewEvent.create({
    eventId: newId('evt'),
    workspaceId: review.workspaceId,
    listingId: review.listingId,
    type: type === 'created' ? guestEvents.ReviewEventType.REVIEW_EVENT_TYPE_CREATED : guestEvents.ReviewEventType.REVIEW_EVENT_TYPE_UPDATED,
    occurredAt: at,
    review: toProtoReview(review),
  });
  return {
    topic: TOPICS.reviewEvents.name,
    key: review.listingId,
    value: guestEvents.ReviewEvent.encode(event).finish(),
    headers: headers(event.eventId, `review.${type}`, review.workspaceId),
  };
}

export function requestEvent(request: RequestRecord, type: 'created' | 'updated', at: Date): OutboxMessage {
  const event = guestEvents.RequestEvent.create({
    eventId: newId('evt'),
    workspaceId: request.workspaceId,
    listingId: request.listingId,
    type: type === 'created' ? guestEvents.RequestEventType.REQUEST_EVENT_TYPE_CREATED : guestEvents.RequestEventType.REQUEST_EVENT_TYPE_UPDATED,
    occurredAt: at,
    request: toProtoRequest(request),
  });
  return {
    topic: TOPICS.requestEvents.name,
    key: request.listingId,
    value: guestEvents.RequestEvent.encode(event).finish(),
    headers: headers(event.eventId, `request.${type}`, request.workspaceId),
  };
}
