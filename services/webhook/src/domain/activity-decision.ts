// Whether an event is delivered, decided by the listing's activity at the time the event
// happened, not by the order in which two topics reached this service. `knowledge` holds one
// answer per listing the event depends on (one listing; for a guest, the listings of their
// stays, any active one sufficing): was the listing active at the event's occurred_at, and is
// that answer settled (a later activity change is known) or could a change still arrive?
//
// - settled: decide now (deliver or drop);
// - unsettled: hold the event and decide again when an activity change of its listing arrives,
//   at the latest when its window ends: the settle window when it looks deliverable (a late
//   deactivation can still drop it), the hold window when it looks droppable (a late activation
//   can still release it). Then the knowledge of that moment is final.

// A confirmation settles an answer without waiting: the listing service answered, at `at` or later,
// that the listing's latest activity change has version `version`. When the cache holds that very
// version, it has every change the listing service had committed by `at`, so for an event that
// happened at or before `at` no earlier change can still arrive (the common case pays no
// window). Version 0 means the listing service did not say (an older one): no confirmation.

/** What the listing service said about a listing's activity, and from when that holds. */
export interface ActivityConfirmation {
  /** The listing's latest activity version per the listing service (0: unknown). */
  version: number;
  /** When the question was sent: the answer covers every change committed before it. */
  at: Date;
}

/**
 * Whether a confirmation settles the answer for an event that happened at `occurredAt`, given the
 * version the cache holds now.
 */
export function confirms(confirmation: ActivityConfirmation | undefined, cachedVersion: number, occurredAt: Date): boolean {
  return confirmation !== undefined && confirmation.version > 0 && confirmation.version === cachedVersion && occurredAt.getTime() <= confirmation.at.getTime();
}

export interface ActivityKnowledge {
  active: boolean;
  settled: boolean;
}

export type ActivityDecision = { kind: 'deliver' } | { kind: 'drop' } | { kind: 'hold'; likely: 'deliver' | 'drop' };

export interface ActivityWindows {
  /** How long an event that looks deliverable waits for a late deactivation (0: deliver at once). */
  settleMs: number;
  /** How long an event that looks droppable waits for a late activation. */
  holdMs: number;
}

export function decideByActivity(knowledge: readonly ActivityKnowledge[], windows: ActivityWindows): ActivityDecision {
  if (knowledge.length === 0 || knowledge.some((k) => k.active && k.settled)) return { kind: 'deliver' };
  if (knowledge.some((k) => k.active)) return windows.settleMs > 0 ? { kind: 'hold', likely: 'deliver' } : { kind: 'deliver' };
  if (knowledge.every((k) => k.settled)) return { kind: 'drop' };
  return { kind: 'hold', likely: 'drop' };
}

/** The decision once the window has ended: what is known now is final. */
export function finalDecision(knowledge: readonly ActivityKnowledge[]): 'deliver' | 'drop' {
  return knowledge.length === 0 || knowledge.some((k) => k.active) ? 'deliver' : 'drop';
}

/** When a held event is decided at the latest. */
export function decideBy(heldAt: Date, likely: 'deliver' | 'drop', windows: ActivityWindows): Date {
  return new Date(heldAt.getTime() + (likely === 'deliver' ? windows.settleMs : windows.holdMs));
}

export const DEFAULT_ACTIVITY_WINDOWS: ActivityWindows = { settleMs: 1_000, holdMs: 60_000 };
