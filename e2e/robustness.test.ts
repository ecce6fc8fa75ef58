// Bad input never gets a 5xx: a seeded stream of requests through the gateway, each a valid
// request with one field replaced by a hostile value (wrong types, impossible dates, operator
// objects, prototype keys, huge strings), or a random body, or junk query parameters, across
// every writing endpoint and the main collections. Every answer is a success or a 4xx envelope
// that says what is wrong, carries the request id, and leaks no internals.
import { startTestStack, type TestStack } from './support/stack';

const REQUESTS = 1500;

/** Deterministic pseudo-random numbers, so a failure reproduces. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

const HOSTILE: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  -0,
  3.7,
  1e21,
  '',
  ' ',
  'x'.repeat(5000),
  '2024-02-30',
  '2024-13-01',
  '1e3',
  'not-a-date',
  '2025-01-01T00:00:00Z',
  'CONFIRMED',
  '💥',
  '../..',
  '$gt',
  '__proto__',
  'constructor',
  { $gt: '' },
  { $where: 'sleep(1)' },
  [],
  [1, 2],
  {},
  { a: { b: { c: 1 } } },
];

const FIELDS = [
  'propertyId',
  'checkIn',
  'checkOut',
  'primaryGuest',
  'occupancy',
  'financials',
  'source',
  'status',
  'notes',
  'customFields',
  'firstName',
  'language',
  'provider',
  'active',
  'listingIds',
  'url',
  'eventTypes',
  'body',
  'attachments',
  'sections',
  'updates',
  '__proto__',
  'constructor',
  'platform',
  'unitId',
  'tentativeHold',
  'groupId',
];
const QUERY = [
  'limit',
  'offset',
  'status',
  'property_id',
  'check_in_after',
  'check_in_before',
  'source',
  'updated_since',
  'search',
  'from',
  'to',
  'reservation_id',
];

describe('robustness: hostile input gets a 4xx envelope, never a 5xx', () => {
  let t: TestStack;
  beforeAll(async () => {
    t = await startTestStack();
  });
  afterAll(async () => {
    await t.stop();
  });

  it(`answers ${REQUESTS} seeded hostile requests with successes or 4xx envelopes`, async () => {
    const rand = seeded(20261123);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(rand() * values.length)] as T;
    const randomValue = (depth = 0): unknown => {
      if (depth > 2 || rand() < 0.6) return pick(HOSTILE);
      if (rand() < 0.4) return Array.from({ length: Math.floor(rand() * 3) }, () => randomValue(depth + 1));
      return Object.fromEntries(Array.from({ length: 3 }, () => [pick(FIELDS), randomValue(depth + 1)]));
    };

    const listing = t.demoListingIds[0]!;
    const made = await t.api<{ data: { id: string } }>('POST', '/v1/reservations', {
      propertyId: listing,
      checkIn: '2034-06-01',
      checkOut: '2034-06-04',
      primaryGuest: { firstName: 'Base' },
    });
    expect(made.status).toBe(201);
    const reservation = made.body.data.id;
    // A valid request per endpoint (body, or query of a read); the stream breaks one field of
    // it at a time.
    const endpoints: Array<[string, string, Record<string, unknown>]> = [
      [
        'POST',
        '/v1/reservations',
        {
          propertyId: listing,
          checkIn: '2034-01-01',
          checkOut: '2034-01-03',
          primaryGuest: { firstName: 'A', email: 'a@example.com' },
          occupancy: { adults: 2, children: 0, infants: 0, pets: 0 },
          financials: { totalPrice: 100, currency: 'EUR' },
          source: 'DIRECT',
        },
      ],
      ['PATCH', `/v1/reservations/${reservation}`, { status: 'CONFIRMED', notes: { host: 'h' }, customFields: { a: 'b' } }],
      ['POST', '/v1/reservations/quote', { propertyId: listing, checkIn: '2034-01-01', checkOut: '2034-01-03', occupancy: { adults: 1 } }],
      ['POST', `/v1/reservations/${reservation}/cancel`, {}],
      ['POST', '/v1/guests', { firstName: 'Z', lastName: 'Y', language: 'en' }],
      ['PATCH', `/v1/listings/${listing}`, { active: true }],
      ['POST', '/v1/listings/status', { listingIds: [listing], active: true }],
      ['PATCH', '/v1/availability/batch', { updates: [{ listingId: listing, from: '2034-01-01', to: '2034-01-05', available: true, price: 100 }] }],
      ['PUT', `/v1/listings/${listing}/content`, { sections: { description: 'x' } }],
      ['POST', `/v1/listings/${listing}/photos`, { url: 'https://example.com/a.jpg', caption: 'c' }],
      ['POST', '/v1/webhooks', { url: 'https://example.com/hooks', eventTypes: ['*'] }],
      [
        'GET',
        '/v1/reservations',
        {
          limit: '10',
          offset: '0',
          status: 'CONFIRMED',
          property_id: listing,
          check_in_after: '2030-01-01',
          check_in_before: '2040-01-01',
          source: 'DIRECT',
          updated_since: '2020-01-01T00:00:00Z',
        },
      ],
      ['GET', '/v1/guests', { limit: '10', search: 'a' }],
      ['GET', '/v1/listings', { status: 'all', limit: '10', offset: '0' }],
      ['GET', `/v1/listings/${listing}/calendar`, { from: '2034-01-01', to: '2034-01-31' }],
      ['GET', '/v1/conversations', { limit: '10', property_id: listing }],
      ['GET', '/v1/reviews', { limit: '10' }],
    ];
    /** The valid fields with one of them (or a nested one) broken, or an extra one added. */
    const breakOne = (valid: Record<string, unknown>): Record<string, unknown> => {
      const broken = structuredClone(valid);
      const fields = Object.keys(broken);
      if (fields.length > 0 && rand() < 0.85) {
        const field = pick(fields);
        const inner = broken[field];
        if (inner && typeof inner === 'object' && !Array.isArray(inner) && rand() < 0.5)
          (inner as Record<string, unknown>)[pick([...Object.keys(inner), 'extra'])] = pick(HOSTILE);
        else broken[field] = pick(HOSTILE);
      } else {
        broken[pick(['extra', 'id', '__proto__'])] = randomValue();
      }
      return broken;
    };

    const statuses = new Map<number, number>();
    const problems: string[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const [method, path, valid] = pick(endpoints);
      let url = path;
      let body: string | undefined;
      if (method === 'GET') {
        const query = Object.entries(breakOne(valid)).map(
          ([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`,
        );
        url += `?${query.join('&')}`;
      } else {
        if (rand() < 0.2) url += `?${pick(QUERY)}=${encodeURIComponent(String(pick(HOSTILE)))}`;
        const roll = rand();
        body = roll < 0.1 ? '{"truncated' : roll < 0.2 ? JSON.stringify(randomValue()) : JSON.stringify(breakOne(valid));
      }
      const res = await fetch(`${t.baseUrl}${url}`, {
        method,
        headers: { authorization: `Bearer ${t.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body,
      });
      const text = await res.text();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const what = `${method} ${url} ${body?.slice(0, 200) ?? ''} -> ${res.status} ${text.slice(0, 300)}`;
      if (res.status >= 500) {
        problems.push(what);
        continue;
      }
      if (res.status >= 400) {
        const error = (JSON.parse(text) as { error?: Record<string, unknown> }).error;
        const complete = error && ['code', 'message', 'fix', 'docs_url', 'request_id'].every((k) => typeof error[k] === 'string' && error[k] !== '');
        if (!complete || error.request_id !== res.headers.get('x-request-id') || /at \S+ \(|node_modules|Error:/.test(text)) problems.push(what);
      }
    }
    expect(problems).toEqual([]);
    // The stream reached past validation too, or it would prove little.
    expect((statuses.get(200) ?? 0) + (statuses.get(201) ?? 0)).toBeGreaterThan(REQUESTS / 20);
  }, 120_000);
});
