// Conversations and messages, reviews, and reservation requests/inquiries. Reads: 404 before 403,
// collections leave out inactive listings. Writes a PMS must perform: refused from the capability
// matrix before anything is sent (spec 7.2), else relayed through the pms-adapter, then stored
// with their event in one transaction. Sync changes are applied idempotently (by external id,
// and by the PMS's updatedAt where the entity can change).
import type { MessageSyncPayload, pmsSync, RequestSyncPayload, ReviewSyncPayload } from '@vrp/contracts';
import { AppError, newId, PermanentError, TransientError, validationFailed, type AppliedRequests, type DocumentStore, type Logger, type Outbox, type PageWindow, type RequestKey, type Tx } from '@vrp/platform';
import { ATTACHMENT_URL_PATTERN, MAX_ATTACHMENT_URL_LENGTH, MAX_ATTACHMENTS, MAX_MESSAGE_LENGTH, MAX_REQUEST_NOTE_LENGTH, MAX_REVIEW_REPLY_LENGTH } from '@vrp/api-model';
import { assertSupported, type PmsWrite } from '@vrp/pms-matrix';
import type { ListingAccess } from '../ports/access';
import {
  answerProblem,
  messageWrites,
  preApprovalWrites,
  preApproveProblem,
  statusAfter,
  type Attachment,
  type ConversationRecord,
  type Decision,
  type Direction,
  REQUEST_STATUSES,
  type MessageRecord,
  type RequestKind,
  type RequestRecord,
  type RequestStatus,
  type ReviewRecord,
} from '../domain/messaging';
import { messageEvent, requestEvent, reviewEvent } from '../events/publishers';
import type { PmsPort } from '../ports/pms';
import type { GuestStore } from '../store/guest-store';
import { listingScopedFilter, type MessagingStore } from '../store/messaging-store';

// The limits are the API's vocabulary (@vrp/api-model), which the gateway checks too.
export { MAX_ATTACHMENTS, MAX_MESSAGE_LENGTH };
export const MAX_REPLY_LENGTH = MAX_REVIEW_REPLY_LENGTH;

/** The host's note on an answer or a pre-approval (the API's `message`). */
function assertNote(note: string): void {
  if (note.length > MAX_REQUEST_NOTE_LENGTH) throw validationFailed({ message: `must be at most ${MAX_REQUEST_NOTE_LENGTH} characters` });
}

export interface MessagingDeps {
  store: DocumentStore;
  messaging: MessagingStore;
  guests: GuestStore;
  outbox: Outbox;
  access: ListingAccess;
  pms: PmsPort;
  logger: Logger;
  /** Idempotency-Keys of the writes, stored with them (service-side idempotency). */
  applied: AppliedRequests;
}

/** Refuses (422, nothing sent) when the PMS cannot perform every one of `writes`. */
function assertPmsCan(provider: string, writes: PmsWrite[]): void {
  if (!provider) return;
  for (const write of writes) assertSupported(provider, write);
}

/** A PMS reservation as conversations remember it: ids are unique per PMS only. */
const pmsReservationKey = (provider: string, externalId: string): string => `${provider}/${externalId}`;

/** A sync change that can never be applied (retrying it would block its partition forever). */
export class MalformedChange extends PermanentError {
  constructor(message: string) {
    super('malformed_payload', message);
    this.name = 'MalformedChange';
  }
}

/** A time a sync change must carry (a protobuf Timestamp, decoded). */
export function date(value: Date | undefined, what: string): Date {
  if (!value || Number.isNaN(value.getTime())) throw new MalformedChange(`${what} is missing or not a time`);
  return value;
}

export class Messaging {
  constructor(private readonly deps: MessagingDeps) {}

  private publishSoon(): void {
    void this.deps.outbox.flush().catch(() => undefined);
  }

  /** The collection filter of a listing-scoped list (403 when it names an inactive listing). */
  private scope(workspaceId: string, listingId: string, extra: Record<string, unknown> = {}) {
    return listingScopedFilter(workspaceId, {
      listingId: listingId ? this.deps.access.filterListing(workspaceId, listingId) : '',
      inactiveListingIds: this.deps.access.inactiveIds(workspaceId),
      extra,
    });
  }

  // ---- conversations and messages ----

  listConversations(workspaceId: string, f: { listingId: string; reservationId: string; guestId: string }, window: PageWindow) {
    const extra: Record<string, unknown> = {};
    if (f.reservationId) extra.reservationId = f.reservationId;
    if (f.guestId) extra.guestId = f.guestId;
    return this.deps.messaging.conversationPage(this.scope(workspaceId, f.listingId, extra), window);
  }

  async conversation(workspaceId: string, id: string): Promise<ConversationRecord> {
    const c = await this.deps.messaging.conversation(workspaceId, id);
    this.deps.access.assertActive(workspaceId, c.listingId);
    return c;
  }

  async listMessages(workspaceId: string, conversationId: string, window: PageWindow) {
    await this.conversation(workspaceId, conversationId);
    return this.deps.messaging.messagePage(workspaceId, conversationId, window);
  }

  /** A key already applied answers the message it sent; nothing is relayed or stored again. */
  send(workspaceId: string, conversationId: string, input: { body: string; attachments: Attachment[]; idempotencyKey: string }, key: RequestKey | null = null): Promise<MessageRecord> {
    return this.deps.applied.once(
      key,
      () => this.sendOnce(workspaceId, conversationId, input, key),
      (messageId) => this.deps.messaging.message(workspaceId, messageId),
    );
  }

  private async sendOnce(workspaceId: string, conversationId: string, input: { body: string; attachments: Attachment[]; idempotencyKey: string }, key: RequestKey | null): Promise<MessageRecord> {
    const c = await this.conversation(workspaceId, conversationId);
    const problems: Record<string, string> = {};
    if (!input.body.trim() && input.attachments.length === 0) problems.body = 'is required (or send at least one attachment)';
    if (input.body.length > MAX_MESSAGE_LENGTH) problems.body = `must be at most ${MAX_MESSAGE_LENGTH} characters`;
    if (input.attachments.length > MAX_ATTACHMENTS) problems.attachments = `must contain at most ${MAX_ATTACHMENTS} attachments`;
    input.attachments.forEach((a, i) => {
      if (!ATTACHMENT_URL_PATTERN.test(a.url)) problems[`attachments.${i}.url`] = 'must be an http(s) URL';
      else if (a.url.length > MAX_ATTACHMENT_URL_LENGTH) problems[`attachments.${i}.url`] = `must be at most ${MAX_ATTACHMENT_URL_LENGTH} characters`;
    });
    if (Object.keys(problems).length) throw validationFailed(problems);

    const listing = await this.deps.pms.listing(workspaceId, c.listingId);
    assertPmsCan(listing.provider, messageWrites(input.attachments.length));
    const id = newId('msg');
    let externalId = '';
    if (listing.provider) {
      ({ entityExternalId: externalId } = await this.deps.pms.relay({
        workspaceId,
        provider: listing.provider,
        operation: 'message.send',
        listingExternalId: listing.externalId,
        entityExternalId: c.externalId,
        payload: { conversationId: c.id, conversationExternalId: c.externalId, reservationId: c.reservationId, body: input.body, attachments: input.attachments },
        idempotencyKey: input.idempotencyKey || id,
      }));
    }
    const now = new Date();
    const message: MessageRecord = {
      id,
      workspaceId,
      conversationId: c.id,
      listingId: c.listingId,
      direction: 'outbound',
      body: input.body,
      attachments: input.attachments,
      sentAt: now,
      provider: listing.provider,
      externalId,
    };
    const saved = await this.deps.store.transaction(async (tx) => {
      const stored = await this.deps.messaging.insertMessage(message, tx);
      await this.deps.applied.remember(key, stored.id, tx);
      const updated = await this.deps.messaging.noteMessage(c, now, tx);
      await this.deps.outbox.add(tx, [messageEvent(stored, updated, now)]);
      return stored;
    });
    this.publishSoon();
    return saved;
  }

  // ---- reviews ----

  listReviews(workspaceId: string, f: { listingId: string }, window: PageWindow) {
    return this.deps.messaging.reviewPage(this.scope(workspaceId, f.listingId), window);
  }

  async review(workspaceId: string, id: string): Promise<ReviewRecord> {
    const r = await this.deps.messaging.review(workspaceId, id);
    this.deps.access.assertActive(workspaceId, r.listingId);
    return r;
  }

  /** A key already applied answers the review as it is; nothing is relayed or stored again. */
  reply(workspaceId: string, id: string, body: string, key: RequestKey | null = null): Promise<ReviewRecord> {
    return this.deps.applied.once(
      key,
      () => this.replyOnce(workspaceId, id, body, key),
      (reviewId) => this.deps.messaging.review(workspaceId, reviewId),
    );
  }

  private async replyOnce(workspaceId: string, id: string, body: string, key: RequestKey | null): Promise<ReviewRecord> {
    const review = await this.review(workspaceId, id);
    if (!body.trim()) throw validationFailed({ body: 'is required' });
    if (body.length > MAX_REPLY_LENGTH) throw validationFailed({ body: `must be at most ${MAX_REPLY_LENGTH} characters` });
    if (review.reply) throw new AppError('conflict', 'This review already has a reply; a review can be replied to once.');
    assertPmsCan(review.provider, ['review.reply']);
    if (review.provider) {
      const listing = await this.deps.pms.listing(workspaceId, review.listingId);
      await this.deps.pms.relay({
        workspaceId,
        provider: review.provider,
        operation: 'review.reply',
        listingExternalId: listing.externalId,
        entityExternalId: review.externalId,
        payload: { body },
        idempotencyKey: `${review.id}:reply`,
      });
    }
    const now = new Date();
    const saved = await this.deps.store.transaction(async (tx) => {
      const out = await this.deps.messaging.upsertReview({ ...review, reply: { body, repliedAt: now }, updatedAt: now }, tx);
      await this.deps.applied.remember(key, out.id, tx);
      await this.deps.outbox.add(tx, [reviewEvent(out, 'updated', now)]);
      return out;
    });
    this.publishSoon();
    return saved;
  }

  // ---- reservation requests and inquiries ----

  listRequests(workspaceId: string, f: { listingId: string; status: string; kind: string }, window: PageWindow) {
    const extra: Record<string, unknown> = {};
    if (f.status) extra.status = f.status;
    if (f.kind) extra.kind = f.kind;
    return this.deps.messaging.requestPage(this.scope(workspaceId, f.listingId, extra), window);
  }

  async request(workspaceId: string, id: string): Promise<RequestRecord> {
    const r = await this.deps.messaging.request(workspaceId, id);
    this.deps.access.assertActive(workspaceId, r.listingId);
    return r;
  }

  /** A key already applied answers the request as it is now (409 conflict only without a key). */
  answer(workspaceId: string, id: string, decision: Decision, note: string, key: RequestKey | null = null): Promise<RequestRecord> {
    assertNote(note);
    return this.deps.applied.once(
      key,
      async () => {
        const r = await this.request(workspaceId, id);
        const problem = answerProblem(r);
        if (problem) throw new AppError('conflict', problem);
        assertPmsCan(r.provider, ['request.answer']);
        await this.relayRequestWrite(r, 'request.answer', { decision, message: note });
        return this.transition(r, { status: statusAfter(decision) }, key);
      },
      (requestId) => this.deps.messaging.request(workspaceId, requestId),
    );
  }

  preApprove(workspaceId: string, id: string, blockInstantBooking: boolean, note: string, key: RequestKey | null = null): Promise<RequestRecord> {
    assertNote(note);
    return this.deps.applied.once(
      key,
      async () => {
        const r = await this.request(workspaceId, id);
        const problem = preApproveProblem(r);
        if (problem) throw new AppError('conflict', problem);
        assertPmsCan(r.provider, preApprovalWrites(blockInstantBooking));
        await this.relayRequestWrite(r, 'inquiry.pre_approve', { blockInstantBooking, message: note });
        return this.transition(r, { status: 'pre_approved', blockInstantBooking }, key);
      },
      (requestId) => this.deps.messaging.request(workspaceId, requestId),
    );
  }

  private async relayRequestWrite(r: RequestRecord, operation: PmsWrite, payload: Record<string, unknown>): Promise<void> {
    if (!r.provider) return;
    const listing = await this.deps.pms.listing(r.workspaceId, r.listingId);
    await this.deps.pms.relay({
      workspaceId: r.workspaceId,
      provider: r.provider,
      operation,
      listingExternalId: listing.externalId,
      entityExternalId: r.externalId,
      payload,
      idempotencyKey: `${r.id}:${operation}`,
    });
  }

  private async transition(r: RequestRecord, set: Partial<RequestRecord>, key: RequestKey | null): Promise<RequestRecord> {
    const out = await this.deps.store.transaction(async (tx) => {
      const moved = await this.deps.messaging.transitionRequest(r, 'pending', set, tx);
      if (moved) {
        await this.deps.applied.remember(key, moved.id, tx);
        await this.deps.outbox.add(tx, [requestEvent(moved, 'updated', new Date())]);
      }
      return moved;
    });
    if (!out) throw new AppError('conflict', 'The request was answered meanwhile; read it again.');
    this.publishSoon();
    return out;
  }

  /**
   * Opens the conversation of a reservation (one per reservation), or follows the reservation
   * to another listing. Replaying the same reservation changes nothing.
   */
  async openForReservation(workspaceId: string, event: { id: string; propertyId: string; source: string; pmsProvider?: string; pmsExternalId?: string }, guestId: string, tx: Tx): Promise<void> {
    // The listing is the one the guest's link holds (applyReservation ran first, in this
    // transaction): it is version-checked, so a replayed or overtaken older event cannot move
    // the conversation back.
    const link = (await this.deps.guests.byReservation(workspaceId, event.id, tx))?.reservations.find((l) => l.reservationId === event.id);
    const r = { ...event, propertyId: link?.listingId ?? event.propertyId };
    const pmsReservationId = event.pmsProvider && event.pmsExternalId ? pmsReservationKey(event.pmsProvider, event.pmsExternalId) : '';
    const known =
      (await this.deps.messaging.conversationOf(workspaceId, { reservationId: r.id }, tx)) ??
      // A PMS thread of this reservation whose first message arrived before the reservation did.
      (pmsReservationId ? await this.deps.messaging.conversationOf(workspaceId, { pmsReservationId }, tx) : null);
    const now = new Date();
    if (!known) {
      await this.deps.messaging.insertConversation(
        {
          id: newId('cnv'),
          workspaceId,
          listingId: r.propertyId,
          reservationId: r.id,
          guestId,
          channel: r.source,
          externalId: '',
          pmsReservationId,
          messageCount: 0,
          lastMessageAt: null,
          createdAt: now,
          updatedAt: now,
        },
        tx,
      );
    } else if (known.reservationId !== r.id || known.listingId !== r.propertyId || known.guestId !== guestId || (pmsReservationId && known.pmsReservationId !== pmsReservationId)) {
      await this.deps.messaging.updateConversation(
        workspaceId,
        known.id,
        { reservationId: r.id, listingId: r.propertyId, guestId, ...(pmsReservationId ? { pmsReservationId } : {}), updatedAt: now },
        tx,
      );
    }
  }

  // ---- pms.sync.v1 ----

  /**
   * The API listing of a sync change: the listing the workspace imported from this PMS under the
   * change's PMS listing id. Not imported yet (the listing service applies the same topic in its
   * own consumer group, maybe later): transient, retried in place. Deleted by the workspace:
   * permanent (a dead letter, replayable once the listing is imported again), as the
   * reservation service does.
   */
  private async listingOf(change: pmsSync.PmsSyncChange): Promise<string> {
    if (!change.listingExternalId) throw new MalformedChange(`pms sync change ${change.changeId} (${change.entity}) names no listing`);
    const found = await this.deps.pms.pmsListing(change.workspaceId, change.provider, change.listingExternalId);
    if (found.listingId) return found.listingId;
    if (found.deleted) {
      throw new PermanentError('listing_deleted', `${change.provider} ${change.entity} ${change.externalId} is on listing ${change.provider}/${change.listingExternalId}, which workspace ${change.workspaceId} deleted`);
    }
    throw new TransientError('listing_not_imported', `pms sync: no listing of ${change.provider} with id '${change.listingExternalId}' in workspace ${change.workspaceId} yet`);
  }

  async applyMessageSync(change: pmsSync.PmsSyncChange, p: MessageSyncPayload): Promise<void> {
    if (!p.externalId || !p.conversationExternalId) throw new MalformedChange(`message change ${change.changeId} needs externalId and conversationExternalId`);
    if (p.direction !== 'inbound' && p.direction !== 'outbound') throw new MalformedChange(`message change ${change.changeId}: direction '${p.direction}' is unknown`);
    const direction: Direction = p.direction;
    const listingId = await this.listingOf(change);
    const { workspaceId, provider } = change;
    const sentAt = date(p.sentAt, 'sentAt');
    const wrote = await this.deps.store.transaction(async (tx) => {
      const known = await this.deps.messaging.messageByExternalId(workspaceId, provider, p.externalId, tx);
      if (known) {
        // A message sent through the API, reported back by the PMS: its thread is now known.
        const own = await this.deps.messaging.conversation(workspaceId, known.conversationId, tx);
        if (!own.externalId) await this.deps.messaging.updateConversation(workspaceId, own.id, { externalId: p.conversationExternalId }, tx);
        return false;
      }
      // A PMS thread: found by its PMS id, else the conversation of its PMS reservation (which
      // then learns the thread's id), else a new conversation on the listing.
      let c = await this.deps.messaging.conversationOf(workspaceId, { externalId: p.conversationExternalId }, tx);
      const pmsReservationId = p.reservationExternalId ? pmsReservationKey(provider, p.reservationExternalId) : '';
      if (!c && pmsReservationId) {
        const ofReservation = await this.deps.messaging.conversationOf(workspaceId, { pmsReservationId }, tx);
        if (ofReservation) c = await this.deps.messaging.updateConversation(workspaceId, ofReservation.id, { externalId: p.conversationExternalId }, tx);
      }
      const now = new Date();
      if (!c) {
        c = await this.deps.messaging.insertConversation(
          {
            id: newId('cnv'),
            workspaceId,
            listingId,
            reservationId: '',
            guestId: '',
            channel: p.channel ?? '',
            externalId: p.conversationExternalId,
            pmsReservationId,
            messageCount: 0,
            lastMessageAt: null,
            createdAt: now,
            updatedAt: now,
          },
          tx,
        );
      }
      const message = await this.deps.messaging.insertMessage(
        {
          id: newId('msg'),
          workspaceId,
          conversationId: c.id,
          listingId: c.listingId,
          direction,
          body: p.body,
          attachments: (p.attachments ?? []).map((a) => ({ url: a.url, name: a.name ?? '', contentType: a.contentType ?? '' })),
          sentAt,
          provider,
          externalId: p.externalId,
        },
        tx,
      );
      const updated = await this.deps.messaging.noteMessage(c, sentAt, tx);
      await this.deps.outbox.add(tx, [messageEvent(message, updated, now)]);
      return true;
    });
    if (wrote) this.publishSoon();
  }

  async applyReviewSync(change: pmsSync.PmsSyncChange, p: ReviewSyncPayload): Promise<void> {
    if (!p.externalId) throw new MalformedChange(`review change ${change.changeId} needs externalId`);
    if (!Number.isInteger(p.rating) || p.rating < 1 || p.rating > 5) throw new MalformedChange(`review change ${change.changeId}: rating ${p.rating} is not 1..5`);
    const listingId = await this.listingOf(change);
    const { workspaceId, provider } = change;
    const sourceUpdatedAt = date(p.updatedAt, 'updatedAt');
    const wrote = await this.deps.store.transaction(async (tx) => {
      const known = await this.deps.messaging.reviewByExternalId(workspaceId, provider, p.externalId, tx);
      if (known && known.sourceUpdatedAt >= sourceUpdatedAt) return false;
      const now = new Date();
      const review = await this.deps.messaging.upsertReview(
        {
          id: known?.id ?? newId('rev'),
          workspaceId,
          listingId,
          reservationId: known?.reservationId ?? '',
          guestId: known?.guestId ?? '',
          guestName: p.guestName ?? known?.guestName ?? '',
          rating: p.rating,
          body: p.body,
          channel: p.channel ?? '',
          provider,
          externalId: p.externalId,
          // A reply made here stays until the PMS reports its own.
          reply: p.reply ? { body: p.reply.body, repliedAt: date(p.reply.repliedAt, 'reply.repliedAt') } : (known?.reply ?? null),
          submittedAt: date(p.submittedAt, 'submittedAt'),
          sourceUpdatedAt,
          createdAt: known?.createdAt ?? now,
          updatedAt: now,
        },
        tx,
      );
      await this.deps.outbox.add(tx, [reviewEvent(review, known ? 'updated' : 'created', now)]);
      return true;
    });
    if (wrote) this.publishSoon();
  }

  async applyRequestSync(change: pmsSync.PmsSyncChange, kind: RequestKind, p: RequestSyncPayload): Promise<void> {
    if (!p.externalId || !p.guest) throw new MalformedChange(`${kind} change ${change.changeId} needs externalId and guest`);
    if (!(REQUEST_STATUSES as readonly string[]).includes(p.status)) throw new MalformedChange(`${kind} change ${change.changeId}: status '${p.status}' is unknown`);
    const guest = p.guest;
    const listingId = await this.listingOf(change);
    const { workspaceId, provider } = change;
    const sourceUpdatedAt = date(p.updatedAt, 'updatedAt');
    const wrote = await this.deps.store.transaction(async (tx) => {
      const known = await this.deps.messaging.requestByExternalId(workspaceId, provider, p.externalId, tx);
      if (known && known.sourceUpdatedAt >= sourceUpdatedAt) return false;
      const now = new Date();
      const saved = await this.deps.messaging.upsertRequest(
        {
          id: known?.id ?? newId(kind === 'request' ? 'rqs' : 'inq'),
          workspaceId,
          listingId,
          kind,
          status: p.status as RequestStatus,
          guestId: known?.guestId ?? '',
          guestName: `${guest.firstName} ${guest.lastName ?? ''}`.trim(),
          checkIn: p.checkIn,
          checkOut: p.checkOut,
          guests: p.guests,
          message: p.message ?? '',
          channel: p.channel ?? '',
          provider,
          externalId: p.externalId,
          blockInstantBooking: known?.blockInstantBooking ?? false,
          sourceUpdatedAt,
          createdAt: known?.createdAt ?? now,
          updatedAt: now,
        },
        tx,
      );
      // The PMS reporting back what was already applied here (an answer relayed through the
      // API) is no news: no second event.
      if (known && sameRequest(known, saved)) return false;
      await this.deps.outbox.add(tx, [requestEvent(saved, known ? 'updated' : 'created', now)]);
      return true;
    });
    if (wrote) this.publishSoon();
  }
}

/** Whether two versions of a request say the same to the API (status, stay, guest, message). */
function sameRequest(a: RequestRecord, b: RequestRecord): boolean {
  const seen = (r: RequestRecord) => [r.status, r.checkIn, r.checkOut, r.guests, r.guestName, r.message, r.channel, r.listingId].join('\u0000');
  return seen(a) === seen(b);
}
