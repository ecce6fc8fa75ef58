// The `dead_letters` collection of a consuming service: one record per message a consumer group
// set aside, unique on (group, topic, partition, offset) so that a redelivered message is
// recorded once. Written with an upsert ($setOnInsert), never an insert that could fail inside
// the transaction (on MongoDB a failed write aborts the transaction).
import { Schema } from 'mongoose';
import type { DeliveredMessage } from '../bus/port';
import type { Collection, DocumentStore, Filter, Tx } from '../store/port';
import type { Failure } from './failure';

export const DEAD_LETTER_REASONS = ['permanent', 'budget_exhausted'] as const;
export type DeadLetterReason = (typeof DEAD_LETTER_REASONS)[number];
/** The `status` filter of the dead-letter list. */
export const DEAD_LETTER_STATUS_FILTERS = ['open', 'replayed', 'all'] as const;

export interface DeadLetterDoc {
  _id: string;
  service: string;
  group: string;
  topic: string;
  partition: number;
  offset: string;
  key: string;
  headers: Record<string, string>;
  /** Payload bytes, base64 (the same in both store engines). */
  value: string;
  errorCode: string;
  errorMessage: string;
  reason: DeadLetterReason;
  attempts: number;
  firstFailedAt: Date;
  lastFailedAt: Date;
  workspaceId: string;
  listingId: string;
  replayedAt: Date | null;
  [field: string]: unknown;
}

const deadLetterSchema = new Schema(
  {
    _id: { type: String, required: true },
    service: { type: String, required: true },
    group: { type: String, required: true },
    topic: { type: String, required: true },
    partition: { type: Number, required: true },
    offset: { type: String, required: true },
    key: { type: String, default: '' },
    headers: { type: Schema.Types.Mixed, default: {} },
    value: { type: String, default: '' },
    errorCode: { type: String, required: true },
    errorMessage: { type: String, default: '' },
    reason: { type: String, required: true, enum: DEAD_LETTER_REASONS },
    attempts: { type: Number, required: true },
    firstFailedAt: { type: Date, required: true },
    lastFailedAt: { type: Date, required: true },
    workspaceId: { type: String, default: '' },
    listingId: { type: String, default: '' },
    replayedAt: { type: Date, default: null },
  },
  { versionKey: false },
);
deadLetterSchema.index({ group: 1, topic: 1, partition: 1, offset: 1 }, { unique: true });
deadLetterSchema.index({ replayedAt: 1, _id: -1 });
deadLetterSchema.index({ workspaceId: 1, _id: -1 });

/** Error messages are kept short: they are for operators, and a payload may be echoed in them. */
const MAX_ERROR_MESSAGE = 2000;

export type NewDeadLetter = Pick<
  DeadLetterDoc,
  'service' | 'group' | 'reason' | 'attempts' | 'firstFailedAt' | 'lastFailedAt' | 'workspaceId' | 'listingId'
> & {
  id: string;
  message: DeliveredMessage;
  failure: Failure;
};

export interface DeadLetterQuery {
  topic?: string;
  group?: string;
  workspaceId?: string;
  status: (typeof DEAD_LETTER_STATUS_FILTERS)[number];
}

export class DeadLetterStore {
  readonly docs: Collection<DeadLetterDoc>;

  constructor(store: DocumentStore) {
    this.docs = store.collection<DeadLetterDoc>({ name: 'dead_letters', schema: deadLetterSchema });
  }

  /** Records the dead letter unless this message is already recorded; the new record, or null. */
  async record(d: NewDeadLetter, tx: Tx): Promise<DeadLetterDoc | null> {
    const { message } = d;
    const doc: DeadLetterDoc = {
      _id: d.id,
      service: d.service,
      group: d.group,
      topic: message.topic,
      partition: message.partition,
      offset: message.offset,
      key: message.key,
      headers: { ...(message.headers ?? {}) },
      value: Buffer.from(message.value).toString('base64'),
      errorCode: d.failure.code,
      errorMessage: d.failure.message.slice(0, MAX_ERROR_MESSAGE),
      reason: d.reason,
      attempts: d.attempts,
      firstFailedAt: d.firstFailedAt,
      lastFailedAt: d.lastFailedAt,
      workspaceId: d.workspaceId,
      listingId: d.listingId,
      replayedAt: null,
    };
    const { _id, group, topic, partition, offset, ...rest } = doc;
    const res = await this.docs.updateOne({ group, topic, partition, offset }, { $setOnInsert: { _id, ...rest } }, { upsert: true, tx });
    return res.upsertedId ? doc : null;
  }

  /** True when this message of the group is already a dead letter (a redelivery of it). */
  async isRecorded(group: string, message: DeliveredMessage): Promise<boolean> {
    return (await this.docs.countDocuments({ group, topic: message.topic, partition: message.partition, offset: message.offset })) > 0;
  }

  get(id: string): Promise<DeadLetterDoc | null> {
    return this.docs.findOne({ _id: id });
  }

  filterOf(q: DeadLetterQuery): Filter {
    const filter: Filter = {};
    if (q.topic) filter.topic = q.topic;
    if (q.group) filter.group = q.group;
    if (q.workspaceId) filter.workspaceId = q.workspaceId;
    if (q.status === 'open') filter.replayedAt = null;
    else if (q.status === 'replayed') filter.replayedAt = { $ne: null };
    return filter;
  }

  /** A replay failed: the record stays open with the new error and one more attempt. */
  async replayFailed(id: string, failure: Failure, at: Date): Promise<DeadLetterDoc | null> {
    return this.docs.findOneAndUpdate(
      { _id: id, replayedAt: null },
      { $inc: { attempts: 1 }, $set: { errorCode: failure.code, errorMessage: failure.message.slice(0, MAX_ERROR_MESSAGE), lastFailedAt: at } },
    );
  }

  /** A replay applied the message: marked, so it is never applied again. Null if already marked. */
  async replayed(id: string, at: Date): Promise<DeadLetterDoc | null> {
    return this.docs.findOneAndUpdate({ _id: id, replayedAt: null }, { $inc: { attempts: 1 }, $set: { replayedAt: at } });
  }

  async remove(id: string): Promise<DeadLetterDoc | null> {
    const doc = await this.docs.findOne({ _id: id });
    if (!doc) return null;
    const { deletedCount } = await this.docs.deleteOne({ _id: id });
    return deletedCount ? doc : null;
  }
}
