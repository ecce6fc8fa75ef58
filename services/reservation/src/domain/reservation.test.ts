import { AppError } from '@vrp/platform/errors';
import { isIsoDate, parseReservationFilters, type ReservationQueryInput } from './reservation';

const none: ReservationQueryInput = { status: '', propertyId: '', checkInAfter: '', checkInBefore: '', source: '' };

describe('reservation list filters', () => {
  it('accepts only real calendar dates in YYYY-MM-DD', () => {
    expect(isIsoDate('2024-02-29')).toBe(true);
    expect(isIsoDate('2025-02-29')).toBe(false);
    expect(isIsoDate('2025-7-01')).toBe(false);
    expect(isIsoDate('2025-07-01T00:00:00Z')).toBe(false);
  });

  it('treats empty strings as absent filters', () => {
    expect(parseReservationFilters(none)).toEqual({});
  });

  it('keeps valid filters', () => {
    const since = new Date('2025-01-01T00:00:00Z');
    expect(
      parseReservationFilters({
        status: 'POST_STAY',
        propertyId: 'lst_1',
        checkInAfter: '2025-06-01',
        checkInBefore: '2025-06-30',
        source: 'CHANNEL_C',
        updatedSince: since,
      }),
    ).toEqual({ status: 'POST_STAY', propertyId: 'lst_1', checkInAfter: '2025-06-01', checkInBefore: '2025-06-30', source: 'CHANNEL_C', updatedSince: since });
  });

  it('names every invalid filter in one validation_failed', () => {
    let caught: unknown;
    try {
      parseReservationFilters({ ...none, status: 'confirmed', source: 'AIRLINE', checkInAfter: 'tomorrow', updatedSince: new Date(Number.NaN) });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(AppError);
    const err = caught as AppError;
    expect(err.code).toBe('validation_failed');
    expect(Object.keys(err.details.fields ?? {}).sort()).toEqual(['check_in_after', 'source', 'status', 'updated_since']);
  });
});
