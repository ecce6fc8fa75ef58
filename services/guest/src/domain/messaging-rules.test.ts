import { providersRefusing, PROVIDERS } from '@vrp/pms-matrix';
import { createGuestProblems, updateGuestProblems } from './guest-input';
import { assertPmsCan, newConversation, pmsReservationKey, sameRequest, type RequestRecord } from './messaging';
import { date, MalformedChange } from './sync-change';

describe('PMS refusals of messaging writes', () => {
  it('refuses a write the matrix refuses and lets a listing without a PMS through', () => {
    const refusing = providersRefusing('review.reply');
    expect(refusing.length).toBeGreaterThan(0);
    expect(() => assertPmsCan(refusing[0]!, ['review.reply'])).toThrow(expect.objectContaining({ code: 'pms_write_unsupported' }));
    expect(() => assertPmsCan('', ['review.reply'])).not.toThrow();
    const able = PROVIDERS.find((p) => !refusing.includes(p));
    if (able) expect(() => assertPmsCan(able, ['review.reply'])).not.toThrow();
  });

  it('names a PMS reservation by its provider, since PMS ids are unique per PMS only', () => {
    expect(pmsReservationKey('PMS-A', '42')).toBe('PMS-A/42');
    expect(pmsReservationKey('PMS-A', '42')).not.toBe(pmsReservationKey('PMS-B', '42'));
  });
});

describe('request and conversation records', () => {
  const request: RequestRecord = {
    id: 'rqs_1',
    workspaceId: 'ws',
    listingId: 'lst_1',
    kind: 'request',
    status: 'pending',
    guestId: '',
    guestName: 'Ann',
    checkIn: '2026-01-01',
    checkOut: '2026-01-03',
    guests: 2,
    message: 'hi',
    channel: 'airbnb',
    provider: 'PMS-F',
    externalId: 'r1',
    blockInstantBooking: false,
    sourceUpdatedAt: new Date(1),
    createdAt: new Date(1),
    updatedAt: new Date(1),
  };

  it('sees two versions of a request as the same when only bookkeeping differs', () => {
    expect(sameRequest(request, { ...request, updatedAt: new Date(2), sourceUpdatedAt: new Date(2) })).toBe(true);
    expect(sameRequest(request, { ...request, status: 'accepted' })).toBe(false);
    expect(sameRequest(request, { ...request, guests: 3 })).toBe(false);
  });

  it('creates a conversation with no messages yet and a fresh id', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const of = { workspaceId: 'ws', listingId: 'lst_1', reservationId: 'res_1', guestId: 'gst_1', channel: 'direct', externalId: '', pmsReservationId: '' };
    const a = newConversation(of, now);
    expect(a).toMatchObject({ ...of, messageCount: 0, lastMessageAt: null, createdAt: now, updatedAt: now });
    expect(a.id).toMatch(/^cnv_/);
    expect(newConversation(of, now).id).not.toBe(a.id);
  });
});

describe('sync change and guest input rules', () => {
  it('refuses a missing or invalid time as a malformed change', () => {
    expect(() => date(undefined, 'sentAt')).toThrow(MalformedChange);
    expect(() => date(new Date(Number.NaN), 'sentAt')).toThrow(/sentAt is missing or not a time/);
    expect(date(new Date(5), 'sentAt').getTime()).toBe(5);
  });

  it('names every bad field of a guest create and of a PATCH', () => {
    expect(createGuestProblems({ firstName: ' ', lastName: '', language: 'not a tag', provider: 'PMS-Z', email: '', phone: '' })).toEqual({
      firstName: 'is required',
      language: 'must be a language tag such as en or pt-BR',
      provider: expect.stringContaining('PMS-A'),
    });
    expect(updateGuestProblems({})).toEqual({ body: 'must change at least one of firstName, lastName, language' });
    expect(updateGuestProblems({ firstName: 'Ann', language: 'pt-BR' })).toEqual({});
  });
});
