// The on-disk side of the embedded engines: one LMDB environment (lmdb-js) per store and one for
// the bus, written through an ordered group-commit queue.
//
// Durability rule: a write is acknowledged only after the LMDB transaction holding it has been
// committed AND flushed to disk (`root.flushed`). lmdb-js commits with `overlappingSync` on Linux,
// which resolves a write's promise at commit (visible) and syncs to disk afterwards; awaiting
// `flushed` closes that gap. Writes queued while a commit is in flight go into the next LMDB
// transaction together (group commit), so many concurrent writers share one fsync.
//
// Order: batches are committed one after the other, in queue order. When a batch fails (full or
// read-only disk, I/O error), that batch and everything queued behind it fail together: a later
// entry may depend on a failed one, so it must not reach the disk without it. `onFailure` runs
// synchronously before the promises reject, so the engine can undo its in-memory side before any
// other code sees the failure.
import { mkdirSync } from 'node:fs';
import { Packr } from 'msgpackr';
import { open, type RootDatabase } from 'lmdb';
import { StoreUnavailableError } from '@vrp/platform/store';

export interface CommitEntry {
  /**
   * Puts and removes of this entry, run synchronously inside the batch's LMDB transaction. Their
   * promises are `void`ed: they settle with the transaction, whose failure flush() reports by
   * rejecting every entry of the batch.
   */
  write(db: RootDatabase): void;
  /** Runs synchronously once the entry is durable, before its promise resolves. */
  onDurable?(): void;
}

interface Queued extends CommitEntry {
  resolve(): void;
  reject(error: Error): void;
}

export interface DurableEnvOptions {
  /** Directory of the LMDB environment (created if missing). */
  path: string;
  /** What the failure is about, for the error message ("listing store", "bus"). */
  label: string;
  /** Undo in memory whatever the failed entries did; runs before their promises reject. */
  onFailure?(error: unknown): void;
  /** Open without write access (recovery inspection, tests of a read-only disk). */
  readOnly?: boolean;
}

export class DurableEnv {
  readonly root: RootDatabase;
  private pending: Queued[] = [];
  private flushing: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly options: DurableEnvOptions) {
    if (!options.readOnly) mkdirSync(options.path, { recursive: true });
    // Values are stored as bytes that we encode (see encodeValue), not with lmdb-js's MessagePack.
    this.root = open({ path: options.path, readOnly: options.readOnly ?? false, encoding: 'binary' });
  }

  /** Queues an entry for the next commit; resolves once it is on disk. */
  commit(entry: CommitEntry): Promise<void> {
    if (this.closed) return Promise.reject(new StoreUnavailableError(`${this.options.label}: closed`));
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ write: entry.write, onDurable: entry.onDurable, resolve, reject });
      // A microtask: entries queued in this same turn join the batch.
      this.flushing ??= Promise.resolve().then(() => this.flush());
    });
  }

  /** Waits for every queued entry, then closes the environment. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.flushing;
    await this.root.close();
  }

  private async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      try {
        await this.root.transaction(() => {
          for (const entry of batch) entry.write(this.root);
        });
        await this.root.flushed;
      } catch (cause) {
        const failed = [...batch, ...this.pending];
        this.pending = [];
        try {
          this.options.onFailure?.(cause);
        } finally {
          const error = new StoreUnavailableError(`${this.options.label}: the write did not reach the disk (${describe(cause)})`, { cause });
          for (const entry of failed) entry.reject(error);
        }
        continue;
      }
      for (const entry of batch) {
        try {
          entry.onDurable?.();
        } finally {
          entry.resolve();
        }
      }
    }
    this.flushing = null;
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
