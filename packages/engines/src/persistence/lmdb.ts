// The on-disk side of the embedded engines: LMDB (lmdb-js) environments written through an
// ordered group-commit queue.
//
// Layout: one environment per data directory (`<DATA_DIR>/journal`), with one named database per
// store and one for the bus (`openJournal`), as one MongoDB server journals all its databases
// together: the writes of every store and of the bus queued meanwhile share one LMDB transaction
// and one fsync. A DurableEnv opened on a path of its own (tests, tools) is an environment with a
// single owner, written the same way.
//
// Durability rule: a write is acknowledged only after the LMDB transaction holding it has been
// committed AND flushed to disk (`flushed`). lmdb-js commits with `overlappingSync` on Linux,
// which resolves a write's promise at commit (visible) and syncs to disk afterwards; awaiting
// `flushed` closes that gap. Writes queued while a commit is in flight go into the next LMDB
// transaction together (group commit), so many concurrent writers share one fsync.
//
// Order: batches are committed one after the other, in queue order. When a batch fails (full or
// read-only disk, I/O error), that batch and everything queued behind it fail together, whoever
// queued them: a later entry may depend on a failed one, so it must not reach the disk without it.
// The `onFailure` of every owner with a failed entry runs synchronously before the promises
// reject, so each engine can undo its in-memory side before any other code sees the failure.
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Packr } from 'msgpackr';
import { open, type Database, type RootDatabase } from 'lmdb';
import { StoreUnavailableError } from '@vrp/platform/store';

export interface CommitEntry {
  /**
   * Puts and removes of this entry, run synchronously inside the batch's LMDB transaction, on the
   * owner's database. Their promises are `void`ed: they settle with the transaction, whose
   * failure flush() reports by rejecting every entry of the batch.
   */
  write(db: Database): void;
  /** Runs synchronously once the entry is durable, before its promise resolves. */
  onDurable?(): void;
}

/** What the journal knows of an owner: its database, its name in errors, and its undo. */
interface Owner {
  readonly root: Database;
  readonly label: string;
  readonly onFailure?: ((cause: unknown) => void) | undefined;
}

interface Queued {
  owner: Owner;
  entry: CommitEntry;
  resolve(): void;
  reject(error: Error): void;
}

export interface DurableEnvOptions {
  /** What the failure is about, for the error message ("listing store", "bus"). */
  label: string;
  /** Undo in memory whatever the failed entries did; runs before their promises reject. */
  onFailure?(error: unknown): void;
}

export interface OwnEnvOptions extends DurableEnvOptions {
  /** Directory of an environment of its own (created if missing). */
  path: string;
  /** Open without write access (recovery inspection, tests of a read-only disk). */
  readOnly?: boolean;
}

export interface JournalEnvOptions extends DurableEnvOptions {
  /** The data directory's journal (openJournal) and the owner's database in it ("reservation", "bus"). */
  journal: Journal;
  name: string;
}

/**
 * One LMDB environment and its commit queue, shared by the owners opened on it. Closed when its
 * last owner closes.
 */
export class Journal {
  private pending: Queued[] = [];
  private flushing: Promise<void> | null = null;
  private owners = 0;
  private closed = false;

  constructor(
    readonly env: RootDatabase,
    private readonly onClosed: () => void = () => undefined,
  ) {}

  attach(): void {
    this.owners += 1;
  }

  commit(owner: Owner, entry: CommitEntry): Promise<void> {
    if (this.closed) return Promise.reject(new StoreUnavailableError(`${owner.label}: closed`));
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ owner, entry, resolve, reject });
      // A microtask: entries queued in this same turn join the batch.
      this.flushing ??= Promise.resolve().then(() => this.flush());
    });
  }

  /** Waits for every queued entry; the last owner to leave closes the environment. */
  async detach(): Promise<void> {
    await this.flushing;
    this.owners -= 1;
    if (this.owners > 0 || this.closed) return;
    this.closed = true;
    this.onClosed();
    await this.env.close();
  }

  private async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      try {
        // A child transaction: an entry that throws (a key over LMDB's size limit, a value that
        // cannot be encoded) aborts the whole batch. In a plain lmdb-js transaction the puts made
        // before the throw would still commit, while every entry of the batch is reported failed.
        await this.env.childTransaction(() => {
          for (const q of batch) q.entry.write(q.owner.root);
        });
        await this.env.flushed;
      } catch (cause) {
        const failed = [...batch, ...this.pending];
        this.pending = [];
        const owners = new Set(failed.map((q) => q.owner));
        for (const owner of owners) {
          try {
            owner.onFailure?.(cause);
          } catch {
            // One owner's undo must not keep the others' from running.
          }
        }
        for (const q of failed) q.reject(new StoreUnavailableError(`${q.owner.label}: the write did not reach the disk (${describe(cause)})`, { cause }));
        continue;
      }
      for (const q of batch) {
        try {
          q.entry.onDurable?.();
        } finally {
          q.resolve();
        }
      }
    }
    this.flushing = null;
  }
}

/** Named databases of a journal: the stores, the bus, and the record of what was migrated into it. */
const JOURNAL_MAX_DBS = 32;
const MIGRATED_DB = '_migrated';
const journals = new Map<string, Journal>();

/**
 * The journal of a data directory (`<dataDir>/journal`): one per directory in a process, shared
 * by every store and the bus opened on that directory.
 */
export function openJournal(dataDir: string): Journal {
  const path = join(dataDir, 'journal');
  let journal = journals.get(path);
  if (!journal) {
    mkdirSync(path, { recursive: true });
    const env = open({ path, maxDbs: JOURNAL_MAX_DBS, encoding: 'binary' });
    // Before anything else writes to it: a synchronous transaction must not wait for an async one.
    migrateLegacyEnvs(env, dataDir);
    journal = new Journal(env, () => journals.delete(path));
    journals.set(path, journal);
  }
  return journal;
}

export class DurableEnv implements Owner {
  /** The owner's database: the environment's root, or its named database in a journal. */
  readonly root: Database;
  readonly label: string;
  readonly onFailure: ((cause: unknown) => void) | undefined;
  private readonly journal: Journal;
  private closed = false;

  constructor(options: OwnEnvOptions | JournalEnvOptions) {
    this.label = options.label;
    this.onFailure = options.onFailure;
    if ('journal' in options) {
      this.journal = options.journal;
      this.root = options.journal.env.openDB({ name: options.name, encoding: 'binary' });
    } else {
      if (!options.readOnly) mkdirSync(options.path, { recursive: true });
      // Values are stored as bytes that we encode (see encodeValue), not with lmdb-js's MessagePack.
      const env = open({ path: options.path, readOnly: options.readOnly ?? false, encoding: 'binary' });
      this.journal = new Journal(env);
      this.root = env;
    }
    this.journal.attach();
  }

  /** Queues an entry for the next commit; resolves once it is on disk. */
  commit(entry: CommitEntry): Promise<void> {
    if (this.closed) return Promise.reject(new StoreUnavailableError(`${this.label}: closed`));
    return this.journal.commit(this, entry);
  }

  /** Waits for every queued entry, then leaves the environment (closed with its last owner). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.journal.detach();
  }
}

/**
 * Moves what the environments of the layout before journals hold (`<dataDir>/<name>`: one per
 * store and one for the bus) into the journal's database of the same name, once each: in one
 * transaction with its mark, so that a crash leaves a move either not done (done again at the next
 * start) or done. The old directories are left as they were.
 */
function migrateLegacyEnvs(env: RootDatabase, dataDir: string): void {
  const legacy = readdirSync(dataDir, { withFileTypes: true }).filter(
    (d) => d.isDirectory() && d.name !== 'journal' && existsSync(join(dataDir, d.name, 'data.mdb')),
  );
  if (legacy.length === 0) return;
  const marks = env.openDB({ name: MIGRATED_DB, encoding: 'binary' });
  for (const { name } of legacy) {
    if (marks.get(name) !== undefined) continue;
    const from = open({ path: join(dataDir, name), readOnly: true, encoding: 'binary' });
    const to = env.openDB({ name, encoding: 'binary' });
    try {
      env.transactionSync(() => {
        for (const { key, value } of from.getRange({})) to.putSync(key, value as Buffer);
        marks.putSync(name, encodeValue(Date.now()));
      });
    } finally {
      void from.close();
    }
  }
}

/**
 * Values on disk: MessagePack (msgpackr; Dates as timestamps, binary data, nested objects,
 * undefined), with our own encoder instance rather than the one lmdb-js keeps per process: that
 * one can belong to another JS realm (jest runs each test file in its own), where `instanceof
 * Date` fails (a Date was stored as a string) and decoded objects are not plain objects here.
 */
const packr = new Packr({ useRecords: false });

export function encodeValue(value: unknown): Buffer {
  return packr.pack(value);
}

export function decodeValue<T>(bytes: Uint8Array): T {
  return packr.unpack(bytes) as T;
}

function describe(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
