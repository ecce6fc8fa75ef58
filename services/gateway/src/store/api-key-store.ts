// API key queries. Keys are looked up by their hash only; the key itself is never stored.
//
// Verified keys are cached for a short time (API_KEY_CACHE_TTL_MS, default 1 s; 0 = off) in a
// bounded LRU keyed by the key's hash (never the key), one cache per gateway instance
// (`cacheScope`), shared by its request path and its admin path. A revocation evicts the key
// before it answers, so the gateway that revoked it refuses it at once; every other replica
// stops accepting it when its entry expires, within the TTL. Only usable keys are cached; an unknown or revoked key is read every time.
import type { Collection, DocumentStore } from '@vrp/platform/store';
import type { ApiKeyMode } from '../domain/api-key';
import type { ApiKeyRecord } from '../domain/api-key-record';
import { readCacheOf, type ReadCache } from './read-cache';
import { apiKeySchema } from './schemas';

type ApiKeyDoc = Omit<ApiKeyRecord, 'id'> & { _id: string };

const toRecord = ({ _id, ...rest }: ApiKeyDoc): ApiKeyRecord => ({ id: _id, ...rest, name: rest.name ?? null, revokedAt: rest.revokedAt ?? null });

/** Entries of one cache at most (least recently used first out). */
export const API_KEY_CACHE_MAX_ENTRIES = 10_000;

export class ApiKeyStore {
  private readonly keys: Collection<ApiKeyDoc>;
  private readonly cache: ReadCache<ApiKeyRecord>;

  constructor(
    store: DocumentStore,
    private readonly opts: { cacheTtlMs?: number; now?: () => number; cacheScope?: object } = {},
  ) {
    this.keys = store.collection<ApiKeyDoc>({ name: 'api_keys', schema: apiKeySchema });
    this.cache = readCacheOf(opts.cacheScope ?? store, 'verified-api-keys', API_KEY_CACHE_MAX_ENTRIES);
  }

  /**
   * The usable key with this hash, from the cache while its entry is fresh (authentication);
   * a revoked or unknown key is read from the store.
   */
  async findUsableByHash(hash: string): Promise<ApiKeyRecord | null> {
    return this.cache.read(
      hash,
      this.opts.cacheTtlMs ?? 0,
      this.opts.now ?? Date.now,
      () => this.findByHash(hash),
      (record) => record.revokedAt === null,
    );
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
   * Revokes a key; revoking twice keeps the first revocation time. The key leaves the cache of
   * verified keys before and after the write (a lookup racing the write cannot put it back), so
   * the revocation takes effect on the very next request.
   */
  async revoke(id: string, now: Date): Promise<ApiKeyRecord | null> {
    await this.cache.around(
      (_hash, record) => record.id === id,
      () => this.keys.updateOne({ _id: id, revokedAt: null }, { $set: { revokedAt: now } }),
    );
    return this.get(id);
  }
}
