// The scheduling clock of deliveries: when a retry is due. Production uses the system clock;
// tests use ManualClock to move time forward (e.g. three days of retries) without sleeping,
// and the scheduler wakes at once when the clock moves.

export interface WebhookClock {
  now(): Date;
  /** Called whenever time jumps (ManualClock); the system clock never calls it. Returns an unsubscribe. */
  onAdvance(listener: () => void): () => void;
}

export const systemClock: WebhookClock = {
  now: () => new Date(),
  onAdvance: () => () => undefined,
};

export class ManualClock implements WebhookClock {
  private current: number;
  private readonly listeners = new Set<() => void>();

  constructor(start: Date = new Date()) {
    this.current = start.getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  /** Moves time forward and wakes the scheduler. */
  advance(ms: number): void {
    if (ms < 0) throw new Error('a clock does not go backwards');
    this.current += ms;
    for (const listener of this.listeners) listener();
  }

  onAdvance(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
