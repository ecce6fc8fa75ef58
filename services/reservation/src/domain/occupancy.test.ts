import type { WritableStatus } from './reservation';
import { dateConflicts, heldNights, holdersOf, stayNights, staysOverlap } from './occupancy';

describe('night occupancy rules', () => {
  it('a stay holds [checkIn, checkOut): the check-out day is free for the next guest', () => {
    expect(stayNights('2030-02-27', '2030-03-02')).toEqual(['2030-02-27', '2030-02-28', '2030-03-01']);
    expect(stayNights('2030-03-02', '2030-03-02')).toEqual([]);
  });

  it('PENDING and CONFIRMED hold their nights; CANCELLED holds none', () => {
    const stay = { checkIn: '2030-01-01', checkOut: '2030-01-03' };
    expect(heldNights({ ...stay, status: 'PENDING' })).toEqual(['2030-01-01', '2030-01-02']);
    expect(heldNights({ ...stay, status: 'CONFIRMED' })).toEqual(['2030-01-01', '2030-01-02']);
    expect(heldNights({ ...stay, status: 'CANCELLED' })).toEqual([]);
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

  it('lists the other holders of overlapping nights once each', () => {
    const booked = [
      { night: 'a', reservationId: 'res_2' },
      { night: 'b', reservationId: 'res_1' },
      { night: 'c', reservationId: 'res_2' },
      { night: 'd', reservationId: 'res_me' },
    ];
    expect(holdersOf(booked, 'res_me')).toEqual(['res_1', 'res_2']);
  });

  it('two stays overlap while both hold a common night on one listing; a check-out day shared with a check-in is no overlap', () => {
    const a = { status: 'CONFIRMED' as WritableStatus, propertyId: 'lst_1', checkIn: '2030-01-01', checkOut: '2030-01-04' };
    expect(staysOverlap(a, { ...a, checkIn: '2030-01-03', checkOut: '2030-01-06' })).toBe(true);
    expect(staysOverlap(a, { ...a, checkIn: '2030-01-04', checkOut: '2030-01-06' })).toBe(false);
    expect(staysOverlap(a, { ...a, propertyId: 'lst_2' })).toBe(false);
    expect(staysOverlap(a, { ...a, status: 'CANCELLED' })).toBe(false);
    expect(staysOverlap({ ...a, status: 'PENDING' }, a)).toBe(true);
  });
});
