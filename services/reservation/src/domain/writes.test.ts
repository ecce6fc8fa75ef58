import { MAX_CUSTOM_FIELD_VALUE_LENGTH, MAX_CUSTOM_FIELDS } from '@vrp/api-model';
import { AppError } from '@vrp/platform/errors';
import { CONFIRMATION_ALPHABET, CONFIRMATION_LENGTH, newConfirmationCode } from './confirmation-code';
import { financialsFor, priceStay } from './pricing';
import { effectiveStatus, type ReservationRecord } from './reservation';
import { applyPatch, createWrites, parseNewReservation, parsePatch, patchChanges, patchWrites, relayOperation, type NewReservationInput } from './writes';

const input = (extra: Partial<NewReservationInput> = {}): NewReservationInput => ({
  propertyId: 'lst_1',
  checkIn: '2026-03-01',
  checkOut: '2026-03-03',
  primaryGuest: { firstName: 'Ana', lastName: '', email: '', phone: '' },
  currency: '',
  source: '',
  platform: '',
  unitId: '',
  tentativeHold: false,
  groupId: '',
  roomTypeId: '',
  customFields: {},
  ...extra,
});

const fieldsOf = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return Object.keys(err.details.fields ?? {}).sort();
    throw err;
  }
  throw new Error('expected validation_failed');
};

describe('POST_STAY', () => {
  it('is a confirmed stay whose check-out day has come; other statuses stay as stored', () => {
    expect(effectiveStatus({ status: 'CONFIRMED', checkOut: '2026-03-03' }, '2026-03-03')).toBe('POST_STAY');
    expect(effectiveStatus({ status: 'CONFIRMED', checkOut: '2026-03-04' }, '2026-03-03')).toBe('CONFIRMED');
    expect(effectiveStatus({ status: 'CANCELLED', checkOut: '2026-01-01' }, '2026-03-03')).toBe('CANCELLED');
    expect(effectiveStatus({ status: 'PENDING', checkOut: '2026-01-01' }, '2026-03-03')).toBe('PENDING');
  });
});

describe('confirmation codes', () => {
  it('are 8 characters of the unambiguous alphabet', () => {
    for (let i = 0; i < 200; i++) expect(newConfirmationCode()).toMatch(new RegExp(`^[${CONFIRMATION_ALPHABET}]{${CONFIRMATION_LENGTH}}$`));
    expect(CONFIRMATION_ALPHABET).not.toMatch(/[0O1IL2Z5S8BUV]/);
  });
});

describe('pricing', () => {
  const nights = [
    { date: '2026-03-01', price: 100, available: true },
    { date: '2026-03-02', price: 120.5, available: false },
  ];
  it('nights + cleaning + tax on both, rounded to cents, closed nights named', () => {
    expect(priceStay({ nights, cleaningFee: 30, taxRate: 0.07 })).toEqual({
      totalPrice: 268.04,
      breakdown: { basePrice: 220.5, cleaningFee: 30, fees: [], taxes: [{ type: 'TAX', amount: 17.54, rate: 0.07 }], discounts: [] },
      available: false,
      unavailableDates: ['2026-03-02'],
    });
    expect(priceStay({ nights, cleaningFee: 0, taxRate: 0 }).breakdown.taxes).toEqual([]);
  });
  it('a custom total adds a CUSTOM_PRICE discount or fee so the lines add up', () => {
    const quoted = priceStay({ nights, cleaningFee: 30, taxRate: 0.07 });
    expect(financialsFor(quoted, 'EUR', 250).breakdown.discounts).toEqual([{ type: 'CUSTOM_PRICE', amount: 18.04 }]);
    expect(financialsFor(quoted, 'EUR', 300).breakdown.fees).toEqual([{ type: 'CUSTOM_PRICE', amount: 31.96 }]);
    expect(financialsFor(quoted, 'EUR', undefined)).toMatchObject({ totalPrice: 268.04, currency: 'EUR', paymentStatus: 'UNPAID' });
  });
});

describe('create rules', () => {
  it('defaults source DIRECT and one adult', () => {
    expect(parseNewReservation(input())).toMatchObject({ source: 'DIRECT', occupancy: { adults: 1, children: 0, infants: 0, pets: 0 } });
  });
  it('names every bad field', () => {
    expect(
      fieldsOf(() =>
        parseNewReservation(input({ checkIn: '2026-03-05', checkOut: '2026-03-05', source: 'FAX', platform: 'x', currency: 'eur', totalPrice: -1 })),
      ),
    ).toEqual(['checkOut', 'financials.currency', 'financials.totalPrice', 'platform', 'source']);
    expect(fieldsOf(() => parseNewReservation(input({ checkOut: '2027-03-02' })))).toEqual(['checkOut']); // > 365 nights
    const long = 'x'.repeat(201);
    expect(fieldsOf(() => parseNewReservation(input({ primaryGuest: { firstName: long, lastName: long, email: '', phone: '1'.repeat(51) } })))).toEqual([
      'primaryGuest.firstName',
      'primaryGuest.lastName',
      'primaryGuest.phone',
    ]);
  });
  it('maps restricted kinds of booking to matrix writes', () => {
    expect(createWrites(parseNewReservation(input()))).toEqual(['reservation.create']);
    expect(createWrites(parseNewReservation(input({ platform: 'owner', unitId: 'u', tentativeHold: true, groupId: 'g', totalPrice: 10 })))).toEqual([
      'reservation.create',
      'reservation.owner_block',
      'reservation.unit_id',
      'reservation.tentative_hold',
      'reservation.group_booking',
      'reservation.custom_price',
    ]);
  });
});

describe('change rules', () => {
  const current = {
    id: 'res_1',
    status: 'CONFIRMED',
    checkIn: '2026-03-01',
    checkOut: '2026-03-03',
    checkInTime: '',
    checkOutTime: '',
    propertyId: 'lst_1',
    notes: { host: '', guest: '' },
    customFields: { a: '1' },
    updatedAt: new Date(0),
  } as unknown as ReservationRecord;
  it('checks new dates against the stored ones and refuses POST_STAY', () => {
    expect(fieldsOf(() => parsePatch({ checkOut: '2026-03-01', customFields: {} }, current))).toEqual(['checkOut']);
    expect(fieldsOf(() => parsePatch({ checkIn: '2026-03-03', customFields: {} }, current))).toEqual(['checkIn']);
    expect(fieldsOf(() => parsePatch({ status: 'POST_STAY', checkInTime: '24:00', customFields: {} }, current))).toEqual(['checkInTime', 'status']);
  });
  it('maps what really changes to matrix writes; a pure cancel is relayed as a cancel', () => {
    const writesOf = (p: Parameters<typeof parsePatch>[0], target = 'lst_1') => {
      const patch = parsePatch(p, current);
      return patchWrites(patch, patchChanges(patch, current, target));
    };
    expect(writesOf({ status: 'CONFIRMED', checkIn: '2026-03-01', customFields: { a: '1' } })).toEqual([]);
    expect(writesOf({ status: 'CANCELLED', customFields: {} })).toEqual(['reservation.cancel']);
    expect(relayOperation(writesOf({ status: 'CANCELLED', customFields: {} }))).toBe('reservation.cancel');
    expect(writesOf({ checkOut: '2026-03-04', customFields: {} })).toEqual(['reservation.modify', 'reservation.change_dates']);
    expect(writesOf({ checkInTime: '16:00', customFields: {} })).toEqual(['reservation.change_times']);
    expect(writesOf({ propertyId: 'lst_2', customFields: {} }, 'lst_2')).toEqual(['reservation.move_listing']);
    expect(relayOperation(writesOf({ status: 'CANCELLED', notes: { host: 'x' }, customFields: {} }))).toBe('reservation.modify');
  });
  it('merges custom fields; an empty value removes a key', () => {
    const next = applyPatch(current, parsePatch({ customFields: { a: '', b: '2' }, notes: { guest: 'hi' } }, current), 'lst_1', new Date(5));
    expect(next).toMatchObject({ customFields: { b: '2' }, notes: { host: '', guest: 'hi' }, updatedAt: new Date(5) });
  });
  it('keeps custom fields within the API limits: 50 keys in a PATCH and after the merge, values of at most 2,000 characters', () => {
    const fields = (n: number, prefix = 'k') => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, 'v']));
    expect(fieldsOf(() => parsePatch({ customFields: fields(MAX_CUSTOM_FIELDS + 1) }, current))).toEqual(['customFields']);
    // 49 new keys fit beside the stored `a`; a 50th new one would make 51 on the record.
    expect(() => parsePatch({ customFields: fields(MAX_CUSTOM_FIELDS - 1) }, current)).not.toThrow();
    expect(fieldsOf(() => parsePatch({ customFields: fields(MAX_CUSTOM_FIELDS) }, current))).toEqual(['customFields']);
    // Removing `a` in the same PATCH makes room again.
    expect(() => parsePatch({ customFields: { ...fields(MAX_CUSTOM_FIELDS - 1), a: '' } }, current)).not.toThrow();
    expect(fieldsOf(() => parsePatch({ customFields: { b: 'x'.repeat(MAX_CUSTOM_FIELD_VALUE_LENGTH + 1) } }, current))).toEqual(['customFields.b']);
    expect(() => parsePatch({ customFields: { b: 'x'.repeat(MAX_CUSTOM_FIELD_VALUE_LENGTH) } }, current)).not.toThrow();
    expect(fieldsOf(() => parseNewReservation(input({ customFields: { c: 'x'.repeat(MAX_CUSTOM_FIELD_VALUE_LENGTH + 1) } })))).toEqual(['customFields.c']);
    expect(fieldsOf(() => parseNewReservation(input({ customFields: fields(MAX_CUSTOM_FIELDS + 1) })))).toEqual(['customFields']);
  });
});
