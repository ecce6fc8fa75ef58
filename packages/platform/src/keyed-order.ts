// An order of work by keys, in one process. Work about some keys runs after every earlier work
// about any of them, and side by side with work about other keys: one key's work runs in the
// order it came, and slow work (a call to another service, a commit waiting for the disk) holds
// only its own keys. Work over every key (`overAll`) runs alone: after every earlier work, and
// before every later one. The webhook intake orders its decisions by listing with it; the guest
// service orders the links of reservations to a guest by the guest's match keys, so that two
// partitions never race for one profile in a process.
//
// Work about one key that arrives while earlier work waits for its turn may be taken together
// (`batched`): it joins the last work queued for that key when that is a batch that has not
// started, so it runs at that batch's place in the order, in the order it came. Work of any other
// kind queued for the key closes its batch: what comes after waits for it.

type Settled = Promise<void>;

/** Items taken together; open while it waits for its turn. */
interface Batch<I, R> {
  items: I[];
  settle: { resolve(result: R): void; reject(error: unknown): void }[];
}

/** Items a batch takes at most; the next item opens a new batch behind it. */
export const BATCH_MAX = 64;

export class KeyedOrder {
  /** Per key: the last work about it, settled (never rejects). */
  private readonly tails = new Map<string, Settled>();
  /** Keyed work not yet settled: work over every key waits for it. */
  private readonly running = new Set<Settled>();
  /** The last work over every key. */
  private barrier: Settled = Promise.resolve();

  /** Per key: the batch queued last for it, while it has not started. */
  private readonly open = new Map<string, Batch<unknown, unknown>>();

  /** Runs `step` after every earlier work about any of `keys`; its result or error goes to the caller. */
  about<T>(keys: readonly string[], step: () => Promise<T>): Promise<T> {
    for (const key of keys) this.open.delete(key);
    return this.queue(keys, step);
  }

  /**
   * Runs `item` with the other items of the open batch of `key`, or opens a batch queued as
   * `about([key])` would be. `run` gets the batch's items in the order they came and answers one
   * result per item; its error goes to every item's caller.
   */
  batched<I, R>(key: string, item: I, run: (items: I[]) => Promise<R[]>): Promise<R> {
    let batch = this.open.get(key) as Batch<I, R> | undefined;
    if (!batch || batch.items.length >= BATCH_MAX) {
      const opened: Batch<I, R> = { items: [], settle: [] };
      batch = opened;
      this.open.set(key, opened as Batch<unknown, unknown>);
      void this.queue([key], async () => {
        if (this.open.get(key) === (opened as Batch<unknown, unknown>)) this.open.delete(key);
        try {
          const results = await run(opened.items);
          opened.settle.forEach((s, i) => s.resolve(results[i] as R));
        } catch (error) {
          for (const s of opened.settle) s.reject(error);
        }
      });
    }
    const joined = batch;
    return new Promise<R>((resolve, reject) => {
      joined.items.push(item);
      joined.settle.push({ resolve, reject });
    });
  }

  private queue<T>(keys: readonly string[], step: () => Promise<T>): Promise<T> {
    const before = [this.barrier];
    for (const key of keys) {
      const tail = this.tails.get(key);
      if (tail) before.push(tail);
    }
    const run = Promise.all(before).then(step);
    const settled: Settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.running.add(settled);
    for (const key of keys) this.tails.set(key, settled);
    void settled.then(() => {
      this.running.delete(settled);
      for (const key of keys) if (this.tails.get(key) === settled) this.tails.delete(key);
    });
    return run;
  }

  /** Runs `step` after every earlier work, and before every later one. */
  overAll<T>(step: () => Promise<T>): Promise<T> {
    this.open.clear();
    const run = Promise.all([this.barrier, ...this.running]).then(step);
    this.barrier = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** Settles once every work queued so far has settled. */
  idle(): Promise<void> {
    return Promise.all([this.barrier, ...this.running]).then(() => undefined);
  }
}
