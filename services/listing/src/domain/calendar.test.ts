// Pure rules of a listing's calendar: dates, ranges and availability updates.
import { addDays, availabilityRequestProblems, eachDate, isRealDate, nightsOf, rangeProblems, updateProblems } from './calendar';

describe('calendar rules (pure)', () => {
  it('accepts only real calendar dates', () => {
    expect(isRealDate('2024-02-29')).toBe(true);
    expect(isRealDate('2025-02-29')).toBe(false);
    expect(isRealDate('2025-02-30')).toBe(false);
    expect(isRealDate('2025-04-31')).toBe(false);
    expect(isRealDate('2000-02-29')).toBe(true);
    expect(isRealDate('1900-02-29')).toBe(false);
    expect(isRealDate('2025-13-01')).toBe(false);
    expect(isRealDate('2025-1-01')).toBe(false);
    expect(isRealDate('2025-01-01T00:00:00Z')).toBe(false);
    expect(isRealDate('')).toBe(false);
  });

  it('walks dates across month and year ends, and counts nights up to the day before check-out', () => {
    expect(eachDate('2024-02-27', '2024-03-01')).toEqual(['2024-02-27', '2024-02-28', '2024-02-29', '2024-03-01']);
    expect(eachDate('2025-12-31', '2026-01-01')).toEqual(['2025-12-31', '2026-01-01']);
    expect(eachDate('2025-01-02', '2025-01-01')).toEqual([]);
    expect(addDays('2025-03-01', -1)).toBe('2025-02-28');
    expect(nightsOf('2025-03-30', '2025-04-02')).toEqual(['2025-03-30', '2025-03-31', '2025-04-01']);
    expect(nightsOf('2025-03-30', '2025-03-30')).toEqual([]);
  });

  it('bounds a batch to MAX_BATCH_DAYS listing-days in total', () => {
    const year = { from: '2027-01-01', to: '2027-12-31', price: 100 }; // 365 days
    const tenYears = Array.from({ length: 10 }, (_, i) => ({ ...year, listingId: `lst_${i}` }));
    expect(availabilityRequestProblems(tenYears)).toEqual({});
    const tooMany = [...tenYears, { ...year, listingId: 'lst_10' }];
    expect(availabilityRequestProblems(tooMany).updates).toMatch(/at most 3700 listing-days/);
  });

  it('bounds ranges: real dates, from <= to, at most 366 days', () => {
    expect(rangeProblems('2024-01-01', '2024-12-31')).toEqual({}); // 366 days (leap year)
    expect(Object.keys(rangeProblems('2025-01-01', '2026-01-02'))).toEqual(['to']); // 367 days
    expect(Object.keys(rangeProblems('2025-02-30', '2025-03-01'))).toEqual(['from']);
    expect(Object.keys(rangeProblems('', ''))).toEqual(['from', 'to']);
  });

  it('checks the fields of an availability update', () => {
    const base = { listingId: 'lst_1', from: '2025-01-01', to: '2025-01-01' };
    expect(updateProblems({ ...base, price: 0 }, 'u.')).toEqual({});
    expect(Object.keys(updateProblems(base, 'u.'))).toEqual(['u']);
    expect(Object.keys(updateProblems({ ...base, minNights: 1.5 }, 'u.'))).toEqual(['u.minNights']);
    expect(Object.keys(updateProblems({ ...base, price: Number.NaN }, 'u.'))).toEqual(['u.price']);
    expect(Object.keys(updateProblems({ ...base, price: Number.POSITIVE_INFINITY }, 'u.'))).toEqual(['u.price']);
  });
});
