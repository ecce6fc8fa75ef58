// API key queries. Keys are looked up by their hash only; the key itself is never stored.
import type { Collection, DocumentStore } from '@vrp/platform';
import type { ApiKeyMode } from '../domain/api-key';
import type { ApiKeyRecord } from '../domain/api-key-record';
import { apiKeySchema } from './schemas';

type ApiKeyDoc = {
  _id: string;
  workspaceId: string;
  mode: ApiKeyMode;
  name: string | null;
  prefix: string;
  hash: string;
  createdAt: Date;
  revokedAt: Date | null;
};

const toRecord = ({ _id, ...rest }: ApiKeyDoc): ApiKeyRecord => ({ id: _id, ...rest, name: rest.name ?? null, revokedAt: rest.revokedAt ?? null });

export class ApiKeyStore {
  private readonly keys: Collection<ApiKeyDoc>;

  constructor(store: DocumentStore) {
    this.keys = store.collection<ApiKeyDoc>({ name: 'api_keys', schema: apiKeySchema });
  }

  async insert(record: ApiKeyRecord): Promise<ApiKeyRecord> {
    const { id, ...rest } = record;
    return toRecord(await this.keys.insertOne({ _id: id, ...rest }));
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | null> {
    const doc = await this.keys.findOne({ hash });
    return doc ? toRecord(doc) : null;
  }

  async get(id: string): Promise<ApiKeyRecord | null> {
    const doc = await this.keys.findOne({ _id: id });
    return doc ? toRecord(doc) : null;
  }

  /** The oldest usable key of a workspace in a mode (the bootstrap reuses it). */
  async findActive(workspaceId: string, mode: ApiKeyMode): Promise<ApiKeyRecord | null> {
    const doc = await this.keys.findOne({ workspaceId, mode, revokedAt: null }, { sort: { createdAt: 1, _id: 1 } });
    return doc ? toRecord(doc) : null;
  }

  async page(workspaceId: string, limit: number, offset: number): Promise<{ items: ApiKeyRecord[]; total: number }> {
    const filter = { workspaceId };
    const [docs, total] = await Promise.all([
      this.keys.find(filter, { sort: { createdAt: 1, _id: 1 }, skip: offset, limit }),
      this.keys.countDocuments(filter),
    ]);
    return { items: docs.map(toRecord), total };
  }

  /**
   * Revokes a key; revoking twice keeps the first revocation time. Every request re-reads the
   * key (no cache), so the revocation takes effect on the very next request.
   */
  async revoke(id: string, now: Date): Promise<ApiKeyRecord | null> {
    await this.keys.updateOne({ _id: id, revokedAt: null }, { $set: { revokedAt: now } });
    return this.get(id);
  }
}
