// Pure rules of the listing service's pms.sync.v1 consumer.
import type { ListingRecord } from './listing';
import { alreadyApplied, fieldsOf, sameFields } from './pms-sync';

describe('pms.sync.v1 listing consumer rules (pure)', () => {
  const payload = { externalId: 'L1', name: ' Flat ', unlisted: false, channels: [{ channel: 'CHANNEL_A', externalId: 'cha-1' }], bedrooms: 2 };

  it('takes the PMS-owned fields, leaving absent ones to the listing', () => {
    expect(fieldsOf(payload)).toEqual({
      name: 'Flat',
      channels: [{ channel: 'CHANNEL_A', externalId: 'cha-1' }],
      bedrooms: 2,
      timezone: undefined,
      currency: undefined,
      maxGuests: undefined,
      bathrooms: undefined,
      beds: undefined,
      defaultNightlyPrice: undefined,
      cleaningFee: undefined,
    });
    const listing = { name: 'Flat', channels: [{ channel: 'CHANNEL_A', externalId: 'cha-1' }], bedrooms: 2, beds: 9 } as ListingRecord;
    expect(sameFields(listing, fieldsOf(payload))).toBe(true);
    expect(sameFields({ ...listing, bedrooms: 3 }, fieldsOf(payload))).toBe(false);
  });

  it('skips a change older than, or the same as, the last applied one', () => {
    const mark = { occurredAt: new Date('2030-01-01T00:00:01Z'), changeId: 'chg_2' };
    expect(alreadyApplied(null, mark)).toBe(false);
    expect(alreadyApplied(mark, mark)).toBe(true);
    expect(alreadyApplied(mark, { occurredAt: new Date('2030-01-01T00:00:00Z'), changeId: 'chg_1' })).toBe(true);
    expect(alreadyApplied(mark, { occurredAt: mark.occurredAt, changeId: 'chg_3' })).toBe(false);
    expect(alreadyApplied(mark, { occurredAt: new Date('2030-01-01T00:00:02Z'), changeId: 'chg_3' })).toBe(false);
  });
});
