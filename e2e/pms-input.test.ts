// Input from a PMS is untrusted input, end to end over HTTP: the simulator's PMS sends each kind
// of value the API would refuse, and each ends as docs/pms.md ("What a PMS sends") says. Harmless
// differences are normalised and the entity applies (a name with NUL and spaces around it is
// stored clean); nonsense (a 100,000-character name, a guest profile's over-long name, a negative total, currency "xx", a stay
// of 1,095 nights, a listing name over the limit) is a `malformed_payload` dead letter naming the
// field, counted and shown by the connection's sync health. Admin API, API and the simulator's
// control API only.
import { eventually, startTestStack, type TestStack } from './support/stack';
import { listingsOf, pmsWorkspace, simulatorOf, syncNow } from './support/workspaces';

interface DeadLetter {
  service: string;
  errorCode: string;
  errorMessage: string;
  reason: string;
}
interface SyncHealth {
  changes: { published: number; applied: number; deadLettered: number; deadLettersOpen: number; pending: number };
  lastError: { source: string; code: string; message: string; service: string | null } | null;
}
interface Reservation {
  id: string;
  checkIn: string;
  primaryGuest: { firstName: string; lastName: string };
  financials: { currency: string };
}

describe('PMS input is held to the API rules', () => {
  let t: TestStack;
  beforeAll(async () => {
    t = await startTestStack();
  });
  afterAll(async () => {
    await t.stop();
  });

  it('normalises what is harmless and dead-letters each nonsense value as malformed_payload naming its field; sync health shows it', async () => {
    const pms = simulatorOf(t);
    const w = await pmsWorkspace(t, 'PMS-C', ['flat']);
    const listing = `${w.account}-flat`;
    const stay = (month: number, nights = 3) => ({
      arrival: `2036-${String(month).padStart(2, '0')}-01`,
      departure: `2036-${String(month).padStart(2, '0')}-${String(1 + nights).padStart(2, '0')}`,
    });
    // Harmless: NUL inside, spaces around, a lower-case currency.
    await pms.putReservation('PMS-C', w.account, 'clean-me', {
      listing_id: listing,
      ...stay(1),
      guest: { first_name: '  Ma\u0000rta ', last_name: 'Sil\u0000va' },
      total: 300,
      currency: 'eur',
    });
    // Nonsense, one per reservation.
    await pms.putReservation('PMS-C', w.account, 'long-name', { listing_id: listing, ...stay(2), guest: { first_name: 'n'.repeat(100_000) } });
    await pms.putReservation('PMS-C', w.account, 'bad-money', { listing_id: listing, ...stay(3), guest: { first_name: 'Neg' }, total: -5, currency: 'xx' });
    await pms.putReservation('PMS-C', w.account, 'long-stay', {
      listing_id: listing,
      arrival: '2036-05-01',
      departure: '2039-04-30',
      guest: { first_name: 'Long' },
    });
    // A guest profile whose name is over the API's limit.
    await pms.putGuest('PMS-C', w.account, 'huge-guest', { first_name: 'G'.repeat(1_000) });
    // A listing name over the API's limit.
    await pms.putListing('PMS-C', w.account, `${w.account}-huge`, { name: 'L'.repeat(5_000) });
    expect((await syncNow(t, w.id, w.connectionId)).status).toBe(200);

    // The harmless one applies, stored as the API would have stored it.
    let stored: Reservation[] = [];
    await eventually(
      async () => (stored = (await w.api<{ data: Reservation[] }>('GET', '/v1/reservations')).body.data).length >= 1,
      5000,
      'the clean reservation',
    );
    expect(stored.map((r) => [r.checkIn, r.primaryGuest.firstName, r.primaryGuest.lastName, r.financials.currency])).toEqual([
      ['2036-01-01', 'Marta', 'Silva', 'EUR'],
    ]);

    // Each nonsense value: a dead letter of the service that owns the entity, naming the field.
    let letters: DeadLetter[] = [];
    await eventually(
      async () => (letters = (await t.admin<{ data: DeadLetter[] }>('GET', `/admin/v1/dead-letters?workspace_id=${w.id}`)).body.data).length === 5,
      5000,
      'five dead letters',
    );
    const messageOf = (externalId: string) => letters.find((l) => l.errorMessage.includes(` ${externalId} `));
    const expected: [string, string, string[]][] = [
      ['long-name', 'reservation', ['reservation.guest.firstName is 100000 characters long']],
      ['bad-money', 'reservation', ['reservation.totalPrice is -5', "reservation.currency is 'XX'"]],
      ['long-stay', 'reservation', ['reservation.checkOut makes a stay of 1094 nights']],
      [`${w.account}-huge`, 'listing', ['listing.name is 5000 characters long']],
      ['huge-guest', 'guest', ['guest.firstName is 1000 characters long']],
    ];
    for (const [externalId, service, named] of expected) {
      const letter = messageOf(externalId);
      expect({ externalId, service: letter?.service, errorCode: letter?.errorCode, reason: letter?.reason }).toEqual({
        externalId,
        service,
        errorCode: 'malformed_payload',
        reason: 'permanent',
      });
      for (const n of named) expect(letter!.errorMessage).toContain(n);
    }
    // Nothing of them was stored.
    expect((await listingsOf(w)).map((l) => l.name)).toEqual(['flat']);

    // Sync health counts them and shows the last as its error.
    let health: SyncHealth | undefined;
    await eventually(
      async () => {
        health = (await t.admin<{ data: { syncHealth: SyncHealth } }>('GET', `/admin/v1/workspaces/${w.id}/connections/${w.connectionId}`)).body.data
          .syncHealth;
        return health.changes.deadLettered === 5 && health.changes.pending === 0;
      },
      5000,
      'sync health counting the five dead letters',
    );
    expect(health!.changes).toMatchObject({ deadLettered: 5, deadLettersOpen: 5 });
    expect(health!.lastError).toMatchObject({ source: 'apply', code: 'malformed_payload' });
    expect(health!.lastError!.message).toMatch(/(reservation|listing|guest)\.\w+/);
  });
});
