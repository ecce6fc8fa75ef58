// Input from a PMS held to the API's rules (src/pms-input.ts): each kind of difference ends as
// its rule says, normalised or refused naming the field.
import type { pmsSync } from '@vrp/contracts';
import { PermanentError } from '@vrp/platform/consumer';
import { checkPmsInput, MAX_NIGHTS, MAX_PRIMARY_GUEST_NAME_LENGTH, normalizePmsText } from '../src';

const base = { changeId: 'chg_1', workspaceId: 'ws_1', connectionId: 'con_1', provider: 'PMS-C', externalId: 'r-1', listingExternalId: 'l-1' };
const reservation = (fields: Partial<pmsSync.SyncReservation> = {}): pmsSync.PmsSyncChange => ({
  ...base,
  entity: 'reservation',
  reservation: {
    externalId: 'r-1',
    listingExternalId: 'l-1',
    status: 'CONFIRMED',
    source: 'DIRECT',
    checkIn: '2035-01-10',
    checkOut: '2035-01-13',
    guest: { firstName: 'Ana', lastName: 'Silva' },
    occupancy: { adults: 2, children: 0, infants: 0, pets: 0 },
    totalPrice: 300,
    currency: 'EUR',
    ...fields,
  },
});

/** The message of the dead letter a change becomes; fails when it is accepted. */
function refusal(change: pmsSync.PmsSyncChange): string {
  try {
    checkPmsInput(change);
  } catch (err) {
    expect(err).toBeInstanceOf(PermanentError);
    expect((err as PermanentError).code).toBe('malformed_payload');
    return (err as Error).message;
  }
  throw new Error('the change was accepted');
}

describe('PMS input is held to the API rules', () => {
  it('normalises what is harmless: whitespace trimmed, NUL and control characters removed, lone surrogates replaced, currency upper-cased, an unusable language dropped', () => {
    expect(normalizePmsText('  A\u0000n\u0007a\t \n')).toBe('Ana');
    expect(normalizePmsText('x\ud800y')).toBe('x\ufffdy');
    expect(normalizePmsText('ok \ud83c\udfe0')).toBe('ok \ud83c\udfe0');
    const checked = checkPmsInput(reservation({ guest: { firstName: ' Ana\u0000 ', lastName: 'Si\u0000lva', language: 'not a tag!' }, currency: 'eur' }));
    expect(checked.reservation).toMatchObject({ guest: { firstName: 'Ana', lastName: 'Silva', language: undefined }, currency: 'EUR' });
  });

  it.each([
    ['a negative total', { totalPrice: -5 }, 'reservation.totalPrice is -5'],
    ['an invalid currency', { currency: 'xx' }, "reservation.currency is 'XX'"],
    [
      'an over-long guest name',
      { guest: { firstName: 'n'.repeat(100_000) } },
      `reservation.guest.firstName is 100000 characters long; at most ${MAX_PRIMARY_GUEST_NAME_LENGTH}`,
    ],
    ['a name empty once normalised', { guest: { firstName: '\u0000 ' } }, 'reservation.guest.firstName is empty'],
    ['a stay longer than the maximum', { checkIn: '2035-01-01', checkOut: '2037-12-31' }, `makes a stay of 1095 nights; at most ${MAX_NIGHTS}`],
    ['a date that does not exist', { checkIn: '2035-02-30' }, "reservation.checkIn is '2035-02-30', not a date"],
    ['a stay that ends before it starts', { checkOut: '2035-01-09' }, 'reservation.checkOut (2035-01-09) is not after checkIn'],
    ['a negative count', { occupancy: { adults: -1, children: 0, infants: 0, pets: 0 } }, 'reservation.occupancy.adults is -1'],
  ])('refuses %s, naming the field', (_what, fields, named) => {
    expect(refusal(reservation(fields))).toContain(named);
  });

  it('names every field at once, and the change', () => {
    const message = refusal(reservation({ totalPrice: -5, currency: 'xx' }));
    expect(message).toContain('PMS-C reservation r-1 (change chg_1)');
    expect(message).toContain('reservation.totalPrice');
    expect(message).toContain('reservation.currency');
  });

  it('holds the other entities to the same rules', () => {
    expect(refusal({ ...base, entity: 'listing', listing: { externalId: 'l-1', name: 'x'.repeat(201), unlisted: false, channels: [] } })).toContain(
      'listing.name is 201',
    );
    expect(refusal({ ...base, entity: 'guest', guest: { externalId: 'g', firstName: 'G', email: `${'e'.repeat(300)}@x.io` } })).toContain('guest.email');
    expect(
      refusal({
        ...base,
        entity: 'message',
        message: { externalId: 'm', conversationExternalId: 't', direction: 'inbound', body: 'hi', attachments: [{ url: 'ftp://x' }] },
      }),
    ).toContain('message.attachments[0].url');
    expect(
      refusal({ ...base, entity: 'inquiry', inquiry: { externalId: 'q', checkIn: '2035-01-01', checkOut: '2035-01-01', guests: -2, status: 'pending' } }),
    ).toMatch(/inquiry.checkOut .* not after checkIn.*inquiry.guests is -2/);
    const listing = checkPmsInput({
      ...base,
      entity: 'listing',
      listing: { externalId: 'l-1', name: ' Flat\u0000 ', unlisted: false, channels: [], currency: 'usd' },
    });
    expect(listing.listing).toMatchObject({ name: 'Flat', currency: 'USD' });
  });
});
