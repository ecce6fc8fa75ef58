// Guest, message and review events, written to the outbox in the same transaction as the change
// they describe (no event lost between a write and its publication). Guest events are keyed by
// guest id; message and review events by listing id (order per listing, as the webhook service
// drops events of inactive listings per listing).
import { guestEvents, TOPICS } from '@vrp/contracts';
import { newId } from '@vrp/platform/ids';
import type { OutboxMessage } from '@vrp/platform/outbox';
import type { GuestRecord } from '../domain/guest';
import type { ConversationRecord, MessageRecord, RequestRecord, ReviewRecord } from '../domain/messaging';
import { toProtoConversation, toProtoGuest, toProtoMessage, toProtoRequest, toProtoReview } from '../grpc/mappers';

type Change = 'created' | 'updated';

/** The fields every guest-service event starts with: a fresh event id, the tenant, the time. */
const envelope = (workspaceId: string, at: Date) => ({ eventId: newId('evt'), workspaceId, occurredAt: at });

/** An encoded event on its topic, keyed, with the event id, type and workspace in the headers. */
function outboxMessage(topic: string, key: string, type: string, event: { eventId: string; workspaceId: string }, value: Uint8Array): OutboxMessage {
  return { topic, key, value, headers: { 'event-id': event.eventId, 'event-type': type, 'workspace-id': event.workspaceId } };
}

const { GuestEventType, MessageEventType, ReviewEventType, RequestEventType } = guestEvents;
const GUEST_TYPE = { created: GuestEventType.GUEST_EVENT_TYPE_CREATED, updated: GuestEventType.GUEST_EVENT_TYPE_UPDATED };
const REVIEW_TYPE = { created: ReviewEventType.REVIEW_EVENT_TYPE_CREATED, updated: ReviewEventType.REVIEW_EVENT_TYPE_UPDATED };
const REQUEST_TYPE = { created: RequestEventType.REQUEST_EVENT_TYPE_CREATED, updated: RequestEventType.REQUEST_EVENT_TYPE_UPDATED };

export function guestEvent(guest: GuestRecord, type: Change, at: Date): OutboxMessage {
  const event = guestEvents.GuestEvent.create({
    ...envelope(guest.workspaceId, at),
    type: GUEST_TYPE[type],
    guest: toProtoGuest(guest),
    listingIds: guest.listingIds,
  });
  return outboxMessage(TOPICS.guestEvents.name, guest.id, `guest.${type}`, event, guestEvents.GuestEvent.encode(event).finish());
}

export function messageEvent(message: MessageRecord, conversation: ConversationRecord, at: Date): OutboxMessage {
  const received = message.direction === 'inbound';
  const event = guestEvents.MessageEvent.create({
    ...envelope(message.workspaceId, at),
    listingId: message.listingId,
    type: received ? MessageEventType.MESSAGE_EVENT_TYPE_RECEIVED : MessageEventType.MESSAGE_EVENT_TYPE_SENT,
    message: toProtoMessage(message),
    conversation: toProtoConversation(conversation),
  });
  const type = received ? 'message.received' : 'message.sent';
  return outboxMessage(TOPICS.messageEvents.name, message.listingId, type, event, guestEvents.MessageEvent.encode(event).finish());
}

export function reviewEvent(review: ReviewRecord, type: Change, at: Date): OutboxMessage {
  const event = guestEvents.ReviewEvent.create({
    ...envelope(review.workspaceId, at),
    listingId: review.listingId,
    type: REVIEW_TYPE[type],
    review: toProtoReview(review),
  });
  return outboxMessage(TOPICS.reviewEvents.name, review.listingId, `review.${type}`, event, guestEvents.ReviewEvent.encode(event).finish());
}

export function requestEvent(request: RequestRecord, type: Change, at: Date): OutboxMessage {
  const event = guestEvents.RequestEvent.create({
    ...envelope(request.workspaceId, at),
    listingId: request.listingId,
    type: REQUEST_TYPE[type],
    request: toProtoRequest(request),
  });
  return outboxMessage(TOPICS.requestEvents.name, request.listingId, `request.${type}`, event, guestEvents.RequestEvent.encode(event).finish());
}
