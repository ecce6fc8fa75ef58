import { DEFAULT_WORKSPACE_SETTINGS } from '@vrp/api-model';
import type { WritableStatus } from './reservation';
import {
  assertStayFree,
  checksBeyondOwnNights,
  changesNights,
  claimedNights,
  conflictFlagHolds,
  dateConflicts,
  holdersOf,
  holdPlan,
  stayClaim,
  stayNights,
  type BookedNight,
} from './booking';

const DEFAULTS = DEFAULT_WORKSPACE_SETTINGS;
const at = (ms = 0) => ({ self: 'res_me', key: '', now: new Date(Date.UTC(2030, 0, 1) + ms) });
const stay = { status: 'CONFIRMED' as WritableStatus, checkIn: '2030-05-02', checkOut: '2030-05-04' };
const errorOf = (fn: () => unknown): { code?: string; details?: unknown } => {
  try {
    fn();
  } catch (err) {
    return err as { code?: string; details?: unknown };
  }
  return {};
};

describe('the booking rule', () => {
  it('a stay claims [checkIn, checkOut): the check-out day is free for the next guest', () => {
    expect(stayNights('2030-02-27', '2030-03-02')).toEqual(['2030-02-27', '2030-02-28', '2030-03-01']);
    expect(stayNights('2030-03-02', '2030-03-02')).toEqual([]);
  });

  it('PENDING and CONFIRMED claim their nights; CANCELLED claims none', () => {
    const s = { checkIn: '2030-01-01', checkOut: '2030-01-03' };
    expect(claimedNights({ ...s, status: 'PENDING' })).toEqual(['2030-01-01', '2030-01-02']);
    expect(claimedNights({ ...s, status: 'CONFIRMED' })).toEqual(['2030-01-01', '2030-01-02']);
    expect(claimedNights({ ...s, status: 'CANCELLED' })).toEqual([]);
  });

  it('a local write and a PMS booking of the same stay claim the same nights', () => {
    expect(stayClaim(stay, 'local', DEFAULTS)).toEqual({ nights: ['2030-05-02', '2030-05-03'], mustBeFree: ['2030-05-02', '2030-05-03'] });
    expect(stayClaim(stay, 'pms', DEFAULTS)).toEqual(stayClaim(stay, 'local', DEFAULTS));
    expect(checksBeyondOwnNights(stayClaim(stay, 'local', DEFAULTS))).toBe(false);
    expect(checksBeyondOwnNights({ nights: ['2030-05-02'], mustBeFree: ['2030-05-01', '2030-05-02'] })).toBe(true);
  });

  describe('with the workspace setting bufferNights', () => {
    const BUFFER = { ...DEFAULTS, bufferNights: true };
    const buffered = stayClaim(stay, 'local', BUFFER);

    it('a local write needs the night before check-in and the night of check-out free too, without holding them', () => {
      expect(buffered).toEqual({ nights: ['2030-05-02', '2030-05-03'], mustBeFree: ['2030-05-01', '2030-05-02', '2030-05-03', '2030-05-04'] });
      expect(checksBeyondOwnNights(buffered)).toBe(true);
      expect(stayClaim({ ...stay, status: 'CANCELLED' }, 'local', BUFFER)).toEqual({ nights: [], mustBeFree: [] });
    });

    it('refuses a local stay next to another one (on a listing with or without a PMS), naming the buffer night and its holder; one free night between is enough', () => {
      const before = [{ night: '2030-05-01', reservationId: 'res_before' }];
      expect(errorOf(() => assertStayFree(buffered, [], before, at()))).toMatchObject({
        code: 'dates_unavailable',
        details: { conflicts: [{ date: '2030-05-01', reason: 'booked', reservationId: 'res_before' }] },
      });
      const after = [{ night: '2030-05-04', reservationId: 'res_pms_after' }];
      expect(errorOf(() => holdPlan(buffered, after, 'local', { ...at(), pending: true }))).toMatchObject({
        code: 'dates_unavailable',
        details: { conflicts: [{ date: '2030-05-04', reason: 'booked', reservationId: 'res_pms_after' }] },
      });
      // The stay's own nights (a change of its dates) and a closed buffer night are no conflict.
      expect(() =>
        assertStayFree(buffered, [{ date: '2030-05-01', available: false }], [{ night: '2030-05-04', reservationId: 'res_me' }], at()),
      ).not.toThrow();
      expect(() => assertStayFree(stayClaim({ ...stay, checkIn: '2030-05-03', checkOut: '2030-05-05' }, 'local', BUFFER), [], before, at())).not.toThrow();
    });

    it('a PMS booking is a fact: it needs only its own nights and is never refused next to a stay', () => {
      expect(stayClaim(stay, 'pms', BUFFER)).toEqual(stayClaim(stay, 'pms', DEFAULTS));
      const next = [{ night: '2030-05-01', reservationId: 'res_local' }];
      expect(
        holdPlan(
          stayClaim(stay, 'pms', BUFFER),
          next.filter((n) => n.night >= stay.checkIn),
          'pms',
          { ...at(), pending: false },
        ).overlaps,
      ).toEqual([]);
    });

    it('off by default: stays may touch', () => {
      expect(DEFAULTS.bufferNights).toBe(false);
      expect(() => assertStayFree(stayClaim(stay, 'local', DEFAULTS), [], [{ night: '2030-05-01', reservationId: 'res_before' }], at())).not.toThrow();
    });
  });

  it('names each taken night once, booked before closed, in date order, ignoring the reservation itself', () => {
    const nights = ['2030-01-03', '2030-01-01', '2030-01-02', '2030-01-04'];
    const calendar = [
      { date: '2030-01-01', available: false },
      { date: '2030-01-02', available: false },
      { date: '2030-01-04', available: true },
    ];
    const booked = [
      { night: '2030-01-02', reservationId: 'res_other' },
      { night: '2030-01-03', reservationId: 'res_self' },
    ];
    expect(dateConflicts(nights, calendar, booked, 'res_self')).toEqual([
      { date: '2030-01-01', reason: 'closed' },
      { date: '2030-01-02', reason: 'booked', reservationId: 'res_other' },
    ]);
    expect(dateConflicts(nights, [], [], '')).toEqual([]);
  });

  it('a local write is refused when a night is closed or held by another stay or a live pending hold; a lapsed hold is free', () => {
    const claim = stayClaim(stay, 'local', DEFAULTS);
    expect(() => assertStayFree(claim, [], [], at())).not.toThrow();
    expect(errorOf(() => assertStayFree(claim, [{ date: '2030-05-03', available: false }], [], at()))).toMatchObject({ code: 'dates_unavailable' });
    expect(errorOf(() => assertStayFree(claim, [], [{ night: '2030-05-02', reservationId: 'res_x' }], at()))).toMatchObject({ code: 'dates_unavailable' });
    const pending: BookedNight = { night: '2030-05-02', reservationId: 'res_w', holdUntil: at(1000).now, holdKey: 'k1' };
    expect(errorOf(() => assertStayFree(claim, [], [pending], at()))).toMatchObject({ code: 'dates_unavailable' });
    expect(() => assertStayFree(claim, [], [pending], at(1000))).not.toThrow();
    // The same request, still waiting for its PMS: in progress, not a conflict.
    expect(errorOf(() => assertStayFree(claim, [], [pending], { ...at(), key: 'k1' }))).toMatchObject({
      code: 'idempotency_in_progress',
      details: { retryAfterSeconds: 1 },
    });
  });

  it('a PMS booking is never refused: pending holds give way, it takes the free nights and overlaps the holders of the others', () => {
    const claim = stayClaim(stay, 'pms', DEFAULTS);
    const held: BookedNight[] = [
      { night: '2030-05-02', reservationId: 'res_local' },
      { night: '2030-05-03', reservationId: 'res_w', holdUntil: at(5000).now, holdKey: '' },
    ];
    expect(holdPlan(claim, held, 'pms', { ...at(), pending: false })).toEqual({
      giveWay: ['2030-05-03'],
      take: ['2030-05-03'],
      confirmOwnPending: false,
      overlaps: ['res_local'],
    });
    expect(errorOf(() => holdPlan(stayClaim(stay, 'local', DEFAULTS), held, 'local', { ...at(), pending: false }))).toMatchObject({
      code: 'dates_unavailable',
    });
  });

  it('a stored stay turns its own pending holds into its nights and keeps the nights it already holds', () => {
    const held: BookedNight[] = [
      { night: '2030-05-02', reservationId: 'res_me' },
      { night: '2030-05-03', reservationId: 'res_me', holdUntil: at(5000).now },
    ];
    expect(holdPlan(stayClaim(stay, 'local', DEFAULTS), held, 'local', { ...at(), pending: false })).toEqual({
      giveWay: [],
      take: [],
      confirmOwnPending: true,
      overlaps: [],
    });
    expect(holdPlan(stayClaim(stay, 'local', DEFAULTS), held, 'local', { ...at(), pending: true }).confirmOwnPending).toBe(false);
  });

  it('a change changes nights when the dates, the listing or whether the status holds nights change', () => {
    const r = { ...stay, propertyId: 'lst_1' };
    expect(changesNights(r, { ...r })).toBe(false);
    expect(changesNights(r, { ...r, status: 'PENDING' })).toBe(false);
    expect(changesNights(r, { ...r, status: 'CANCELLED' })).toBe(true);
    expect(changesNights(r, { ...r, checkOut: '2030-05-05' })).toBe(true);
    expect(changesNights(r, { ...r, propertyId: 'lst_2' })).toBe(true);
  });

  it('lists the other holders of overlapping nights once each', () => {
    const booked = [
      { night: 'a', reservationId: 'res_2' },
      { night: 'b', reservationId: 'res_1' },
      { night: 'c', reservationId: 'res_2' },
      { night: 'd', reservationId: 'res_me' },
    ];
    expect(holdersOf(booked, 'res_me')).toEqual(['res_1', 'res_2']);
  });

  it('a conflict flag holds while both stays hold a common night on one listing; a check-out day shared with a check-in is none', () => {
    const a = { status: 'CONFIRMED' as WritableStatus, propertyId: 'lst_1', checkIn: '2030-01-01', checkOut: '2030-01-04' };
    expect(conflictFlagHolds(a, { ...a, checkIn: '2030-01-03', checkOut: '2030-01-06' })).toBe(true);
    expect(conflictFlagHolds(a, { ...a, checkIn: '2030-01-04', checkOut: '2030-01-06' })).toBe(false);
    expect(conflictFlagHolds(a, { ...a, propertyId: 'lst_2' })).toBe(false);
    expect(conflictFlagHolds(a, { ...a, status: 'CANCELLED' })).toBe(false);
    expect(conflictFlagHolds({ ...a, status: 'PENDING' }, a)).toBe(true);
  });
});
