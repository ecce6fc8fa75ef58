// The capability matrix (packages/pms-matrix, what the API refuses before sending anything)
// held against the simulator's own endpoint table (what each PMS's API accepts), write by write:
// for every PMS and every write of the matrix, one HTTP request to the simulated PMS that
// performs exactly that write, on fresh data. The matrix says "supported" exactly when the PMS
// accepts it (2xx), and "unsupported" exactly when the PMS refuses it as unsupported (422).
import { PROVIDERS, supports, WRITES, type PmsWrite, type Provider } from '@vrp/pms-matrix';
import { PROVIDER_SLUGS, SimulatorControl, startPmsSimulator, type PmsSimulator } from '../src';

interface Probe {
  method: 'POST' | 'PATCH' | 'PUT';
  path: string;
  body: unknown;
}

/** Fresh entities of one probe (each write may change or use up what it touches). */
interface Fixture {
  reservation: string;
  review: string;
  request: string;
  inquiry: string;
}

const stay = { listingId: 'L1', checkIn: '2032-03-01', checkOut: '2032-03-03', totalPrice: 300 };

/** The request that performs each write (and nothing the PMS might refuse for another reason). */
const PROBES: Record<PmsWrite, (f: Fixture) => Probe> = {
  'reservation.create': () => ({ method: 'POST', path: 'reservations', body: stay }),
  'reservation.owner_block': () => ({ method: 'POST', path: 'reservations', body: { ...stay, platform: 'owner' } }),
  'reservation.unit_id': () => ({ method: 'POST', path: 'reservations', body: { ...stay, unitId: 'unit-7' } }),
  'reservation.tentative_hold': () => ({ method: 'POST', path: 'reservations', body: { ...stay, tentativeHold: true } }),
  'reservation.group_booking': () => ({ method: 'POST', path: 'reservations', body: { ...stay, groupId: 'grp-1' } }),
  'reservation.modify': (f) => ({ method: 'PATCH', path: `reservations/${f.reservation}`, body: { occupancy: { adults: 2 } } }),
  'reservation.custom_price': (f) => ({ method: 'PATCH', path: `reservations/${f.reservation}`, body: { totalPrice: 999 } }),
  'reservation.notes': (f) => ({ method: 'PATCH', path: `reservations/${f.reservation}`, body: { notes: { host: 'late arrival' } } }),
  'reservation.change_dates': (f) => ({ method: 'PATCH', path: `reservations/${f.reservation}`, body: { checkIn: '2032-05-02', checkOut: '2032-05-06' } }),
  'reservation.change_times': (f) => ({ method: 'PATCH', path: `reservations/${f.reservation}`, body: { checkInTime: '17:00' } }),
  'reservation.move_listing': (f) => ({ method: 'PATCH', path: `reservations/${f.reservation}`, body: { listingId: 'L2' } }),
  'reservation.cancel': (f) => ({ method: 'POST', path: `reservations/${f.reservation}/cancel`, body: {} }),
  'reservation.quote': () => ({ method: 'POST', path: 'quotes', body: { listingId: 'L1', checkIn: '2032-03-01', checkOut: '2032-03-03' } }),
  'guest.write': () => ({ method: 'POST', path: 'guests', body: { firstName: 'Ida' } }),
  'message.send': () => ({ method: 'POST', path: 'messages', body: { listingId: 'L1', body: 'Welcome!' } }),
  'message.attachments': () => ({
    method: 'POST',
    path: 'messages',
    body: { listingId: 'L1', body: 'The map', attachments: [{ url: 'https://files.example/map.pdf' }] },
  }),
  'review.reply': (f) => ({ method: 'POST', path: `reviews/${f.review}/reply`, body: { body: 'Thank you!' } }),
  'request.answer': (f) => ({ method: 'POST', path: `requests/${f.request}/answer`, body: { decision: 'accept' } }),
  'inquiry.pre_approve': (f) => ({ method: 'POST', path: `inquiries/${f.inquiry}/pre-approve`, body: {} }),
  'inquiry.block_instant_booking': (f) => ({ method: 'POST', path: `inquiries/${f.inquiry}/pre-approve`, body: { blockInstantBooking: true } }),
  'calendar.write': () => ({ method: 'PUT', path: 'listings/L1/calendar', body: [{ date: '2032-03-01', available: false }] }),
  'content.description': () => ({ method: 'PUT', path: 'listings/L1/content/description', body: { value: 'Bright flat' } }),
  'content.amenities': () => ({ method: 'PUT', path: 'listings/L1/content/amenities', body: { value: ['wifi'] } }),
  'content.house_rules': () => ({ method: 'PUT', path: 'listings/L1/content/house_rules', body: { value: 'No parties' } }),
  'content.house_rule_switches': () => ({ method: 'PUT', path: 'listings/L1/content/house_rule_switches', body: { value: { smoking: false } } }),
  'content.rooms': () => ({ method: 'PUT', path: 'listings/L1/content/rooms', body: { value: { bedrooms: 2 } } }),
  'content.translations': () => ({ method: 'PUT', path: 'listings/L1/content/translations', body: { value: { de: 'Helle Wohnung' } } }),
};

type Observed = 'accepted' | 'unsupported' | `other ${number}`;

describe('the capability matrix agrees with the simulated PMS APIs', () => {
  let sim: PmsSimulator;
  let control: SimulatorControl;
  /** provider -> write -> what the PMS answered. */
  const observed = new Map<Provider, Map<PmsWrite, Observed>>();
  let n = 0;

  async function fixture(provider: Provider): Promise<Fixture> {
    n += 1;
    const f = { reservation: `R${n}`, review: `rev${n}`, request: `req${n}`, inquiry: `inq${n}` };
    await control.putReservation(provider, 'acc', f.reservation, { listing_id: 'L1', arrival: '2032-04-01', departure: '2032-04-03' });
    await control.putReview(provider, 'acc', f.review, { listing_id: 'L1', stars: 4, text: 'Nice' });
    const dates = { listing_id: 'L1', arrival: '2032-06-01', departure: '2032-06-04', guest: { first_name: 'Rae' } };
    await control.putRequest(provider, 'acc', f.request, { ...dates, kind: 'request' });
    await control.putRequest(provider, 'acc', f.inquiry, { ...dates, kind: 'inquiry' });
    return f;
  }

  beforeAll(async () => {
    sim = await startPmsSimulator();
    control = new SimulatorControl(sim.url);
    for (const provider of PROVIDERS) {
      await control.createAccount(provider, 'acc');
      await control.putListing(provider, 'acc', 'L1', { name: 'One' });
      await control.putListing(provider, 'acc', 'L2', { name: 'Two' });
      const row = new Map<PmsWrite, Observed>();
      for (const write of Object.keys(WRITES) as PmsWrite[]) {
        const probe = PROBES[write](await fixture(provider));
        const res = await fetch(`${sim.url}/${PROVIDER_SLUGS[provider]}/v1/accounts/acc/${probe.path}`, {
          method: probe.method,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(probe.body),
        });
        const body = (await res.json()) as { error?: { code?: string } };
        row.set(write, res.ok ? 'accepted' : res.status === 422 && body.error?.code === 'unsupported' ? 'unsupported' : `other ${res.status}`);
      }
      observed.set(provider, row);
    }
  });
  afterAll(() => sim.close());

  it.each(PROVIDERS)('%s: every write the matrix allows is accepted by the PMS, every write it refuses is refused as unsupported', (provider) => {
    const row = observed.get(provider)!;
    const disagreements = (Object.keys(WRITES) as PmsWrite[])
      .filter((write) => row.get(write) !== (supports(provider, write) ? 'accepted' : 'unsupported'))
      .map((write) => `${write}: matrix ${supports(provider, write) ? 'allows' : 'refuses'}, PMS ${row.get(write)}`);
    expect(disagreements).toEqual([]);
  });

  it('holds the refusals the contract names for reviews, requests, pre-approvals and attachments', () => {
    // Written from the contract (docs/api.md, docs/pms.md), independently of both tables.
    const refused: [Provider, PmsWrite][] = [
      ['PMS-F', 'review.reply'],
      ['PMS-F', 'request.answer'],
      ['PMS-F', 'inquiry.pre_approve'],
      ['PMS-F', 'message.attachments'],
      ['PMS-G', 'message.attachments'],
      ['PMS-G', 'inquiry.block_instant_booking'],
    ];
    for (const [provider, write] of refused) expect([provider, write, observed.get(provider)!.get(write)]).toEqual([provider, write, 'unsupported']);
    expect(observed.get('PMS-G')!.get('inquiry.pre_approve')).toBe('accepted');
    expect(observed.get('PMS-A')!.get('message.attachments')).toBe('accepted');
  });
});
