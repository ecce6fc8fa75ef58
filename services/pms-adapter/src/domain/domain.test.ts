// Pure rules of the pms-adapter: write -> PMS request, feed normalization, connect plan.
import { WRITES, type PmsWrite } from '@vrp/pms-matrix';
import { connectPlan, newConnection, providerNamed, requireProvider, type ConnectionRecord } from './connection';
import { MalformedChange, normalizeChange, syncKey } from './normalize';
import { isWrite, pmsRequestFor, RelayInputError } from './relay';

const base = { listingExternalId: 'L1', entityExternalId: 'R9', payload: { a: 1 }, idempotencyKey: '' };

describe('relayed writes (pure)', () => {
  it('maps every write of the matrix to a PMS request', () => {
    for (const op of Object.keys(WRITES) as PmsWrite[]) {
      const req = pmsRequestFor({ ...base, operation: op });
      expect(['POST', 'PATCH', 'PUT']).toContain(req.method);
      expect(req.path).not.toBe('');
    }
  });

  it('routes reservation writes and their aspects', () => {
    expect(pmsRequestFor({ ...base, operation: 'reservation.create' })).toEqual({
      method: 'POST',
      path: 'reservations',
      body: { a: 1, listingId: 'L1' },
      idempotencyKey: '',
      retryable: false,
    });
    expect(pmsRequestFor({ ...base, operation: 'reservation.change_dates' })).toMatchObject({ method: 'PATCH', path: 'reservations/R9' });
    expect(pmsRequestFor({ ...base, operation: 'reservation.cancel' })).toMatchObject({ method: 'POST', path: 'reservations/R9/cancel' });
    expect(pmsRequestFor({ ...base, operation: 'guest.write', entityExternalId: '' })).toMatchObject({ method: 'POST', path: 'guests' });
    expect(pmsRequestFor({ ...base, operation: 'content.rooms', payload: { beds: 2 } })).toMatchObject({
      method: 'PUT',
      path: 'listings/L1/content/rooms',
      body: { value: { beds: 2 } },
    });
  });

  it('retries only what is safe to repeat: PUTs, and writes with an idempotency key', () => {
    expect(pmsRequestFor({ ...base, operation: 'content.description' }).retryable).toBe(true);
    expect(pmsRequestFor({ ...base, operation: 'reservation.modify' }).retryable).toBe(false);
    expect(pmsRequestFor({ ...base, operation: 'reservation.modify', idempotencyKey: 'k' })).toMatchObject({ retryable: true, idempotencyKey: 'k' });
  });

  it('names the id a write is missing', () => {
    expect(() => pmsRequestFor({ ...base, operation: 'reservation.modify', entityExternalId: '' })).toThrow(RelayInputError);
    try {
      pmsRequestFor({ ...base, operation: 'content.description', listingExternalId: '' });
    } catch (err) {
      expect((err as RelayInputError).fields).toEqual({ listingExternalId: 'is required for content.description' });
    }
    expect(isWrite('reservation.create')).toBe(true);
    expect(isWrite('toString')).toBe(false);
  });
});

describe('feed normalization (pure)', () => {
  const at = '2030-01-01T10:00:00.000Z';
  it('normalizes a listing, keyed by its own id; unlisted is listed === false', () => {
    const c = normalizeChange({
      seq: 4,
      entity: 'listing',
      id: 'L1',
      listing_id: 'L1',
      at,
      data: { id: 'L1', name: 'Flat', listed: false, channels: [{ channel: 'CHANNEL_A', listing_id: 'cha-1' }], base_price: 90 },
    });
    expect(c).toMatchObject({ seq: 4, entity: 'listing', externalId: 'L1', listingExternalId: 'L1' });
    expect(c.payload).toMatchObject({
      externalId: 'L1',
      name: 'Flat',
      unlisted: true,
      channels: [{ channel: 'CHANNEL_A', externalId: 'cha-1' }],
      defaultNightlyPrice: 90,
    });
    expect(syncKey(c)).toBe('L1');
  });

  it('normalizes a reservation (status upper-cased, dates renamed) and a guest (keyed by its id)', () => {
    const r = normalizeChange({
      seq: 5,
      entity: 'reservation',
      id: 'R1',
      listing_id: 'L1',
      at,
      data: {
        id: 'R1',
        listing_id: 'L1',
        status: 'cancelled',
        arrival: '2030-02-01',
        departure: '2030-02-03',
        guest: { first_name: 'Ana' },
        adults: 2,
        total: 300,
      },
    });
    expect(r.payload).toMatchObject({
      status: 'CANCELLED',
      checkIn: '2030-02-01',
      checkOut: '2030-02-03',
      guest: { firstName: 'Ana' },
      occupancy: { adults: 2, children: 0 },
      totalPrice: 300,
      updatedAt: new Date(at),
    });
    const g = normalizeChange({ seq: 6, entity: 'guest', id: 'G1', listing_id: '', at, data: { id: 'G1', first_name: 'Bo' } });
    expect(syncKey(g)).toBe('guest:G1');
  });

  it('normalizes guest messages, reviews, requests and inquiries, keyed by their listing', () => {
    const m = normalizeChange({
      seq: 7,
      entity: 'message',
      id: 'M1',
      listing_id: 'L1',
      at,
      data: {
        id: 'M1',
        thread_id: 'T1',
        listing_id: 'L1',
        reservation_id: 'R1',
        author: 'guest',
        text: 'Hi',
        attachments: [{ url: 'https://f/x.pdf', filename: 'x.pdf', mime_type: 'application/pdf' }],
        created_at: at,
      },
    });
    expect(m).toMatchObject({ entity: 'message', externalId: 'M1', listingExternalId: 'L1' });
    expect(m.payload).toEqual({
      externalId: 'M1',
      conversationExternalId: 'T1',
      reservationExternalId: 'R1',
      direction: 'inbound',
      body: 'Hi',
      attachments: [{ url: 'https://f/x.pdf', name: 'x.pdf', contentType: 'application/pdf' }],
      channel: undefined,
      sentAt: new Date(at),
    });
    expect(syncKey(m)).toBe('L1');
    const v = normalizeChange({
      seq: 8,
      entity: 'review',
      id: 'V1',
      listing_id: 'L1',
      at,
      data: {
        id: 'V1',
        listing_id: 'L1',
        stars: 4,
        text: 'Nice',
        reviewer_name: 'Uma',
        response: { text: 'Thanks', responded_at: at },
        submitted_at: at,
        updated_at: at,
      },
    });
    expect(v.payload).toMatchObject({ rating: 4, body: 'Nice', guestName: 'Uma', reply: { body: 'Thanks', repliedAt: new Date(at) } });
    const i = normalizeChange({
      seq: 9,
      entity: 'inquiry',
      id: 'I1',
      listing_id: 'L1',
      at,
      data: {
        id: 'I1',
        listing_id: 'L1',
        arrival: '2030-03-01',
        departure: '2030-03-04',
        guest_count: 3,
        status: 'pre_approved',
        guest: { first_name: 'Rae' },
      },
    });
    expect(i).toMatchObject({
      entity: 'inquiry',
      payload: { checkIn: '2030-03-01', checkOut: '2030-03-04', guests: 3, status: 'pre_approved', guest: { firstName: 'Rae' } },
    });
    expect(() => normalizeChange({ seq: 10, entity: 'review', id: 'V2', listing_id: 'L1', at, data: { id: 'V2', stars: 9, submitted_at: at } })).toThrow(
      MalformedChange,
    );
    expect(() =>
      normalizeChange({ seq: 11, entity: 'message', id: 'M2', listing_id: 'L1', at, data: { id: 'M2', thread_id: 'T', author: 'bot', created_at: at } }),
    ).toThrow(MalformedChange);
  });

  it('refuses what it cannot read', () => {
    expect(() => normalizeChange({ seq: 1, entity: 'boat', id: 'x', listing_id: '', at, data: {} })).toThrow(MalformedChange);
    expect(() => normalizeChange({ seq: 1, entity: 'reservation', id: 'x', listing_id: '', at, data: { id: 'x', listing_id: 'L', status: 'weird' } })).toThrow(
      MalformedChange,
    );
    expect(() => normalizeChange({ seq: 1, entity: 'listing', id: 'x', listing_id: '', at: 'never', data: { id: 'x', name: 'n' } })).toThrow(MalformedChange);
  });
});

describe('connections (pure)', () => {
  const c = (status: ConnectionRecord['status']) => ({ status }) as ConnectionRecord;
  it('plans a connect from the existing connection', () => {
    expect(connectPlan(null)).toBe('create');
    expect(connectPlan(c('connected'))).toBe('reuse');
    expect(connectPlan(c('disconnected'))).toBe('reconnect');
  });
  it('reads provider names case-insensitively, from the matrix only', () => {
    expect(providerNamed(' pms-g ')).toBe('PMS-G');
    expect(providerNamed('PMS-H')).toBeNull();
  });
});

describe('connection rules (pure)', () => {
  it('requires a provider of the matrix, naming the field in the 400', () => {
    expect(requireProvider('pms-c')).toBe('PMS-C');
    expect(() => requireProvider('')).toThrow(expect.objectContaining({ code: 'validation_failed', details: { fields: { provider: 'is required' } } }));
    expect(() => requireProvider('PMS-Z', 'target')).toThrow(
      expect.objectContaining({ details: { fields: { target: "must be one of PMS-A..PMS-G, not 'PMS-Z'" } } }),
    );
  });

  it('creates a connection connected, at the start of the feed, never synced', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const c = newConnection('ws', 'PMS-A', 'acct', now);
    expect(c).toMatchObject({ workspaceId: 'ws', provider: 'PMS-A', accountId: 'acct', status: 'connected', createdAt: now, lastSyncedAt: null, cursor: '0' });
    expect(c.id).toMatch(/^pmc_/);
    expect(connectPlan(c)).toBe('reuse');
  });
});
