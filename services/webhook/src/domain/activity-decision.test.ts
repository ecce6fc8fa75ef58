// Unit tests of the delivery decision by listing activity at the event's time.
import { confirms, decideBy, decideByActivity, finalDecision } from './activity-decision';

const windows = { settleMs: 1_000, holdMs: 60_000 };
const k = (active: boolean, settled: boolean) => ({ active, settled });

describe('delivery decision by activity at the event time', () => {
  it('decides at once when the answer is settled', () => {
    expect(decideByActivity([k(true, true)], windows)).toEqual({ kind: 'deliver' });
    expect(decideByActivity([k(false, true)], windows)).toEqual({ kind: 'drop' });
  });

  it('holds an unsettled answer: a late deactivation or a late activation may still change it', () => {
    expect(decideByActivity([k(true, false)], windows)).toEqual({ kind: 'hold', likely: 'deliver' });
    expect(decideByActivity([k(false, false)], windows)).toEqual({ kind: 'hold', likely: 'drop' });
    // Without a settle window, what looks deliverable goes at once; a drop is never decided on stale knowledge.
    expect(decideByActivity([k(true, false)], { ...windows, settleMs: 0 })).toEqual({ kind: 'deliver' });
    expect(decideByActivity([k(false, false)], { ...windows, settleMs: 0 })).toEqual({ kind: 'hold', likely: 'drop' });
  });

  it('delivers an event without listings, and a guest event when any of their listings was active', () => {
    expect(decideByActivity([], windows)).toEqual({ kind: 'deliver' });
    expect(decideByActivity([k(false, true), k(true, true)], windows)).toEqual({ kind: 'deliver' });
    expect(decideByActivity([k(false, true), k(true, false)], windows)).toEqual({ kind: 'hold', likely: 'deliver' });
    expect(decideByActivity([k(false, true), k(false, false)], windows)).toEqual({ kind: 'hold', likely: 'drop' });
    expect(decideByActivity([k(false, true), k(false, true)], windows)).toEqual({ kind: 'drop' });
  });

  it('takes what is known when the window ends as final, and ends each window after its own length', () => {
    expect(finalDecision([k(true, false)])).toBe('deliver');
    expect(finalDecision([k(false, false)])).toBe('drop');
    expect(finalDecision([])).toBe('deliver');
    const at = new Date('2030-01-01T00:00:00Z');
    expect(decideBy(at, 'deliver', windows).getTime() - at.getTime()).toBe(1_000);
    expect(decideBy(at, 'drop', windows).getTime() - at.getTime()).toBe(60_000);
  });

  it('settles by a confirmation only when the cache holds the confirmed version and the event is not newer than it', () => {
    const at = new Date('2030-01-01T00:00:10Z');
    const before = new Date('2030-01-01T00:00:09Z');
    const after = new Date('2030-01-01T00:00:11Z');
    expect(confirms({ version: 3, at }, 3, before)).toBe(true);
    expect(confirms({ version: 3, at }, 3, at)).toBe(true);
    // The event happened after the answer: a change may have been committed in between.
    expect(confirms({ version: 3, at }, 3, after)).toBe(false);
    // The listing service knows a change the cache has not applied yet (or the reverse).
    expect(confirms({ version: 4, at }, 3, before)).toBe(false);
    expect(confirms({ version: 3, at }, 4, before)).toBe(false);
    // No version from the listing service, or no answer at all.
    expect(confirms({ version: 0, at }, 0, before)).toBe(false);
    expect(confirms(undefined, 3, before)).toBe(false);
  });
});
