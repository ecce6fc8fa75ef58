// Queries of conversations, messages, reviews and reservation requests, written once as Mongo
// documents for both engines. Every collection query is scoped by workspace and leaves out the
// listings given as inactive (collections leave out data of inactive listings: docs/api.md).
import { findPage, type PageWindow } from '@vrp/platform/paging';
import { notFound } from '@vrp/platform/errors';
import { type Collection, type DocumentStore, type Filter, type Tx } from '@vrp/platform/store';
import type { ConversationRecord, MessageRecord, RequestRecord, ReviewRecord } from '../domain/messaging';
import { conversationSchema, messageSchema, requestSchema, reviewSchema } from './schemas';

type DocOf<R extends { id: string }> = Omit<R, 'id'> & { _id: string; [field: string]: unknown };

function toRecord<R extends { id: string }>({ _id, ...rest }: DocOf<R>): R {
  return { id: _id, ...rest } as unknown as R;
}

function toDoc<R extends { id: string }>({ id, ...rest }: R): DocOf<R> {
  return { _id: id, ...rest } as DocOf<R>;
}

/** A collection filter: the workspace, optionally one listing, never an inactive listing. */
export function listingScopedFilter(workspaceId: string, opts: { listingId?: string; inactiveListingIds: string[]; extra?: Filter }): Filter {
  const listing: Record<string, unknown> = {};
  if (opts.listingId) listing.$eq = opts.listingId;
  if (opts.inactiveListingIds.length > 0) listing.$nin = opts.inactiveListingIds;
  return { workspaceId, ...(Object.keys(listing).length ? { listingId: listing } : {}), ...opts.extra };
}

export class MessagingStore {
  readonly conversations: Collection<DocOf<ConversationRecord>>;
  readonly messages: Collection<DocOf<MessageRecord>>;
  readonly reviews: Collection<DocOf<ReviewRecord>>;
  readonly requests: Collection<DocOf<RequestRecord>>;

  constructor(readonly store: DocumentStore) {
    this.conversations = store.collection({ name: 'conversations', schema: conversationSchema });
    this.messages = store.collection({ name: 'messages', schema: messageSchema });
    this.reviews = store.collection({ name: 'reviews', schema: reviewSchema });
    this.requests = store.collection({ name: 'requests', schema: requestSchema });
  }

  // ---- conversations ----

  async conversationPage(filter: Filter, window: PageWindow): Promise<{ items: ConversationRecord[]; total: number }> {
    const { docs, total } = await findPage(this.conversations, filter, { createdAt: -1, _id: -1 }, window);
    return { items: docs.map((d) => toRecord<ConversationRecord>(d)), total };
  }

  async conversation(workspaceId: string, id: string, tx?: Tx): Promise<ConversationRecord> {
    const doc = await this.conversations.findOne({ workspaceId, _id: id }, { tx });
    if (!doc) throw notFound('conversation', id);
    return toRecord<ConversationRecord>(doc);
  }

  async conversationOf(
    workspaceId: string,
    by: { reservationId: string } | { externalId: string } | { pmsReservationId: string },
    tx?: Tx,
  ): Promise<ConversationRecord | null> {
    const doc = await this.conversations.findOne({ workspaceId, ...by }, { tx });
    return doc ? toRecord<ConversationRecord>(doc) : null;
  }

  async insertConversation(c: ConversationRecord, tx: Tx): Promise<ConversationRecord> {
    return toRecord<ConversationRecord>(await this.conversations.insertOne(toDoc(c), { tx }));
  }

  async updateConversation(workspaceId: string, id: string, set: Partial<Omit<ConversationRecord, 'id' | 'workspaceId'>>, tx: Tx): Promise<ConversationRecord> {
    const doc = await this.conversations.findOneAndUpdate({ workspaceId, _id: id }, { $set: set }, { tx });
    if (!doc) throw notFound('conversation', id);
    return toRecord<ConversationRecord>(doc);
  }

  /** Counts the message in and moves lastMessageAt forward (never back: sync may be late). */
  async noteMessage(c: ConversationRecord, sentAt: Date, tx: Tx): Promise<ConversationRecord> {
    const last = c.lastMessageAt && c.lastMessageAt > sentAt ? c.lastMessageAt : sentAt;
    const doc = await this.conversations.findOneAndUpdate(
      { workspaceId: c.workspaceId, _id: c.id },
      { $inc: { messageCount: 1 }, $set: { lastMessageAt: last, updatedAt: new Date() } },
      { tx },
    );
    if (!doc) throw notFound('conversation', c.id);
    return toRecord<ConversationRecord>(doc);
  }

  // ---- messages ----

  async messagePage(workspaceId: string, conversationId: string, window: PageWindow): Promise<{ items: MessageRecord[]; total: number }> {
    const { docs, total } = await findPage(this.messages, { workspaceId, conversationId }, { sentAt: 1, _id: 1 }, window);
    return { items: docs.map((d) => toRecord<MessageRecord>(d)), total };
  }

  async messageByExternalId(workspaceId: string, provider: string, externalId: string, tx?: Tx): Promise<MessageRecord | null> {
    const doc = await this.messages.findOne({ workspaceId, provider, externalId }, { tx });
    return doc ? toRecord<MessageRecord>(doc) : null;
  }

  async message(workspaceId: string, id: string): Promise<MessageRecord> {
    const doc = await this.messages.findOne({ workspaceId, _id: id });
    if (!doc) throw notFound('message', id);
    return toRecord<MessageRecord>(doc);
  }

  async insertMessage(m: MessageRecord, tx: Tx): Promise<MessageRecord> {
    return toRecord<MessageRecord>(await this.messages.insertOne(toDoc(m), { tx }));
  }

  // ---- reviews ----

  async reviewPage(filter: Filter, window: PageWindow): Promise<{ items: ReviewRecord[]; total: number }> {
    const { docs, total } = await findPage(this.reviews, filter, { submittedAt: -1, _id: -1 }, window);
    return { items: docs.map((d) => toRecord<ReviewRecord>(d)), total };
  }

  async review(workspaceId: string, id: string, tx?: Tx): Promise<ReviewRecord> {
    const doc = await this.reviews.findOne({ workspaceId, _id: id }, { tx });
    if (!doc) throw notFound('review', id);
    return toRecord<ReviewRecord>(doc);
  }

  async reviewByExternalId(workspaceId: string, provider: string, externalId: string, tx?: Tx): Promise<ReviewRecord | null> {
    const doc = await this.reviews.findOne({ workspaceId, provider, externalId }, { tx });
    return doc ? toRecord<ReviewRecord>(doc) : null;
  }

  async upsertReview(r: ReviewRecord, tx: Tx): Promise<ReviewRecord> {
    const { _id, ...rest } = toDoc(r);
    const doc = await this.reviews.findOneAndUpdate({ workspaceId: r.workspaceId, _id }, { $set: rest }, { tx, upsert: true });
    return toRecord<ReviewRecord>(doc!);
  }

  // ---- requests and inquiries ----

  async requestPage(filter: Filter, window: PageWindow): Promise<{ items: RequestRecord[]; total: number }> {
    const { docs, total } = await findPage(this.requests, filter, { createdAt: -1, _id: -1 }, window);
    return { items: docs.map((d) => toRecord<RequestRecord>(d)), total };
  }

  async request(workspaceId: string, id: string, tx?: Tx): Promise<RequestRecord> {
    const doc = await this.requests.findOne({ workspaceId, _id: id }, { tx });
    if (!doc) throw notFound('request', id);
    return toRecord<RequestRecord>(doc);
  }

  async requestByExternalId(workspaceId: string, provider: string, externalId: string, tx?: Tx): Promise<RequestRecord | null> {
    const doc = await this.requests.findOne({ workspaceId, provider, externalId }, { tx });
    return doc ? toRecord<RequestRecord>(doc) : null;
  }

  async upsertRequest(r: RequestRecord, tx: Tx): Promise<RequestRecord> {
    const { _id, ...rest } = toDoc(r);
    const doc = await this.requests.findOneAndUpdate({ workspaceId: r.workspaceId, _id }, { $set: rest }, { tx, upsert: true });
    return toRecord<RequestRecord>(doc!);
  }

  /** Changes a request only if it is still in `from` (two answers at once: one wins). */
  async transitionRequest(r: RequestRecord, from: string, set: Partial<RequestRecord>, tx: Tx): Promise<RequestRecord | null> {
    const doc = await this.requests.findOneAndUpdate(
      { workspaceId: r.workspaceId, _id: r.id, status: from },
      { $set: { ...set, updatedAt: new Date() } },
      { tx },
    );
    return doc ? toRecord<RequestRecord>(doc) : null;
  }
}
