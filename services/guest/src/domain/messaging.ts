// Conversations, messages, reviews and reservation requests/inquiries, and which PMS writes
// each action needs (the capability matrix decides whether the PMS can perform them). No I/O.
import { REQUEST_STATUSES as API_REQUEST_STATUSES, type MessageDirection, type RequestKind, type RequestStatus } from '@vrp/api-model';
import { newId } from '@vrp/platform/ids';
import { assertSupported, type PmsWrite } from '@vrp/pms-matrix';

export interface ConversationRecord {
  id: string;
  workspaceId: string;
  listingId: string;
  /** Empty for a conversation not tied to a reservation (an inquiry, a PMS thread). */
  reservationId: string;
  guestId: string;
  channel: string;
  /** The PMS's id of the thread, empty when none. */
  externalId: string;
  /** `<provider>/<PMS reservation id>` of a PMS reservation's conversation, empty when none. */
  pmsReservationId: string;
  messageCount: number;
  lastMessageAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface Attachment {
  url: string;
  name: string;
  contentType: string;
}

export type Direction = MessageDirection;

export interface MessageRecord {
  id: string;
  workspaceId: string;
  conversationId: string;
  listingId: string;
  direction: Direction;
  body: string;
  attachments: Attachment[];
  sentAt: Date;
  provider: string;
  externalId: string;
}

export interface ReviewRecord {
  id: string;
  workspaceId: string;
  listingId: string;
  reservationId: string;
  guestId: string;
  guestName: string;
  rating: number;
  body: string;
  channel: string;
  provider: string;
  externalId: string;
  reply: { body: string; repliedAt: Date } | null;
  submittedAt: Date;
  /** When the PMS last changed it; older sync changes are ignored. */
  sourceUpdatedAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

export type { RequestKind, RequestStatus };
export const REQUEST_STATUSES: readonly RequestStatus[] = API_REQUEST_STATUSES;

export interface RequestRecord {
  id: string;
  workspaceId: string;
  listingId: string;
  kind: RequestKind;
  status: RequestStatus;
  guestId: string;
  guestName: string;
  checkIn: string;
  checkOut: string;
  guests: number;
  message: string;
  channel: string;
  /** The PMS that relayed the request (the API says "relayed by PMS-F"), empty when none. */
  provider: string;
  externalId: string;
  blockInstantBooking: boolean;
  sourceUpdatedAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

export type Decision = 'accept' | 'decline';

/** Why an action does not fit the record's kind or state (409 conflict), or null when it does. */
export function answerProblem(request: Pick<RequestRecord, 'kind' | 'status'>): string | null {
  if (request.kind !== 'request') return 'Only reservation requests can be accepted or declined; pre-approve an inquiry instead.';
  if (request.status !== 'pending') return `The request is already ${request.status}.`;
  return null;
}

export function preApproveProblem(request: Pick<RequestRecord, 'kind' | 'status'>): string | null {
  if (request.kind !== 'inquiry') return 'Only inquiries can be pre-approved; accept or decline a reservation request instead.';
  if (request.status !== 'pending') return `The inquiry is already ${request.status}.`;
  return null;
}

export const statusAfter = (decision: Decision): RequestStatus => (decision === 'accept' ? 'accepted' : 'declined');

/** The PMS writes a message send needs: attachments are a capability of their own. */
export function messageWrites(attachments: number): PmsWrite[] {
  return attachments > 0 ? ['message.send', 'message.attachments'] : ['message.send'];
}

/** The PMS writes of a pre-approval: blocking instant booking is a capability of its own. */
export function preApprovalWrites(blockInstantBooking: boolean): PmsWrite[] {
  return blockInstantBooking ? ['inquiry.pre_approve', 'inquiry.block_instant_booking'] : ['inquiry.pre_approve'];
}

/** Refuses (422, nothing sent) when the PMS cannot perform every one of `writes`; no PMS, nothing to refuse. */
export function assertPmsCan(provider: string, writes: PmsWrite[]): void {
  if (!provider) return;
  for (const write of writes) assertSupported(provider, write);
}

/** A PMS reservation as conversations remember it: ids are unique per PMS only. */
export const pmsReservationKey = (provider: string, externalId: string): string => `${provider}/${externalId}`;

/** Whether two versions of a request say the same to the API (status, stay, guest, message). */
export function sameRequest(a: RequestRecord, b: RequestRecord): boolean {
  const seen = (r: RequestRecord) => [r.status, r.checkIn, r.checkOut, r.guests, r.guestName, r.message, r.channel, r.listingId].join('\u0000');
  return seen(a) === seen(b);
}

/** A new conversation without messages: of a reservation, of a PMS thread, or both. */
export function newConversation(
  of: Pick<ConversationRecord, 'workspaceId' | 'listingId' | 'reservationId' | 'guestId' | 'channel' | 'externalId' | 'pmsReservationId'>,
  now: Date,
): ConversationRecord {
  return { id: newId('cnv'), ...of, messageCount: 0, lastMessageAt: null, createdAt: now, updatedAt: now };
}
