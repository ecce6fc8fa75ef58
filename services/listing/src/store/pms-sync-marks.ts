// The last PMS change applied to each PMS listing (the pms.sync.v1 consumer's watermark), so that
// a replayed or late older change is recognized and changes nothing, even when the messages of
// a listing are replayed from the start of the topic.
import { Schema } from 'mongoose';
import type { Collection, DocumentStore, Tx } from '@vrp/platform/store';
import type { SyncMark } from '../domain/pms-sync';

export const pmsSyncMarkSchema = new Schema(
  {
    _id: { type: String, required: true }, // <workspaceId>|<provider>|<pms listing id>
    workspaceId: { type: String, required: true },
    occurredAt: { type: Date, required: true },
    changeId: { type: String, required: true },
  },
  { versionKey: false },
);

type MarkDoc = { _id: string; workspaceId: string; occurredAt: Date; changeId: string; [field: string]: unknown };

export class PmsSyncMarks {
  private readonly marks: Collection<MarkDoc>;

  constructor(store: DocumentStore) {
    this.marks = store.collection<MarkDoc>({ name: 'pms_sync_marks', schema: pmsSyncMarkSchema });
  }

  private static id(workspaceId: string, provider: string, externalId: string): string {
    return `${workspaceId}|${provider}|${externalId}`;
  }

  async get(workspaceId: string, provider: string, externalId: string, tx?: Tx): Promise<SyncMark | null> {
    const doc = await this.marks.findOne({ _id: PmsSyncMarks.id(workspaceId, provider, externalId), workspaceId }, { tx });
    return doc ? { occurredAt: doc.occurredAt, changeId: doc.changeId } : null;
  }

  async set(workspaceId: string, provider: string, externalId: string, mark: SyncMark, tx: Tx): Promise<void> {
    await this.marks.updateOne(
      { _id: PmsSyncMarks.id(workspaceId, provider, externalId), workspaceId },
      { $set: { occurredAt: mark.occurredAt, changeId: mark.changeId } },
      { upsert: true, tx },
    );
  }
}
