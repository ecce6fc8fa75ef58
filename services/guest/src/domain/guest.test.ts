import {
  contactsAfterReservationChange,
  contactSources,
  contactsFrom,
  PMS_GUEST_RECORD,
  reportedContacts,
  hidingListings,
  isStaleForLink,
  linkReservation,
  listingIdsOf,
  withListing,
  matchKeysOf,
  mergeContacts,
  normalizeName,
  normalizePhone,
  searchNameOf,
} from './guest';
import { answerProblem, messageWrites, preApprovalWrites, preApproveProblem } from './messaging';

describe('guest name normalization', () => {
  it('strips accents, lower-cases and collapses whitespace', () => {
    expect(normalizeName('  José   GARCÍA ')).toBe('jose garcia');
    expect(normalizeName('Zoë Ångström')).toBe('zoe angstrom');
    expect(normalizeName('Søren Łukasz Straße Æsa')).toBe('soren lukasz strasse aesa');
    // Precomposed and decomposed forms of the same name agree.
    expect(normalizeName('Jose\u0301')).toBe(normalizeName('Jos\u00e9'));
  });

  it('builds the stored search name from first and last name', () => {
    expect(searchNameOf({ firstName: 'Renée', lastName: '' })).toBe('renee');
    expect(searchNameOf({ firstName: 'Ana María', lastName: 'Núñez' })).toBe('ana maria nunez');
  });
});

describe('the matching rule', () => {
  it('keys a primary guest by email (case-insensitive), then phone (digits only)', () => {
    expect(matchKeysOf({ email: ' Kim@Example.COM ', phone: '+34 600-111-222' })).toEqual(['email:kim@example.com', 'phone:34600111222']);
    expect(matchKeysOf({ email: '', phone: '(555) 010-0001' })).toEqual(['phone:5550100001']);
    expect(matchKeysOf({})).toEqual([]);
  });

  it('ignores phone numbers too short to identify anyone', () => {
    expect(normalizePhone('12-34')).toBe('');
    expect(matchKeysOf({ phone: 'ext. 12' })).toEqual([]);
  });

  it('builds contacts with the email primary and merges only new ones', () => {
    const contacts = contactsFrom({ email: 'a@x.io', phone: '+1 555 0100 01' });
    expect(contacts).toEqual([
      { type: 'EMAIL', value: 'a@x.io', isPrimary: true },
      { type: 'PHONE', value: '+1 555 0100 01', isPrimary: false },
    ]);
    expect(contactsFrom({ phone: '5550100001' })).toEqual([{ type: 'PHONE', value: '5550100001', isPrimary: true }]);
    expect(mergeContacts(contacts, contactsFrom({ email: 'A@X.IO', phone: '15550100 01' }))).toEqual(contacts);
    expect(mergeContacts(contacts, contactsFrom({ email: 'b@x.io' }))).toEqual([...contacts, { type: 'EMAIL', value: 'b@x.io', isPrimary: false }]);
  });

  it('links a reservation once and follows it to another listing', () => {
    const once = linkReservation([], { reservationId: 'r1', listingId: 'l1' });
    expect(linkReservation(once, { reservationId: 'r1', listingId: 'l1' })).toEqual(once);
    const moved = linkReservation([...once, { reservationId: 'r2', listingId: 'l1' }], { reservationId: 'r1', listingId: 'l2' });
    expect(listingIdsOf(moved).sort()).toEqual(['l1', 'l2']);
  });

  it('adds the listing of a newly linked reservation once, keeping the order listings were first linked in', () => {
    expect(withListing([], 'l1')).toEqual(['l1']);
    expect(withListing(['l1', 'l2'], 'l1')).toEqual(['l1', 'l2']);
    expect(withListing(['l2'], 'l1')).toEqual(['l2', 'l1']);
  });
});

describe('guest visibility', () => {
  const off = (id: string) => ({ id, name: id.toUpperCase() });
  it('hides a guest only when every listing of its reservations is inactive', () => {
    expect(hidingListings([], [])).toBeNull();
    expect(hidingListings(['l1', 'l2'], [off('l1')])).toBeNull();
    expect(hidingListings(['l1', 'l2'], [off('l1'), off('l2')])).toEqual([off('l1'), off('l2')]);
  });
});

describe('requests, inquiries and the PMS writes of each action', () => {
  it('accepts or declines only pending requests, pre-approves only pending inquiries', () => {
    expect(answerProblem({ kind: 'request', status: 'pending' })).toBeNull();
    expect(answerProblem({ kind: 'inquiry', status: 'pending' })).toMatch(/pre-approve/);
    expect(answerProblem({ kind: 'request', status: 'accepted' })).toMatch(/already accepted/);
    expect(preApproveProblem({ kind: 'inquiry', status: 'pending' })).toBeNull();
    expect(preApproveProblem({ kind: 'request', status: 'pending' })).toMatch(/Only inquiries/);
  });

  it('asks the matrix about attachments and instant-booking blocks separately', () => {
    expect(messageWrites(0)).toEqual(['message.send']);
    expect(messageWrites(2)).toEqual(['message.send', 'message.attachments']);
    expect(preApprovalWrites(false)).toEqual(['inquiry.pre_approve']);
    expect(preApprovalWrites(true)).toEqual(['inquiry.pre_approve', 'inquiry.block_instant_booking']);
  });

  it('treats a reservation event not newer than the link as stale; without times nothing is stale', () => {
    const at = (h: number) => new Date(Date.UTC(2026, 0, 1, h));
    const link = { reservationId: 'r1', listingId: 'l2', changedAt: at(11) };
    expect(isStaleForLink(link, at(10))).toBe(true);
    expect(isStaleForLink(link, at(11))).toBe(true);
    expect(isStaleForLink(link, at(12))).toBe(false);
    expect(isStaleForLink({ ...link, changedAt: null }, at(10))).toBe(false);
    expect(isStaleForLink(link, null)).toBe(false);
    expect(isStaleForLink(undefined, at(10))).toBe(false);
  });
});

describe('contact changes reported by a linked reservation', () => {
  const email = (value: string, isPrimary = false) => ({ type: 'EMAIL' as const, value, isPrimary });
  const phone = (value: string, isPrimary = false) => ({ type: 'PHONE' as const, value, isPrimary });
  const link = (reservationId: string, contact: { email?: string; phone?: string }) => ({ reservationId, listingId: 'lst_1', ...contact });

  it('replaces the value the reservation reported before, in place, keeping its primary flag', () => {
    const out = contactsAfterReservationChange(
      [email('ana@x.com', true), phone('+34 600 111 222')],
      [link('res_1', { email: 'ana@x.com', phone: '+34 600 111 222' })],
      'res_1',
      {
        email: 'ana@x.com',
        phone: '+34 699 000 000',
      },
    );
    expect(out.contacts).toEqual([email('ana@x.com', true), phone('+34 699 000 000')]);
    expect(out.dropped).toEqual([phone('+34 600 111 222')]);
    expect(out.changed).toBe(true);
  });

  it('changes nothing for the same values written differently, or for an emptied contact', () => {
    const contacts = [email('ana@x.com', true), phone('+34 600 111 222')];
    const links = [link('res_1', { email: 'ana@x.com', phone: '+34 600 111 222' })];
    expect(contactsAfterReservationChange(contacts, links, 'res_1', { email: 'ANA@x.com ', phone: '+34600-111-222' })).toEqual({
      contacts,
      dropped: [],
      changed: false,
    });
    expect(contactsAfterReservationChange(contacts, links, 'res_1', { email: '', phone: '' })).toEqual({ contacts, dropped: [], changed: false });
  });

  it('keeps the old value while another linked reservation still reports it, and adds the new one', () => {
    const links = [link('res_1', { phone: '600111222' }), link('res_2', { phone: '600111222' })];
    const out = contactsAfterReservationChange([phone('600111222', true)], links, 'res_1', { phone: '699000000' });
    expect(out.contacts).toEqual([phone('600111222', true), phone('699000000')]);
    expect(out.dropped).toEqual([]);
  });

  it('adds the new value when the previous one is unknown (a link from before) or no longer on the profile', () => {
    expect(contactsAfterReservationChange([email('ana@x.com', true)], [link('res_1', {})], 'res_1', { phone: '699000000' }).contacts).toEqual([
      email('ana@x.com', true),
      phone('699000000'),
    ]);
    expect(
      contactsAfterReservationChange([email('ana@x.com', true)], [link('res_1', { phone: '600111222' })], 'res_1', { phone: '699000000' }).dropped,
    ).toEqual([]);
  });

  it('drops the old value when the new one is on the profile already, which takes over its primary flag', () => {
    const out = contactsAfterReservationChange([email('old@x.com', true), email('new@x.com')], [link('res_1', { email: 'old@x.com' })], 'res_1', {
      email: 'new@x.com',
    });
    expect(out.contacts).toEqual([email('new@x.com', true)]);
    expect(out.dropped).toEqual([email('old@x.com', true)]);
  });
});

describe('sources of a profile’s contacts', () => {
  it('are its reservations and, once it reported, the PMS’s guest record; a contact a source stops sending keeps its last value', () => {
    const reservations = [{ reservationId: 'res_1', listingId: 'lst_1', phone: '600111222' }];
    expect(contactSources(reservations, null)).toEqual(reservations);
    expect(contactSources(reservations, { email: 'a@x.com', phone: '' })).toEqual([
      ...reservations,
      { reservationId: PMS_GUEST_RECORD, listingId: '', email: 'a@x.com', phone: '' },
    ]);
    expect(reportedContacts({ email: ' new@x.com ', phone: '' }, { email: 'old@x.com', phone: '600111222' })).toEqual({
      email: 'new@x.com',
      phone: '600111222',
    });
    expect(reportedContacts({}, null)).toEqual({ email: '', phone: '' });
  });
});
