// A collection of the embedded store: its documents (slots in insertion order), its indexes, and
// its reads and writes. Reads see the last committed state plus the reader's own uncommitted
// writes; writes cast and validate through the mongoose schema (fast-cast.ts where it is sure),
// enforce the unique indexes, and are journaled for their transaction (transactions.ts).
//
// Query planning reads the schema's indexes the way MongoDB does: `_id` lookups use the primary
// map; equality on the leading field(s) of an index uses an equality index (equality-index.ts);
// an index whose prefix the filter pins serves sorted pages and ranges in order
// (ordered-index.ts); other sorted pages select the top `skip + limit` matches (sorting.ts).
import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import type { Schema } from 'mongoose';
import {
  DocumentValidationError,
  DuplicateKeyError,
  WriteConflictError,
  type Collection,
  type Doc,
  type Filter,
  type FindOneAndUpdateOptions,
  type FindOptions,
  type Sort,
  type Tx,
  type Update,
  type UpdateOptions,
  type UpdateResult,
  type WriteOptions,
} from '@vrp/platform/store';
import { deepClone, isPlainObject, normalizeUpdate, prepareSchema, timestampFields, upsertSeedFields, validationFields } from '../shared';
import { EqualityIndex, equalityIndexes, equalityTerms, withNullTerms } from './equality-index';
import { applyModifier, compileFull, includeFields, plainInclusion, updatedCopy, type AnyObject, type Matcher, type QueryCache } from './evaluation';
import { compileFastCaster, type FastCaster } from './fast-cast';
import { compareValues, orderedIndexes, rangeTerms, type Entry, type OrderedIndex, type Slot } from './ordered-index';
import type { PersistedDoc, StoreChange } from './persistence';
import { bySeq, sortedPage } from './sorting';
import { Blocked, type DirtyEntry, type JournaledCollection, type MemoryTx, type UndoEntry, type Writer } from './transactions';
import { indexKeys, sameUniqueKeys, uniqueIndexes, type UniqueIndex } from './unique-index';

/** What a collection needs of its store: the shared query cache, the gate and the write path. */
export interface CollectionHost {
  readonly queries: QueryCache;
  answering(): boolean;
  checkTx(tx: Tx | undefined): MemoryTx | undefined;
  reader(tx: Tx | undefined): Promise<MemoryTx | undefined>;
  write<R>(opts: WriteOptions, fn: (w: Writer) => R): Promise<R>;
}

/** Documents that may match a filter, from an index lookup, and how many. */
interface Candidates {
  slots: Iterable<Slot>;
  size: number;
}

/**
 * Entries [from, to) of an ordered index whose order is the sort's first `served` fields; full:
 * its order is the whole sort; exact: every entry matches the filter.
 */
interface Walk {
  entries: readonly Entry[];
  from: number;
  to: number;
  served: number;
  full: boolean;
  exact: boolean;
}

function sameLeadingKeys(a: Entry, b: Entry, count: number): boolean {
  for (let i = 0; i < count; i++) if (compareValues(a.keys[i], b.keys[i]) !== 0) return false;
  return true;
}

interface Plan {
  best: Candidates & { natural: boolean };
  walk: Walk | null;
  /** Set when the filter is exactly an ordered index's pinned prefix: the matching entries. */
  exact: readonly Entry[] | null;
}

function* slotsIn(entries: readonly Entry[], from: number, to: number): Iterable<Slot> {
  for (let i = from; i < to; i++) yield (entries[i] as Entry).slot;
}

/**
 * Up to this many candidates from an equality index are sorted directly; above it, a sorted page
 * is read from an ordered index when one serves the sort (see ordered-index.ts).
 */
const SORT_IN_MEMORY_MAX = 8_192;

// Mongoose's update validators cover these operators only ($inc & co. are cast, not validated).
const VALIDATED_UPDATE_OPS = ['$set', '$unset', '$push', '$addToSet', '$pull', '$pullAll', '$setOnInsert'];

/** Schema paths an update's validators run on; positional segments cut the path short. */
function validatedPaths(modifier: Record<string, Record<string, unknown>>): string[] {
  const paths = new Set<string>();
  for (const op of VALIDATED_UPDATE_OPS) {
    const fields = modifier[op];
    if (fields === undefined) continue;
    for (const path of Object.keys(fields)) {
      if (!path.includes('.') && !path.startsWith('$')) {
        paths.add(path);
        continue;
      }
      const parts = path.split('.');
      const cut = parts.findIndex((p) => p.startsWith('$'));
      paths.add((cut === -1 ? parts : parts.slice(0, cut)).join('.'));
    }
  }
  return [...paths].filter((p) => p !== '');
}

function hasPositionalPath(modifier: Record<string, Record<string, unknown>>): boolean {
  return Object.values(modifier).some((fields) => Object.keys(fields).some((p) => p.includes('$') && /(^|\.)\$(\.|$)/.test(p)));
}

const TO_OBJECT = { depopulate: true, versionKey: false, flattenMaps: true } as const;

interface UpdateOutcome {
  matchedCount: number;
  modifiedCount: number;
  upsertedId: string | null;
  before: Doc | null;
  after: Doc | null;
}

/**
 * Where a stored document lives, from its insert to its delete: an update swaps `doc` (stored
 * documents themselves are never mutated). `seq` is the insertion rank, the natural order.
 */
export class MemoryCollection<T extends Doc> implements Collection<T> {
  /** _id -> slot; the Map's iteration order is the natural order (ascending seq). */
  private readonly docs = new Map<string, Slot>();
  /** Documents written in place by open transactions (empty most of the time). */
  readonly dirty = new Map<string, DirtyEntry>();
  private nextSeq = 0;
  private readonly uniques: UniqueIndex[];
  private readonly equalities: EqualityIndex[];
  private readonly ordered: OrderedIndex[];
  private readonly model: mongoose.Model<Record<string, unknown>>;
  /** Casts without mongoose the documents it is sure of (fast-cast.ts); null: mongoose for all. */
  private readonly fastCast: FastCaster | null;
  private readonly timestamps: { createdAt?: string; updatedAt?: string };

  constructor(
    readonly name: string,
    schema: Schema,
    base: mongoose.Mongoose,
    private readonly store: CollectionHost,
  ) {
    const prepared = prepareSchema(schema);
    this.model = base.model<Record<string, unknown>>(name, prepared, name);
    this.fastCast = compileFastCaster(prepared);
    this.uniques = uniqueIndexes(prepared);
    this.equalities = equalityIndexes(prepared);
    this.ordered = orderedIndexes(prepared.indexes().map(([spec]) => spec as Record<string, unknown>));
    this.timestamps = timestampFields(prepared);
  }

  // ---- reads: the last committed state, plus the reader's own uncommitted writes ----

  async findOne(filter: Filter, opts: FindOptions & WriteOptions = {}): Promise<T | null> {
    const [first] = await this.find(filter, { ...opts, limit: 1 });
    return first ?? null;
  }

  async find(filter: Filter, opts: FindOptions & WriteOptions = {}): Promise<T[]> {
    const reader = this.store.answering() ? this.store.checkTx(opts.tx) : await this.store.reader(opts.tx);
    const page = this.select(filter, opts.sort, opts.skip ?? 0, opts.limit ?? 0, reader);
    let docs = page.map((slot) => slot.doc);
    const projected = opts.projection ? Object.keys(opts.projection) : [];
    if (opts.projection && projected.length > 0) {
      const plain = plainInclusion(opts.projection as AnyObject, projected);
      if (plain) docs = docs.map((doc) => includeFields(doc, plain));
      else {
        // mingo projects the page. A positional projection (`a.$`) reads the filter, and a query
        // with the filter tests the documents again, so it is only given the filter then.
        const positional = projected.some((path) => path.endsWith('.$'));
        docs = compileFull(positional ? filter : {})
          .find<Doc>(docs, opts.projection)
          .all();
      }
    }
    // Projected results can share nested objects with stored ones, so copy them all.
    return docs.map((d) => deepClone(d) as T);
  }

  async countDocuments(filter: Filter, opts: WriteOptions = {}): Promise<number> {
    const reader = this.store.answering() ? this.store.checkTx(opts.tx) : await this.store.reader(opts.tx);
    const match = this.store.queries.matcher(filter);
    let n = 0;
    const { best, exact } = this.plan(filter, undefined, 0, true);
    if (exact) n = exact.length;
    else for (const slot of best.slots) if (match(slot.doc)) n++;
    // Documents of other open transactions count as their committed versions.
    const others = this.othersDirty(reader, filter, match);
    if (others) {
      for (const [id, entry] of others) {
        const current = this.docs.get(id);
        if (current && match(current.doc)) n--;
        if (entry.pre && match(entry.pre)) n++;
      }
    }
    return n;
  }

  // ---- writes ----

  insertOne(doc: T, opts: WriteOptions = {}): Promise<T> {
    return this.store.write(opts, (w) => {
      const next = this.cast(this.stamp(doc, true));
      this.checkInsert(next, w);
      this.commit(next._id, undefined, next, w);
      return deepClone(next) as T;
    });
  }

  insertMany(docs: T[], opts: WriteOptions = {}): Promise<T[]> {
    return this.store.write(opts, (w) => {
      // Like an ordered insertMany: nothing is written if any document is invalid, and a
      // duplicate stops the batch with the earlier documents inserted.
      const prepared = docs.map((d) => this.cast(this.stamp(d, true)));
      for (const next of prepared) {
        this.checkInsert(next, w);
        this.commit(next._id, undefined, next, w);
      }
      return prepared.map((d) => deepClone(d) as T);
    });
  }

  async updateOne(filter: Filter, update: Update, opts: UpdateOptions = {}): Promise<UpdateResult> {
    const r = await this.store.write(opts, (w) => this.runUpdate(filter, update, { many: false, upsert: opts.upsert === true }, w));
    return { matchedCount: r.matchedCount, modifiedCount: r.modifiedCount, upsertedId: r.upsertedId };
  }

  async updateMany(filter: Filter, update: Update, opts: UpdateOptions = {}): Promise<UpdateResult> {
    const r = await this.store.write(opts, (w) => this.runUpdate(filter, update, { many: true, upsert: opts.upsert === true }, w));
    return { matchedCount: r.matchedCount, modifiedCount: r.modifiedCount, upsertedId: r.upsertedId };
  }

  async findOneAndUpdate(filter: Filter, update: Update, opts: FindOneAndUpdateOptions = {}): Promise<T | null> {
    const r = await this.store.write(opts, (w) => this.runUpdate(filter, update, { many: false, upsert: opts.upsert === true, sort: opts.sort }, w));
    const doc = opts.returnDocument === 'before' ? r.before : r.after;
    return doc ? (deepClone(doc) as T) : null;
  }

  deleteOne(filter: Filter, opts: WriteOptions = {}): Promise<{ deletedCount: number }> {
    return this.store.write(opts, (w) => this.runDelete(filter, 1, w));
  }

  deleteMany(filter: Filter, opts: WriteOptions = {}): Promise<{ deletedCount: number }> {
    return this.store.write(opts, (w) => this.runDelete(filter, 0, w));
  }

  /** Puts back a journaled version; the state it restores was consistent, so no checks. */
  restore(entry: UndoEntry): void {
    this.commit(entry.id, this.docs.get(entry.id)?.doc, entry.prev, undefined);
    const slot = this.docs.get(entry.id);
    if (slot) slot.version = entry.prevVersion;
  }

  /** Marks the current versions of documents as committed under commit number `version`. */
  stampCommitted(id: string, version: number): void {
    const slot = this.docs.get(id);
    if (slot) slot.version = version;
  }

  /** Releases a document a transaction made dirty (at its commit or after its rollback). */
  release(id: string, tx: MemoryTx): void {
    if (this.dirty.get(id)?.tx === tx) this.dirty.delete(id);
  }

  /** Loads the documents read from disk at start (validated when they were written). */
  loadPersisted(entries: PersistedDoc[]): void {
    for (const { seq, doc } of entries) {
      // In ascending seq order: the slot takes the rank it had, and the next insert goes after.
      this.nextSeq = Math.max(this.nextSeq, seq);
      this.commit(doc._id, undefined, doc, undefined);
    }
  }

  /**
   * The state of a document to write to disk: its insertion rank and content, or deleted. Read
   * while the writer still owns the document, so it is the writer's final state.
   */
  persistedState(id: string): StoreChange {
    const slot = this.docs.get(id);
    return { collection: this.name, id, seq: slot?.seq ?? -1, doc: slot?.doc };
  }

  // ---- internals (all synchronous: a write is atomic between two awaits) ----

  /**
   * Documents dirty in open transactions other than the reader's that can change what `filter`
   * selects for it, or null when there are none: those whose pre-image or current version
   * matches. One that matches in neither is absent from the reader's answer whichever version it
   * sees, so it is left out (with many transactions open at once, every read would
   * otherwise test and re-sort all of their documents). A filter that pins `_id` only needs those ids looked up.
   */
  private othersDirty(reader: MemoryTx | undefined, filter: Filter, match: Matcher): Map<string, DirtyEntry> | null {
    if (this.dirty.size === 0) return null;
    let others: Map<string, DirtyEntry> | null = null;
    const consider = (id: string, entry: DirtyEntry): void => {
      if (entry.tx === reader) return;
      const current = this.docs.get(id)?.doc;
      if (!(entry.pre && match(entry.pre)) && !(current && match(current))) return;
      others ??= new Map();
      others.set(id, entry);
    };
    const ids = isPlainObject(filter) ? equalityTerms(filter).get('_id') : undefined;
    if (ids && ids.every((id) => typeof id === 'string')) {
      for (const id of ids as string[]) {
        const entry = this.dirty.get(id);
        if (entry) consider(id, entry);
      }
    } else for (const [id, entry] of this.dirty) consider(id, entry);
    return others;
  }

  /**
   * What `reader` sees: the page of matches where documents dirty in other open transactions
   * count as their pre-images. Without such documents (the common case) it is selectRaw itself;
   * otherwise the page is read wider by their number, they are swapped for their matching
   * pre-images, and the result is sorted and paged again.
   */
  private select(filter: Filter, sort: Sort | undefined, skip: number, limit: number, reader: MemoryTx | undefined): Slot[] {
    if (this.dirty.size === 0) return this.selectRaw(filter, sort, skip, limit);
    const match = this.store.queries.matcher(filter);
    const others = this.othersDirty(reader, filter, match);
    if (!others) return this.selectRaw(filter, sort, skip, limit, match);
    skip = Math.max(0, skip);
    limit = Math.max(0, limit);
    const wide = this.selectRaw(filter, sort, 0, limit > 0 ? skip + limit + others.size : 0, match);
    const seen: Slot[] = wide.filter((slot) => !others.has(slot.doc._id));
    for (const entry of others.values()) {
      if (entry.pre && match(entry.pre)) seen.push({ doc: entry.pre, seq: entry.preSeq, version: entry.preVersion });
    }
    if (sort !== undefined && Object.keys(sort).length > 0) return sortedPage(seen, sort, skip, limit);
    seen.sort(bySeq);
    return skip > 0 || limit > 0 ? seen.slice(skip, limit > 0 ? skip + limit : undefined) : seen;
  }

  /**
   * The documents that can match, in no particular order, or null for "scan them all": the `_id`
   * lookup when the filter pins `_id`, else the smallest equality-index lookup the filter allows,
   * unless that still holds most of the collection (a scan of the primary map is then cheaper,
   * and in natural order). Always a superset of the matches: mingo evaluates the filter after.
   */
  private candidates(filter: Filter, terms = isPlainObject(filter) ? equalityTerms(filter) : null): Candidates | null {
    if (!terms || terms.size === 0) return null;
    const ids = terms.get('_id');
    if (ids) {
      const found = new Set<Slot>();
      for (const id of ids) {
        const slot = typeof id === 'string' ? this.docs.get(id) : undefined; // _ids are strings
        if (slot) found.add(slot);
      }
      return { slots: found, size: found.size };
    }
    let best: { index: EqualityIndex; keys: string[]; size: number } | null = null;
    for (const index of this.equalities) {
      const keys = index.lookupKeys(terms, this.docs.values());
      if (!keys) continue;
      let size = 0;
      for (const key of keys) size += index.size(key);
      if (!best || size < best.size) best = { index, keys, size };
      if (size === 0) break;
    }
    if (!best || best.size * 2 > this.docs.size) return null;
    if (best.keys.length === 1) return { slots: best.index.slots(best.keys[0] as string), size: best.size };
    const union = new Set<Slot>(); // a multikey document can sit under several keys
    for (const key of best.keys) for (const slot of best.index.slots(key)) union.add(slot);
    return { slots: union, size: union.size };
  }

  /**
   * The cheapest way to the documents a filter can match: the smallest candidate set (an `_id` or
   * equality-index lookup, a range of an ordered index, or every document), and, for a sorted page,
   * the ordered index (and range of it) whose order is the sort, if one is pinned by the filter.
   * For a count, also the bucket that is exactly the answer, when there is one.
   */
  private plan(filter: Filter, sort?: Sort, limit = 0, counting = false): Plan {
    const equal = isPlainObject(filter) ? equalityTerms(filter) : null;
    // Ordered indexes also keep null and missing values (one bucket), so `{ f: null }` pins them.
    const terms = equal && withNullTerms(filter, equal);
    const sortFields = sort && limit > 0 ? Object.keys(sort).length : 0;
    const sorted = sortFields > 0;
    if (terms && sorted && !counting) {
      // A page of an index whose prefix is exactly the filter and whose order is exactly the sort
      // is a slice of its bucket: no other plan can beat it, so none is looked for (the
      // webhook queue heads, three such reads per delivery).
      const exact = this.exactWalk(filter, terms, sort as Sort, sortFields);
      if (exact) return { best: { slots: [], size: 0, natural: false }, walk: exact, exact: null };
    }
    const narrowed = this.candidates(filter, equal);
    let best = narrowed ? { ...narrowed, natural: false } : { slots: this.docs.values(), size: this.docs.size, natural: true };
    let walk: Walk | null = null;
    // No index walk or range beats one candidate or none (an `_id` lookup), nor has a count to add.
    if (!terms || terms.size === 0 || (narrowed && narrowed.size <= 1)) return { best, walk, exact: null };
    const ranges = rangeTerms(filter);
    if (counting) {
      // A filter that is exactly an index's pinned prefix: its bucket's size is the count.
      const exact = this.ordered.filter((index) => index.isExactly(filter, terms)).sort((a, b) => Number(b.isBuilt) - Number(a.isBuilt))[0];
      const entries = exact?.walk(terms, this.docs.values());
      if (entries) return { best, walk, exact: entries };
    }
    for (const index of this.ordered) {
      if (!index.pins(terms)) continue;
      const range = ranges.get(index.order[0] as string);
      const served = sort && sorted ? index.servedFields(sort) : 0;
      const servesSort = served > 0;
      if (!range && !servesSort) continue;
      const entries = index.walk(terms, this.docs.values());
      if (!entries) continue;
      const [from, to] = range ? index.within(entries, range) : [0, entries.length];
      if (servesSort) {
        const full = served === sortFields && served === index.order.length;
        // The shortest walk; of equal ones, one in the exact sort order.
        if (!walk || to - from < walk.to - walk.from || (to - from === walk.to - walk.from && full && !walk.full)) {
          walk = { entries, from, to, full, served, exact: full && !range && index.isExactly(filter, terms) };
        }
      } else if (to - from < best.size) {
        best = { slots: slotsIn(entries, from, to), size: to - from, natural: false };
      }
    }
    return { best, walk, exact: null };
  }

  /** The walk of an index whose pinned prefix is exactly `filter` and whose order is exactly `sort`. */
  private exactWalk(filter: Filter, terms: Map<string, unknown[]>, sort: Sort, sortFields: number): Walk | null {
    for (const index of this.ordered) {
      if (index.order.length !== sortFields || index.servedFields(sort) !== sortFields || !index.isExactly(filter, terms)) continue;
      const entries = index.walk(terms, this.docs.values());
      if (entries) return { entries, from: 0, to: entries.length, full: true, served: sortFields, exact: true };
    }
    return null;
  }

  /**
   * The matching documents at [skip, skip + limit) (limit 0: all), in `sort` order, else in
   * natural order. Nothing is copied. The plan's candidates are not read when its walk is exact,
   * and then no matcher is made either: the filter is the index's pinned equalities, nothing a
   * matcher could refuse (the webhook queue's head reads are such walks).
   */
  private selectRaw(filter: Filter, sort: Sort | undefined, skip: number, limit: number, given?: Matcher): Slot[] {
    const sorted = sort !== undefined && Object.keys(sort).length > 0;
    skip = Math.max(0, skip);
    limit = Math.max(0, limit);
    const { best, walk } = this.plan(filter, sort, limit);
    // A walk stops at the page; sorting costs every candidate. Sort only small candidate sets.
    if (walk?.exact) {
      // Every entry matches: the page is a slice.
      const from = Math.min(walk.to, walk.from + skip);
      return walk.entries.slice(from, Math.min(walk.to, from + limit)).map((e) => e.slot);
    }
    const match = given ?? this.store.queries.matcher(filter);
    if (walk && (walk.to - walk.from <= best.size || best.size > SORT_IN_MEMORY_MAX)) {
      if (walk.full) {
        const page: Slot[] = [];
        let skipped = 0;
        for (let i = walk.from; i < walk.to; i++) {
          const slot = (walk.entries[i] as Entry).slot;
          if (!match(slot.doc)) continue;
          if (skipped < skip) skipped += 1;
          else if (page.push(slot) >= limit) break;
        }
        return page;
      }
      // The index orders by the leading sort fields only: collect matches up to the page, and on
      // to the end of the group of equal leading keys the page ends in; then sort those.
      const collected: Slot[] = [];
      let last: Entry | null = null;
      for (let i = walk.from; i < walk.to; i++) {
        const entry = walk.entries[i] as Entry;
        if (!match(entry.slot.doc)) continue;
        if (last && collected.length >= skip + limit && !sameLeadingKeys(entry, last, walk.served)) break;
        collected.push(entry.slot);
        last = entry;
      }
      return sortedPage(collected, sort as Sort, skip, limit);
    }
    const matched: Slot[] = [];
    // Natural order already: an unsorted page can stop early.
    const enough = best.natural && !sorted && limit > 0 ? skip + limit : Infinity;
    for (const slot of best.slots) if (match(slot.doc) && matched.push(slot) >= enough) break;
    if (!sorted && !best.natural) matched.sort(bySeq);
    if (sorted) return sortedPage(matched, sort, skip, limit);
    return skip > 0 || limit > 0 ? matched.slice(skip, limit > 0 ? skip + limit : undefined) : matched;
  }

  /**
   * Applies the schema: casting, defaults, unknown fields dropped, validation. Cast errors are
   * always reported; validators run on all paths, or only on `paths` (what an update touched).
   */
  private cast(input: Record<string, unknown>, paths?: string[]): Doc {
    // The fast caster validates every path, so a document it accepts passes `paths` too; one it
    // is not sure of (anything to convert, or to reject) goes to mongoose.
    const fast = this.fastCast?.(input);
    if (fast) return this.checkId(fast);
    const doc = new this.model(input);
    const err = doc.validateSync(paths);
    if (err) throw new DocumentValidationError(this.name, validationFields(err) ?? { '(document)': err.message });
    return this.checkId(deepClone(doc.toObject(TO_OBJECT) as Record<string, unknown>));
  }

  private checkId(out: Record<string, unknown>): Doc {
    const id = out._id;
    if (typeof id !== 'string' || id === '') {
      throw new DocumentValidationError(this.name, { _id: 'must be a non-empty string' });
    }
    return out as Doc;
  }

  /** Mongoose's `timestamps` behaviour for a document about to be inserted. */
  private stamp(doc: Record<string, unknown>, inserting: boolean): Record<string, unknown> {
    const { createdAt, updatedAt } = this.timestamps;
    if (!createdAt && !updatedAt) return doc;
    const now = new Date();
    const out = { ...doc };
    if (inserting && createdAt && out[createdAt] === undefined) out[createdAt] = now;
    if (updatedAt && out[updatedAt] === undefined) out[updatedAt] = (createdAt ? out[createdAt] : undefined) ?? now;
    return out;
  }

  /**
   * May `w` write the document `id`? Not while another open transaction holds it (a conflict
   * for a transaction, a wait for a lone write), nor, for a transaction, when its committed
   * version is newer than the transaction's snapshot.
   */
  private checkWritable(id: string, w: Writer, what = `document ${JSON.stringify(id)}`): void {
    const entry = this.dirty.get(id);
    if (entry && entry.tx !== w.tx) throw new Blocked(entry.tx, this.name, what);
    if (!entry && w.tx) {
      const slot = this.docs.get(id);
      if (slot && slot.version > w.tx.snapshot) {
        throw new WriteConflictError(this.name, `${what} was committed by another writer after this transaction began`);
      }
    }
  }

  private checkInsert(next: Doc, w: Writer): void {
    this.checkWritable(next._id, w);
    if (this.docs.has(next._id)) throw new DuplicateKeyError(this.name, { _id: 1 });
    this.checkUnique(next._id, next, w);
  }

  /** `prev`: the version an update replaces (its keys are this document's already). */
  private checkUnique(id: string, next: Doc, w: Writer, prev?: Doc): void {
    for (const index of this.uniques) {
      if (prev && sameUniqueKeys(index, prev, next)) continue;
      for (const key of indexKeys(index, next)) {
        const owner = index.owners.get(key);
        if (owner !== undefined && owner !== id) {
          this.checkWritable(owner, w, `a key of unique index ${JSON.stringify(index.keyPattern)}`);
          throw new DuplicateKeyError(this.name, index.keyPattern);
        }
        // A key the committed version of another transaction's document holds is still taken.
        const holder = index.reserved.get(key);
        if (holder !== undefined && holder !== w.tx && holder.state === 'active') {
          throw new Blocked(holder, this.name, `a key of unique index ${JSON.stringify(index.keyPattern)}`);
        }
      }
    }
  }

  /** The single place state changes: map, unique and equality indexes, dirty marks, journals. */
  private commit(id: string, prev: Doc | undefined, next: Doc | undefined, w: Writer | undefined): void {
    const before = this.docs.get(id);
    if (w) {
      w.journal.push({ coll: this as unknown as JournaledCollection, id, prev, prevVersion: before?.version ?? 0 });
      if (w.tx && !this.dirty.has(id)) this.markDirty(id, prev, before, w.tx);
    }
    for (const index of this.uniques) {
      if (prev && next && sameUniqueKeys(index, prev, next)) continue;
      if (prev) for (const key of indexKeys(index, prev)) if (index.owners.get(key) === id) index.owners.delete(key);
      if (next) for (const key of indexKeys(index, next)) index.owners.set(key, id);
    }
    // An update keeps the document's slot, so its place in the natural order; an insert, or a
    // rollback putting a deleted document back, goes last (as a Map re-insertion would).
    let slot = before;
    if (!slot && next) {
      slot = { doc: next, seq: this.nextSeq++, version: 0 };
      this.docs.set(id, slot);
    }
    if (slot) for (const index of this.equalities) index.update(slot, prev, next);
    if (slot) for (const index of this.ordered) index.update(slot, prev, next);
    if (slot && next) slot.doc = next;
    else this.docs.delete(id);
  }

  /** First write of a transaction to a document: others now see `prev`, and its keys stay taken. */
  private markDirty(id: string, prev: Doc | undefined, slot: Slot | undefined, tx: MemoryTx): void {
    this.dirty.set(id, { tx, pre: prev, preSeq: slot?.seq ?? -1, preVersion: slot?.version ?? 0 });
    tx.touched.push({ coll: this as unknown as JournaledCollection, id });
    if (!prev) return;
    for (const index of this.uniques) {
      for (const key of indexKeys(index, prev)) {
        index.reserved.set(key, tx);
        tx.reserved.push({ index, key });
      }
    }
  }

  private runUpdate(filter: Filter, update: Update, o: { many: boolean; upsert: boolean; sort?: Record<string, 1 | -1> }, w: Writer): UpdateOutcome {
    const { $setOnInsert, ...modifier } = normalizeUpdate(update);
    const { updatedAt } = this.timestamps;
    if (updatedAt && !Object.values(modifier).some((fields) => updatedAt in fields)) {
      modifier.$set = { ...modifier.$set, [updatedAt]: new Date() };
    }
    const targets = this.select(filter, o.sort, 0, o.many ? 0 : 1, w.tx).map((slot) => slot.doc);
    for (const target of targets) this.checkWritable(target._id, w); // before anything is written

    if (targets.length === 0) {
      if (!o.upsert) return { matchedCount: 0, modifiedCount: 0, upsertedId: null, before: null, after: null };
      // mingo refuses to write `_id` at all, so it is taken out and set directly.
      const { _id: filterId, ...seedFields } = upsertSeedFields(filter);
      const { _id: setId, ...set } = modifier.$set ?? {};
      const { _id: insertId, ...onInsert } = $setOnInsert ?? {};
      const seed: AnyObject = {};
      if (Object.keys(seedFields).length > 0) applyModifier(seed, { $set: deepClone(seedFields) });
      const onCreate = { ...modifier, ...(modifier.$set ? { $set: set } : {}) };
      if (Object.keys(onCreate).length > 0) applyModifier(seed, deepClone(onCreate));
      if (Object.keys(onInsert).length > 0) applyModifier(seed, { $set: deepClone(onInsert) });
      seed._id = filterId ?? setId ?? insertId ?? randomUUID(); // the mongo engine also picks a string
      // Like mongoose's upsert: defaults applied, validators only on the update's own paths.
      const next = this.cast(this.stamp(seed, true), validatedPaths({ ...modifier, $setOnInsert: $setOnInsert ?? {} }));
      this.checkInsert(next, w);
      this.commit(next._id, undefined, next, w);
      return { matchedCount: 0, modifiedCount: 0, upsertedId: next._id, before: null, after: next };
    }

    // The filter is only needed again to resolve positional `$` paths.
    const condition = hasPositionalPath(modifier) ? filter : undefined;
    const paths = validatedPaths(modifier);
    let modifiedCount = 0;
    let before: Doc | null = null;
    let after: Doc | null = null;
    for (const target of targets) {
      const { working, changed } = updatedCopy(target, modifier, condition);
      let next = target;
      if (changed.length > 0) {
        if (working._id !== target._id) throw new Error(`${this.name}: the _id field is immutable`);
        next = this.cast(working, paths);
        this.checkUnique(target._id, next, w, target);
        this.commit(target._id, target, next, w);
        modifiedCount++;
      }
      before ??= target;
      after ??= next;
    }
    return { matchedCount: targets.length, modifiedCount, upsertedId: null, before, after };
  }

  private runDelete(filter: Filter, limit: number, w: Writer): { deletedCount: number } {
    const targets = this.select(filter, undefined, 0, limit, w.tx);
    for (const target of targets) this.checkWritable(target.doc._id, w);
    for (const target of targets) this.commit(target.doc._id, target.doc, undefined, w);
    return { deletedCount: targets.length };
  }
}
