// Conversations and messages, reviews, and reservation requests/inquiries. Reads: 404 before 403,
// collections leave out inactive listings. Writes a PMS must perform: refused from the capability
// matrix before anything is sent (spec 7.2), else relayed through the pms-adapter, then stored
// with their event in one transaction. Sync changes are applied idempotently (by external id,
// and by the PMS's updatedAt where the entity can change).
import type { MessageSyncPayload, pmsSync, RequestSyncPayload, ReviewSyncPayload } from '@vrp/contracts';
import { AppError, newId, PermanentError, validationFailed, type DocumentStore, type Logger, type Outbox, type PageWindow, type Tx } from '@vrp/platform';
import { assertSupported, type PmsWrite } from '@vrp/pms-matrix';
import type { ListingAccess } from './access';
import {
  answerProblem,
  messageWrites,
  preApprovalWrites,
  preApproveProblem,
  statusAfter,
  type Attachment,
  type ConversationRecord,
  type Decision,
  type MessageRecord,
  type RequestKind,
  type RequestRecord,
  type RequestStatus,
  type ReviewRecord,
} from './domain/messaging';
import { messageEvent, reviewEvent } from './events/publishers';
import type { PmsPort } from './pms';
import type { GuestStore } from './store/guest-store';
import { listingScopedFilter, type MessagingStore } from './store/messaging-store';

export const MAX_MESSAGE_LENGTH = 10_000;
export const MAX_ATTACHMENTS = 10;
export const MAX_REPLY_LENGTH = 5_000;

export interface MessagingDeps {
  store: DocumentStore;
  messaging: MessagingStore;
  guests: GuestStore;
  outbox: Outbox;
  access: ListingAccess;
  pms: PmsPort;
  logger: Logger;
}

/** Refuses (422, nothing sent) when the PMS cannot perform every one of `writes`. */
function assertPmsCan(provider: string, writes: PmsWrite[]): void {
  if (!provider) return;
  for (const write of writes) assertSupported(provider, write);
}

/** A sync change that can never be applied (retrying it would block its partition forever). */
export class MalformedChange extends PermanentError {
  constructor(message: string) {
    super('malformed_payload', message);
    this.name = 'MalformedChange';
  }
}

export function date(value: string | undefined, what: string): Date {
  const d = new Date(value ?? '');
  if (!value || Number.isNaN(d.getTime())) throw new MalformedChange(`${what} is not a date: ${value}`);
  return d;
}

export class Messaging {
  constructor(private readonly deps: MessagingDeps) {}

  private publishSoon(): void {
    void this.deps.outbox.flush().catch(() => undefined);
  }

  /** The collection filter of a listing-scoped list (404 when it names no listing of the workspace, then 403 when inactive). */
  private async scope(workspaceId: string, listingId: string, extra: Record<string, unknown> = {}) {
    return listingScopedFilter(workspaceId, {
      listingId: listingId ? await this.deps.access.filterListing(workspaceId, listingId) : '',
      inactiveListingIds: this.deps.access.inactiveIds(workspaceId),
      extra,
    });
  }

  // ---- conversations and messages ----

  async listConversations(workspaceId: string, f: { listingId: string; reservationId: string; guestId: string }, window: PageWindow) {
    const extra: Record<string, unknown> = {};
    if (f.reservationId) extra.reservationId = f.reservationId;
    if (f.guestId) extra.guestId = f.guestId;
    return this.deps.messaging.conversationPage(await this.scope(workspaceId, f.listingId, extra), window);
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

  async send(workspaceId: string, conversationId: string, input: { body: string; attachments: Attachment[]; idempotencyKey: string }): Promise<MessageRecord> {
    const c = await this.conversation(workspaceId, conversationId);
    const problems: Record<string, string> = {};
    if (!input.body.trim() && input.attachments.length === 0) problems.body = 'is required (or send at least one attachment)';
    if (input.body.length > MAX_MESSAGE_LENGTH) problems.body = `must be at most ${MAX_MESSAGE_LENGTH} characters`;
    if (input.attachments.length > MAX_ATTACHMENTS) problems.attachments = `must contain at most ${MAX_ATTACHMENTS} attachments`;
    input.attachments.forEach((a, i) => {
      if (!/^https?:\/\/\S+$/.test(a.url)) problems[`attachments.${i}.url`] = 'must be an http(s) URL';
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
      const updated = await this.deps.messaging.noteMessage(c, now, tx);
      await this.deps.outbox.add(tx, [messageEvent(stored, updated, now)]);
      return stored;
    });
    this.publishSoon();
    return saved;
  }

  // ---- reviews ----

  async listReviews(workspaceId: string, f: { listingId: string }, window: PageWindow) {
    return this.deps.messaging.reviewPage(await this.scope(workspaceId, f.listingId), window);
  }

  async review(workspaceId: string, id: string): Promise<ReviewRecord> {
    const r = await this.deps.messaging.review(workspaceId, id);
    this.deps.access.assertActive(workspaceId, r.listingId);
    return r;
  }

  async reply(workspaceId: string, id: string, body: string): Promise<ReviewRecord> {
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
      await this.deps.outbox.add(tx, [reviewEvent(out, 'updated', now)]);
      return out;
    });
    this.publishSoon();
    return saved;
  }

  // ---- reservation requests and inquiries ----

  async listRequests(workspaceId: string, f: { listingId: string; status: string; kind: string }, window: PageWindow) {
    const extra: Record<string, unknown> = {};
    if (f.status) extra.status = f.status;
    if (f.kind) extra.kind = f.kind;
    return this.deps.messaging.requestPage(await this.scope(workspaceId, f.listingId, extra), window);
  }

  async request(workspaceId: string, id: string): Promise<RequestRecord> {
    const r = await this.deps.messaging.request(workspaceId, id);
    this.deps.access.assertActive(workspaceId, r.listingId);
    return r;
  }

  async answer(workspaceId: string, id: string, decision: Decision, note: string): Promise<RequestRecord> {
    const r = await this.request(workspaceId, id);
    const problem = answerProblem(r);
    if (problem) throw new AppError('conflict', problem);
    assertPmsCan(r.provider, ['request.answer']);
    await this.relayRequestWrite(r, 'request.answer', { decision, message: note });
    return this.transition(r, { status: statusAfter(decision) });
  }

  async preApprove(workspaceId: string, id: string, blockInstantBooking: boolean, note: string): Promise<RequestRecord> {
    const r = await this.request(workspaceId, id);
    const problem = preApproveProblem(r);
    if (problem) throw new AppError('conflict', problem);
    assertPmsCan(r.provider, preApprovalWrites(blockInstantBooking));
    await this.relayRequestWrite(r, 'inquiry.pre_approve', { blockInstantBooking, message: note });
    return this.transition(r, { status: 'pre_approved', blockInstantBooking });
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

  private async transition(r: RequestRecord, set: Partial<RequestRecord>): Promise<RequestRecord> {
    const out = await this.deps.store.transaction((tx) => this.deps.messaging.transitionRequest(r, 'pending', set, tx));
    if (!out) throw new AppError('conflict', 'The request was answered meanwhile; read it again.');
    return out;
  }

  /**
   * Opens the conversation of a reservation (one per reservation), or follows the reservation
   * to another listing. Replaying the same reservation changes nothing.
   */
  async openForReservation(workspaceId: string, event: { id: string; propertyId: string; source: string }, guestId: string, tx: Tx): Promise<void> {
    // The listing is the one the guest's link holds (applyReservation ran first, in this
    // transaction): it is version-checked, so a replayed or overtaken older event cannot move
    // the conversation back.
    const link = (await this.deps.guests.byReservation(workspaceId, event.id, tx))?.reservations.find((l) => l.reservationId === event.id);
    const r = { ...event, propertyId: link?.listingId ?? event.propertyId };
    const known = await this.deps.messaging.conversationOf(workspaceId, { reservationId: r.id }, tx);
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
          messageCount: 0,
          lastMessageAt: null,
          createdAt: now,
          updatedAt: now,
        },
        tx,
      );
    } else if (known.listingId !== r.propertyId || known.guestId !== guestId) {
      await this.deps.messaging.updateConversation(workspaceId, known.id, { listingId: r.propertyId, guestId, updatedAt: now }, tx);
    }
  }

  // ---- pms.sync.v1 ----

  /** The API listing of a sync change: the payload's listingId, else the change's PMS listing id resolved. */
  private async listingOf(change: pmsSync.PmsSyncChange, listingId: string | undefined): Promise<string | null> {
    if (listingId) return listingId;
    if (!change.listingExternalId) return null;
    return this.deps.pms.resolveListingId(change.workspaceId, change.listingExternalId);
  }

  private skip(change: pmsSync.PmsSyncChange): void {
    this.deps.logger.warn({ changeId: change.changeId, entity: change.entity, listingExternalId: change.listingExternalId }, 'sync change of an unknown listing skipped');
  }

  async applyMessageSync(change: pmsSync.PmsSyncChange, p: MessageSyncPayload): Promise<void> {
    const listingId = await this.listingOf(change, p.listingId);
    if (!listingId) return this.skip(change);
    const { workspaceId, provider } = change;
    const sentAt = date(p.sentAt, 'sentAt');
    const wrote = await this.deps.store.transaction(async (tx) => {
      if (await this.deps.messaging.messageByExternalId(workspaceId, provider, p.externalId, tx)) return false;
      let c =
        (p.reservationId ? await this.deps.messaging.conversationOf(workspaceId, { reservationId: p.reservationId }, tx) : null) ??
        (p.conversationExternalId ? await this.deps.messaging.conversationOf(workspaceId, { externalId: p.conversationExternalId }, tx) : null);
      const now = new Date();
      if (!c) {
        const guest = p.reservationId ? await this.deps.guests.byReservation(workspaceId, p.reservationId, tx) : null;
        c = await this.deps.messaging.insertConversation(
          {
            id: newId('cnv'),
            workspaceId,
            listingId,
            reservationId: p.reservationId ?? '',
            guestId: guest?.id ?? '',
            channel: p.channel ?? '',
            externalId: p.conversationExternalId,
            messageCount: 0,
            lastMessageAt: null,
            createdAt: now,
            updatedAt: now,
          },
          tx,
        );
      } else if (!c.externalId && p.conversationExternalId) {
        c = await this.deps.messaging.updateConversation(workspaceId, c.id, { externalId: p.conversationExternalId }, tx);
      }
      const message = await this.deps.messaging.insertMessage(
        {
          id: newId('msg'),
          workspaceId,
          conversationId: c.id,
          listingId: c.listingId,
          direction: p.direction ?? 'inbound',
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
    const listingId = await this.listingOf(change, p.listingId);
    if (!listingId) return this.skip(change);
    const { workspaceId, provider } = change;
    const sourceUpdatedAt = date(p.updatedAt, 'updatedAt');
    const wrote = await this.deps.store.transaction(async (tx) => {
      const known = await this.deps.messaging.reviewByExternalId(workspaceId, provider, p.externalId, tx);
      if (known && known.sourceUpdatedAt >= sourceUpdatedAt) return false;
      const guest = p.reservationId ? await this.deps.guests.byReservation(workspaceId, p.reservationId, tx) : null;
      const now = new Date();
      const review = await this.deps.messaging.upsertReview(
        {
          id: known?.id ?? newId('rev'),
          workspaceId,
          listingId,
          reservationId: p.reservationId ?? '',
          guestId: guest?.id ?? known?.guestId ?? '',
          guestName: p.guestName ?? (guest ? `${guest.firstName} ${guest.lastName}`.trim() : ''),
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
    const listingId = await this.listingOf(change, p.listingId);
    if (!listingId) return this.skip(change);
    const { workspaceId, provider } = change;
    const sourceUpdatedAt = date(p.updatedAt, 'updatedAt');
    await this.deps.store.transaction(async (tx) => {
      const known = await this.deps.messaging.requestByExternalId(workspaceId, provider, p.externalId, tx);
      if (known && known.sourceUpdatedAt >= sourceUpdatedAt) return;
      const now = new Date();
      await this.deps.messaging.upsertRequest(
        {
          id: known?.id ?? newId(kind === 'request' ? 'rqs' : 'inq'),
          workspaceId,
          listingId,
          kind,
          status: (p.status ?? known?.status ?? 'pending') as RequestStatus,
          guestId: known?.guestId ?? '',
          guestName: `${p.guest.firstName} ${p.guest.lastName ?? ''}`.trim(),
          checkIn: p.checkIn,
          checkOut: p.checkOut,
          guests: p.guests ?? 0,
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
    });
  }
}
