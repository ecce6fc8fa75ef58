// A bounded, short-lived cache of store reads on the request path (verified API keys, workspace
// plans): an LRU with a time to live, one per store object and name, so every gateway over that
// store and the admin paths that change the records share it. A change evicts the record before
// and after its write; `generation`, bumped by every eviction, keeps a read that started before
// an eviction from putting the old record back.
import type { DocumentStore } from '@vrp/platform/store';
import { LRUCache } from 'lru-cache';

export class ReadCache<V> {
  /** The LRU bound is lru-cache's; expiry is ours, by the caller's clock (tests drive it). */
  private readonly entries: LRUCache<string, { value: V; expiresAt: number }>;
  /** Bumped by every eviction: a lookup that started before one does not fill the cache. */
  generation = 0;

  constructor(maxEntries: number) {
    this.entries = new LRUCache({ max: maxEntries });
  }

  get(key: string, now: number): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: V, expiresAt: number): void {
    this.entries.set(key, { value, expiresAt });
  }

  /** Drops every entry `matches` selects and invalidates reads in flight. */
  evict(matches: (key: string, value: V) => boolean): void {
    this.generation += 1;
    for (const [key, entry] of [...this.entries.entries()]) if (matches(key, entry.value)) this.entries.delete(key);
  }

  /**
   * The cached value of `key` while fresh, else `load()`'s, kept for `ttlMs` when `keep` says so
   * and no eviction happened meanwhile; `ttlMs` 0 reads every time.
   */
  async read(key: string, ttlMs: number, now: () => number, load: () => Promise<V | null>, keep: (value: V) => boolean = () => true): Promise<V | null> {
    if (ttlMs <= 0) return load();
    const cached = this.get(key, now());
    if (cached !== undefined) return cached;
    const generation = this.generation;
    const value = await load();
    if (value !== null && keep(value) && generation === this.generation) this.set(key, value, now() + ttlMs);
    return value;
  }

  /** Runs a change of the records `matches` selects with them evicted before and after. */
  async around<T>(matches: (key: string, value: V) => boolean, change: () => Promise<T>): Promise<T> {
    this.evict(matches);
    try {
      return await change();
    } finally {
      this.evict(matches);
    }
  }
}

const caches = new WeakMap<object, Map<string, ReadCache<unknown>>>();

/**
 * The cache named `name` of this scope (created on first use): a gateway instance's own (each
 * replica caches apart, as separate processes do), or the store object's where no gateway
 * instance is involved.
 */
export function readCacheOf<V>(scope: DocumentStore | object, name: string, maxEntries: number): ReadCache<V> {
  let byName = caches.get(scope);
  if (!byName) caches.set(scope, (byName = new Map()));
  let cache = byName.get(name);
  if (!cache) byName.set(name, (cache = new ReadCache<unknown>(maxEntries)));
  return cache as ReadCache<V>;
}
