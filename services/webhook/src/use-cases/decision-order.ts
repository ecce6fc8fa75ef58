// The order of the intake's decisions in one process. A decision about some listings runs after
// every earlier decision about any of them, and side by side with decisions about other listings:
// one listing's events are decided in the order they came, and a slow decision (a confirmation
// from the listing service, a commit waiting for the disk) holds only its own listings. A
// decision over every listing (a sweep of the held events) runs alone: after every earlier
// decision, and before every later one.

type Settled = Promise<void>;

export class DecisionOrder {
  /** Per key: the last decision about it, settled (never rejects). */
  private readonly tails = new Map<string, Settled>();
  /** Keyed decisions not yet settled: a decision over every key waits for them. */
  private readonly running = new Set<Settled>();
  /** The last decision over every key. */
  private barrier: Settled = Promise.resolve();

  /** Runs `step` after every earlier decision about any of `keys`; its result or error goes to the caller. */
  about<T>(keys: readonly string[], step: () => Promise<T>): Promise<T> {
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

  /** Runs `step` after every earlier decision, and before every later one. */
  overAll<T>(step: () => Promise<T>): Promise<T> {
    const run = Promise.all([this.barrier, ...this.running]).then(step);
    this.barrier = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** Settles once every decision queued so far has settled. */
  idle(): Promise<void> {
    return Promise.all([this.barrier, ...this.running]).then(() => undefined);
  }
}
