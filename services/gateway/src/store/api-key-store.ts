// API key queries. Keys are looked up by their hash only; the key itself is never stored.
//
// Verified keys are cached for a short time (API_KEY_CACHE_TTL_MS, default 1 s; 0 = off) in a
// bounded LRU keyed by the key's hash (never the key), one cache per store object, so every
// gateway over that store, and the admin path that revokes, see the same cache. A revocation
// evicts the key before it answers, so it is refused at once by every gateway over the store;
// a replica in another process (MongoDB deployments) stops accepting it when its entry expires,
// within the TTL. Only usable keys are cached; an unknown or revoked key is read every time.
import type { Collection, DocumentStore } from '@vrp/platform';
import type { ApiKeyMode } from '../domain/api-key';
import type { ApiKeyRecord } from '../domain/api-key-record';
import { apiKeySchema } from './schemas';

type ApiKeyDoc = Omit<ApiKeyRecord, 'id'> & { _id: string };

const toRecord = ({ _id, ...rest }: ApiKeyDoc): ApiKeyRecord => ({ id: _id, ...rest, name: rest.name ?? null, revokedAt: rest.revokedAt ?? null });

/** Entries of one cache at most (least recently used first out). */
export const API_KEY_CACHE_MAX_ENTRIES = 10_000;

class VerifiedKeyCache {
  private readonly entries = new Map<string, { record: ApiKeyRecord; expiresAt: number }>();
  /** Bumped by every eviction: a lookup that started before one does not fill the cache. */
  generation = 0;

  get(hash: string, now: number): ApiKeyRecord | undefined {
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    this.entries.delete(hash);
    if (entry.expiresAt <= now) return undefined;
    this.entries.set(hash, entry); // most recently used last
    return entry.record;
  }

  set(record: ApiKeyRecord, expiresAt: number): void {
    this.entries.delete(record.hash);
    this.entries.set(record.hash, { record, expiresAt });
    if (this.entries.size > API_KEY_CACHE_MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
  }

  evict(id: string): void {
    this.generation += 1;
    for (const [hash, entry] of this.entries) if (entry.record.id === id) this.entries.delete(hash);
  }
}

const caches = new WeakMap<DocumentStore, VerifiedKeyCache>();

export class ApiKeyStore {
  private readonly keys: Collection<ApiKeyDoc>;
  private readonly cache: VerifiedKeyCache;

  constructor(
    store: DocumentStore,
    private readonly opts: { cacheTtlMs?: number; now?: () => number } = {},
  ) {
    this.keys = store.collection<ApiKeyDoc>({ name: 'api_keys', schema: apiKeySchema });
    let cache = caches.get(store);
    if (!cache) caches.set(store, (cache = new VerifiedKeyCache()));
    this.cache = cache;
  }

  /**
   * The usable key with this hash, from the cache while its entry is fresh (authentication);
   * a revoked or unknown key is read from the store.
   */
  async findUsableByHash(hash: string): Promise<ApiKeyRecord | null> {
    const ttl = this.opts.cacheTtlMs ?? 0;
    if (ttl <= 0) return this.findByHash(hash);
    const now = this.opts.now ?? Date.now;
    const cached = this.cache.get(hash, now());
    if (cached) return cached;
    const generation = this.cache.generation;
    const record = await this.findByHash(hash);
    if (record && record.revokedAt === null && generation === this.cache.generation) this.cache.set(record, now() + ttl);
    return record;
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
    this.cache.evict(id);
    try {
      await this.keys.updateOne({ _id: id, revokedAt: null }, { $set: { revokedAt: now } });
    } finally {
      this.cache.evict(id);
    }
    return this.get(id);
  }
}
