// Schema-guided fuzzing of every operation of the OpenAPI document, over HTTP only. A seeded
// stream of hostile requests: each starts from a request built from the operation's own schemas
// (real ids in the path) and breaks it in one place: one field of the wrong type or out of
// range, a missing required field, an unknown or prototype-named key, a Mongo operator object,
// NUL or unpaired surrogates in text, junk bodies, hostile path and query parameters, a bad
// Idempotency-Key; and headers HTTP refuses (no Host, an unmet Expect, an unsupported or corrupt
// Content-Encoding) on every operation. Every write is broken, so every write must be refused:
//   - 0 answers >= 500,
//   - 0 error answers without the envelope (code, message, fix, docs_url, request_id = X-Request-Id),
//   - 0 partial writes: no write is accepted, and the state readable through the API and the
//     admin API is the same after the run as before it;
//   - RateLimit-* on every answer a limit applied to (all but those HTTP refuses before any).
// `pnpm test` runs FUZZ_REQUESTS (default 1200); `pnpm fuzz` runs the full 10,000. FUZZ_SEED
// picks another stream; a failure names its request so it reproduces.
import { gzipSync } from 'node:zlib';
import { eventually, parseRawResponse, rawExchange, startTestStack, type TestStack } from './support/stack';

const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 1200);
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const WORKERS = 6;
/** Upper bound of one request; the whole run is bounded by the test timeout below. */
const REQUEST_TIMEOUT_MS = 15_000;

type Schema = Record<string, unknown> & {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  additionalProperties?: boolean | Schema;
};
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema?: Schema;
}
interface Operation {
  method: string;
  path: string;
  operationId: string;
  parameters: Parameter[];
  body: Schema | null;
}
interface Probe {
  op: Operation;
  url: string;
  /** The listener it goes to: the public one, or the private one for the admin API. */
  base: string;
  headers: Record<string, string>;
  body: string | undefined;
  defect: string;
}

/** Deterministic pseudo-random numbers (a 32-bit LCG), so a failure reproduces. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'];
const OPERATOR_OBJECTS = [{ $gt: '' }, { $ne: null }, { $where: 'sleep(100)' }, { $regex: '.*' }, { $in: [] }, { $expr: { $eq: [1, 1] } }];
const BAD_TEXT = ['x\u0000y', '\u0000', 'a\ud800b', '\udc00', '\udfff\ud800'];
const JUNK_BODIES = [
  '{"truncated',
  '{"a":',
  '[',
  'null',
  '[]',
  '"text"',
  '42',
  'true',
  '{"a":1}}',
  '\u0000',
  '{"__proto__":{"polluted":true}}',
  `${'['.repeat(200)}${']'.repeat(200)}`,
  `{"k":"${'x'.repeat(5000)}"`,
  '{"a":NaN}',
  "{'a':1}",
];
// No bare '..': a client resolves it as a dot segment, which is another URL, not a hostile id.
const HOSTILE_IDS = [
  'does_not_exist',
  'lst_000000000000000000000',
  '...',
  '%00',
  '__proto__',
  'constructor',
  '$gt',
  'x'.repeat(400),
  '%E0%A4%A',
  "'; DROP TABLE x;--",
  '\u0000',
  '💥',
  '%2e%2e%2fadmin',
];
const HOSTILE_QUERY_VALUES = [
  '-1',
  '0',
  '99999999999',
  '1e3',
  '0x10',
  ' ',
  '',
  'abc',
  '%00',
  '__proto__',
  '{"$gt":""}',
  '2024-02-30',
  'x'.repeat(3000),
  '%ud800',
];
/** Content-Encodings the API does not decode (it decodes gzip, deflate, br and identity, one at a time). */
const UNSUPPORTED_ENCODINGS = ['compress', 'bogus', 'gzip, gzip', 'x-gzip', 'zstd-nope', '*'];
const UNMET_EXPECTATIONS = ['999-bogus', 'x', 'gzip'];
const UNKNOWN_QUERY = [...PROTOTYPE_KEYS, '$where', 'sort', 'a[b]', 'extra'];

function resolver(doc: { components?: { schemas?: Record<string, Schema> } }) {
  const resolve = (schema: Schema | undefined): Schema => {
    if (!schema) return {};
    if (schema.$ref) return resolve(doc.components?.schemas?.[schema.$ref.replace('#/components/schemas/', '')]);
    if (schema.allOf)
      return schema.allOf
        .map(resolve)
        .reduce<Schema>(
          (a, b) => ({ ...a, ...b, properties: { ...a.properties, ...b.properties }, required: [...(a.required ?? []), ...(b.required ?? [])] }),
          {},
        );
    return schema;
  };
  return resolve;
}

/** The JSON types a schema admits (anyOf/oneOf unions included). */
function typesOf(schema: Schema, resolve: (s: Schema) => Schema): Set<string> {
  const s = resolve(schema);
  const variants = s.anyOf ?? s.oneOf;
  if (variants) return new Set(variants.flatMap((v) => [...typesOf(v, resolve)]));
  if (s.enum) return new Set(s.enum.map((v) => (v === null ? 'null' : typeof v)));
  if (s.const !== undefined) return new Set([s.const === null ? 'null' : typeof s.const]);
  const t = s.type;
  if (Array.isArray(t)) return new Set(t.map((x) => (x === 'integer' ? 'number' : x)));
  if (t) return new Set([t === 'integer' ? 'number' : t]);
  return new Set(['any']);
}

const jsonType = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

describe('fuzz: every operation of the OpenAPI document', () => {
  let t: TestStack;
  let ids: Record<string, string[]>;

  beforeAll(async () => {
    t = await startTestStack({ demoPms: true });
    const listings = await t.api<{ data: { id: string }[] }>('GET', '/v1/listings?status=all&limit=200');
    const listingIds = listings.body.data.map((l) => l.id);
    const reservation = await t.api<{ data: { id: string } }>('POST', '/v1/reservations', {
      propertyId: listingIds[0],
      checkIn: '2034-06-01',
      checkOut: '2034-06-04',
      primaryGuest: { firstName: 'Fuzz', email: 'fuzz@example.com' },
    });
    const guest = await t.api<{ data: { id: string } }>('POST', '/v1/guests', { firstName: 'Fuzzy' });
    const photo = await t.api<{ data: { id: string } }>('POST', `/v1/listings/${listingIds[0]}/photos`, { url: 'https://example.com/a.jpg' });
    // The reservation opens its conversation once the guest service has applied its event.
    let conversations = await t.api<{ data: { id: string }[] }>('GET', '/v1/conversations');
    await eventually(
      async () => (conversations = await t.api<{ data: { id: string }[] }>('GET', '/v1/conversations')).body.data.length > 0,
      5000,
      'the reservation’s conversation',
    );
    const connections = await t.admin<{ data: { id: string }[] }>('GET', `/admin/v1/workspaces/${t.workspaceId}/connections`);
    const keys = await t.admin<{ data: { id: string }[] }>('GET', `/admin/v1/workspaces/${t.workspaceId}/api-keys`);
    // Subscribed to an event nothing in the run can cause (every write is refused), so no
    // delivery changes the subscription while the state is compared.
    const webhook = await t.api<{ data: { id: string } }>('POST', '/v1/webhooks', { url: `${t.baseUrl}/hook`, eventTypes: ['review.updated'] });
    ids = {
      listing: listingIds,
      reservation: [reservation.body.data.id],
      guest: [guest.body.data.id],
      photo: [photo.body.data.id],
      conversation: conversations.body.data.map((c) => c.id),
      connection: connections.body.data.map((c) => c.id),
      apiKey: keys.body.data.map((k) => k.id),
      webhook: [webhook.body.data.id],
      workspace: [t.workspaceId],
      provider: ['PMS-A', 'pms-f'],
    };
    for (const [what, found] of Object.entries(ids)) if (found.length === 0 || found.some((id) => !id)) throw new Error(`fuzz setup: no ${what} id`);
  }, 60_000);
  afterAll(async () => {
    await t.stop();
  });

  /** Everything the API and the admin API can show of the workspace's state. */
  async function snapshot(): Promise<string> {
    const reads = [
      '/v1/listings?status=all&limit=200',
      '/v1/reservations?limit=200',
      '/v1/guests?limit=200',
      '/v1/conversations?limit=200',
      '/v1/reviews?limit=200',
      '/v1/requests?limit=200',
      '/v1/webhooks?limit=200',
      ...ids.listing!.flatMap((id) => [
        `/v1/listings/${id}`,
        `/v1/listings/${id}/content`,
        `/v1/listings/${id}/photos`,
        `/v1/listings/${id}/calendar?from=2034-01-01&to=2034-12-31`,
      ]),
      ...ids.conversation!.map((id) => `/v1/conversations/${id}/messages?limit=200`),
    ];
    const state: Record<string, unknown> = {};
    for (const path of reads) {
      const res = await t.api('GET', path);
      state[path] = { status: res.status, body: res.body };
    }
    for (const path of [
      `/admin/v1/workspaces/${t.workspaceId}`,
      `/admin/v1/workspaces/${t.workspaceId}/api-keys`,
      `/admin/v1/workspaces/${t.workspaceId}/connections`,
    ]) {
      const res = await t.admin('GET', path);
      state[path] = { status: res.status, body: res.body };
    }
    // An error read (an inactive listing's 403) carries this request's id; the rest must not move.
    return JSON.stringify(state, (key, value: unknown) => (key === 'request_id' ? '(per request)' : value), 1);
  }

  /** The operations of the OpenAPI document, bodies resolved. */
  async function operationsOf(): Promise<{ operations: Operation[]; resolve: (s: Schema) => Schema }> {
    const doc = (
      await t.api<{
        paths: Record<string, Record<string, { operationId: string; parameters?: Parameter[]; requestBody?: { content: Record<string, { schema: Schema }> } }>>;
        components?: { schemas?: Record<string, Schema> };
      }>('GET', '/v1/openapi.json')
    ).body;
    const resolve = resolver(doc);
    const operations: Operation[] = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({
        method: method.toUpperCase(),
        path,
        operationId: op.operationId,
        parameters: op.parameters ?? [],
        body: op.requestBody ? resolve(op.requestBody.content['application/json']?.schema) : null,
      })),
    );
    return { operations, resolve };
  }

  it('answers the header cases on every operation with the envelope, the right code, X-Request-Id and (where a limit applied) RateLimit-*', async () => {
    const { operations } = await operationsOf();
    const rand = seeded(SEED + 1);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(rand() * values.length)] as T;
    const publicUrl = new URL(t.baseUrl);
    const adminUrl = new URL(t.adminBaseUrl);
    const before = await snapshot();
    const problems: string[] = [];
    const check = (
      what: string,
      res: { status: number; headers: Record<string, string>; body: unknown },
      want: { status: number; code: string; limited: boolean },
    ) => {
      const error = (res.body as { error?: Record<string, unknown> } | null)?.error;
      const complete = error && ['code', 'message', 'fix', 'docs_url', 'request_id'].every((k) => typeof error[k] === 'string' && error[k] !== '');
      if (res.status !== want.status || error?.code !== want.code)
        problems.push(`${what} -> ${res.status} ${String(error?.code)}, expected ${want.status} ${want.code}`);
      else if (!complete || error.request_id !== res.headers['x-request-id'])
        problems.push(`${what} -> no complete envelope with X-Request-Id: ${JSON.stringify(res)}`);
      else if (want.limited && !['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'].every((h) => /^\d+$/.test(res.headers[h] ?? '')))
        problems.push(`${what} -> ${res.status} without RateLimit-*`);
    };
    /** One raw request (headers as given, `Connection: close`), answered in full. */
    const raw = async (method: string, path: string, headers: string[], body?: Buffer) => {
      // The admin API is on the gateway's private listener, the rest on the public one.
      const { port, hostname } = path.startsWith('/admin/') ? adminUrl : publicUrl;
      const head = [`${method} ${path} HTTP/1.1`, ...headers, 'Connection: close', ...(body ? [`Content-Length: ${body.length}`] : []), '', ''].join('\r\n');
      return parseRawResponse<unknown>(await rawExchange(Number(port), body ? Buffer.concat([Buffer.from(head), body]) : head, hostname));
    };
    for (const op of operations) {
      const path = op.path.replace(/\{[^}]+\}/g, 'unknown_id');
      const auth = `Authorization: Bearer ${op.path.startsWith('/admin/') ? t.adminToken : t.apiKey}`;
      const what = `${op.method} ${path}`;
      const json = op.body ? Buffer.from('{"fuzz":true}') : undefined;
      const jsonHeaders = op.body ? ['Content-Type: application/json'] : [];
      // HTTP refuses these before any limit is looked at: no RateLimit-* (docs/api.md).
      check(`${what} without Host`, await raw(op.method, path, [auth, ...jsonHeaders], json), { status: 400, code: 'malformed_request', limited: false });
      const expectation = pick(UNMET_EXPECTATIONS);
      check(`${what} Expect: ${expectation}`, await raw(op.method, path, ['Host: fuzz', auth, `Expect: ${expectation}`, ...jsonHeaders], json), {
        status: 417,
        code: 'expectation_failed',
        limited: false,
      });
      if (op.body) {
        const encoding = pick(UNSUPPORTED_ENCODINGS);
        const unsupported = await raw(op.method, path, ['Host: fuzz', auth, ...jsonHeaders, `Content-Encoding: ${encoding}`], gzipSync('{"fuzz":true}'));
        check(`${what} Content-Encoding: ${encoding}`, unsupported, { status: 415, code: 'unsupported_encoding', limited: true });
        const message = String((unsupported.body as { error?: { message?: string } } | null)?.error?.message);
        if (unsupported.status === 415 && !message.includes('gzip, deflate, br, identity'))
          problems.push(`${what} 415 does not name the accepted encodings: ${message}`);
        const corruptAs = pick(['gzip', 'deflate', 'br']);
        check(`${what} corrupt ${corruptAs}`, await raw(op.method, path, ['Host: fuzz', auth, ...jsonHeaders, `Content-Encoding: ${corruptAs}`], json), {
          status: 400,
          code: 'invalid_json',
          limited: true,
        });
      }
      // What no route matches: an unknown sibling path, and a method the path does not accept.
      check(`${what}/unknown-route`, await raw('GET', `${path}/unknown-route/x`, ['Host: fuzz', auth]), {
        status: 404,
        code: 'route_not_found',
        limited: true,
      });
      const methods = new Set(operations.filter((o) => o.path === op.path).map((o) => o.method));
      const other = ['PUT', 'DELETE', 'PATCH', 'POST'].find((m) => !methods.has(m));
      if (other) check(`${other} ${path}`, await raw(other, path, ['Host: fuzz', auth]), { status: 405, code: 'method_not_allowed', limited: true });
    }
    const doc = await raw('GET', '/v1/openapi.json', ['Host: fuzz']).catch(() => null);
    if (!doc || doc.status !== 200 || !/^\d+$/.test(doc.headers['ratelimit-limit'] ?? '')) problems.push('GET /v1/openapi.json without RateLimit-*');
    expect(problems.slice(0, 20)).toEqual([]);
    expect(await snapshot()).toEqual(before);
  }, 120_000);

  it(
    `answers ${REQUESTS} seeded hostile requests across every operation: 0 5xx, 0 bodies without the envelope, 0 partial writes`,
    async () => {
      const { operations, resolve } = await operationsOf();
      expect(operations.length).toBeGreaterThanOrEqual(50);

      const rand = seeded(SEED);
      const pick = <T>(values: readonly T[]): T => values[Math.floor(rand() * values.length)] as T;

      /** A plausible id for a path parameter of this path. */
      const validId = (path: string, name: string): string => {
        if (name === 'provider') return pick(ids.provider!);
        if (name === 'photoId') return ids.photo![0]!;
        if (name === 'connectionId') return ids.connection![0]!;
        if (name === 'deliveryId') return 'dlv_unknown';
        const resource = path.split('/').filter((s) => s && !s.startsWith('{') && s !== 'v1' && s !== 'admin')[0];
        const table: Record<string, string[] | undefined> = {
          listings: ids.listing,
          properties: ids.listing,
          reservations: ids.reservation,
          guests: ids.guest,
          conversations: ids.conversation,
          webhooks: ids.webhook,
          workspaces: ids.workspace,
          'api-keys': ids.apiKey,
          requests: ['req_unknown'],
          reviews: ['rev_unknown'],
        };
        return pick(table[resource ?? ''] ?? ['unknown']);
      };

      /** A value the schema accepts, built from its constraints. */
      const sample = (schema: Schema, name: string, depth = 0): unknown => {
        const s = resolve(schema);
        if (s.const !== undefined) return s.const;
        if (s.enum) return s.enum.find((v) => v !== null) ?? s.enum[0];
        const variants = s.anyOf ?? s.oneOf;
        if (variants) return sample(variants.find((v) => !typesOf(v, resolve).has('null')) ?? variants[0]!, name, depth);
        const type = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type;
        switch (type) {
          case 'string': {
            if (/listingid|propertyid/i.test(name)) return ids.listing![0];
            if (s.format === 'date' || s.pattern?.includes('\\d{4}-\\d{2}-\\d{2}$')) return '2034-03-10';
            if (s.format === 'date-time') return '2034-03-10T10:00:00Z';
            if (s.format === 'uri' || /url/i.test(name)) return 'https://example.com/fuzz.jpg';
            if (s.format === 'email' || /email/i.test(name)) return 'fuzz@example.com';
            if (/provider/i.test(name)) return 'PMS-A';
            return 'f'.repeat(Math.max(1, Math.min(s.minLength ?? 1, 8)));
          }
          case 'integer':
          case 'number':
            return s.minimum !== undefined ? Math.max(s.minimum, 1) : 1;
          case 'boolean':
            return true;
          case 'array': {
            const n = Math.max(s.minItems ?? 0, 1);
            return Array.from({ length: n }, () => sample(s.items ?? {}, name, depth + 1));
          }
          case 'object':
          default: {
            if (depth > 4) return {};
            const out: Record<string, unknown> = {};
            for (const [key, prop] of Object.entries(s.properties ?? {})) {
              if ((s.required ?? []).includes(key) || rand() < 0.5) out[key] = sample(prop, key, depth + 1);
            }
            return out;
          }
        }
      };

      /** A value the schema refuses (type confusion, bounds, bad text, operator objects). */
      const violation = (schema: Schema): { value: unknown; what: string } => {
        const s = resolve(schema);
        const allowed = typesOf(s, resolve);
        const candidates: { value: unknown; what: string }[] = [];
        const confusion: unknown[] = ['text', 12345, -1.5, true, null, [], {}, ...OPERATOR_OBJECTS];
        for (const value of confusion) if (!allowed.has(jsonType(value)) && !allowed.has('any')) candidates.push({ value, what: `type ${jsonType(value)}` });
        if (allowed.has('string')) {
          for (const text of BAD_TEXT) candidates.push({ value: text, what: 'NUL/surrogate text' });
          if (s.maxLength !== undefined) candidates.push({ value: 'x'.repeat(s.maxLength + 1), what: 'over maxLength' });
          if ((s.minLength ?? 0) >= 1) candidates.push({ value: '', what: 'empty string' });
          if (s.enum) candidates.push({ value: 'NOT_ONE_OF_THEM', what: 'not in enum' });
          if (s.pattern || s.format === 'date' || s.format === 'date-time') candidates.push({ value: '2034-02-30x', what: 'bad format' });
        }
        if (allowed.has('number') && !allowed.has('string')) {
          if (s.maximum !== undefined) candidates.push({ value: s.maximum + 1, what: 'over maximum' });
          if (s.minimum !== undefined) candidates.push({ value: s.minimum - 1, what: 'under minimum' });
          if (s.type === 'integer') candidates.push({ value: 1.5, what: 'not an integer' });
          if (!allowed.has('null')) candidates.push({ value: 1e308 * 10, what: 'Infinity (null in JSON)' });
        }
        if (allowed.has('array') && s.maxItems !== undefined)
          candidates.push({ value: Array.from({ length: s.maxItems + 1 }, () => sample(s.items ?? {}, 'item')), what: 'over maxItems' });
        if (allowed.has('array') && (s.minItems ?? 0) >= 1) candidates.push({ value: [], what: 'under minItems' });
        if (candidates.length === 0) return { value: { __proto__: { polluted: true } }, what: 'unserializable fallback' };
        return pick(candidates);
      };

      /** The body with exactly one defect. */
      const breakBody = (schema: Schema, base: Record<string, unknown>, depth = 0): { body: unknown; defect: string } => {
        const s = resolve(schema);
        const props = Object.keys(s.properties ?? {});
        const present = Object.keys(base);
        const roll = rand();
        const required = (s.required ?? []).filter((r) => r in base);
        if (roll < 0.12 && required.length > 0) {
          const key = pick(required);
          const { [key]: _dropped, ...rest } = base;
          return { body: rest, defect: `missing ${key}` };
        }
        if (roll < 0.3 && s.additionalProperties === false) {
          const key = pick([...PROTOTYPE_KEYS, '$where', '$set', 'extra_field']);
          // JSON text, not an object literal: `__proto__` must arrive as an own key.
          return { body: { ...base, [key]: pick<unknown>([1, 'x', {}, null, ...OPERATOR_OBJECTS]) }, defect: `unknown key ${key}` };
        }
        if (props.length === 0) return { body: { ...base, extra_field: 1 }, defect: 'unknown key extra_field' };
        const key = pick(present.length > 0 && rand() < 0.7 ? present : props);
        const prop = resolve(s.properties![key]!);
        const inner = base[key];
        if (
          depth < 3 &&
          inner &&
          typeof inner === 'object' &&
          !Array.isArray(inner) &&
          typesOf(prop, resolve).has('object') &&
          prop.properties &&
          rand() < 0.5
        ) {
          const nested = breakBody(prop, inner as Record<string, unknown>, depth + 1);
          return { body: { ...base, [key]: nested.body }, defect: `${key}.${nested.defect}` };
        }
        const bad = violation(prop);
        return { body: { ...base, [key]: bad.value }, defect: `${key}: ${bad.what}` };
      };

      /** JSON with `__proto__` kept as an own key (JSON.stringify of a spread would drop it). */
      const toJson = (body: unknown): string =>
        JSON.stringify(body, (_k, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v)) : v));

      const probe = (op: Operation): Probe => {
        const writes = op.method !== 'GET';
        const headers: Record<string, string> = { authorization: `Bearer ${op.path.startsWith('/admin/') ? t.adminToken : t.apiKey}` };
        const defects: string[] = [];
        // Path: real ids, or (always for writes without a body to break) a hostile one.
        let path = op.path;
        const pathParams = op.parameters.filter((p) => p.in === 'path');
        const hostilePath = pathParams.length > 0 && (rand() < 0.3 || (writes && !op.body && rand() < 0.5));
        const hostileName = hostilePath ? pick(pathParams).name : null;
        for (const p of pathParams) {
          const value = p.name === hostileName ? pick(HOSTILE_IDS) : validId(op.path, p.name);
          if (p.name === hostileName) defects.push(`path ${p.name}=${value.slice(0, 40)}`);
          path = path.replace(`{${p.name}}`, p.name === hostileName && value.startsWith('%') ? value : encodeURIComponent(value));
        }
        // Query: sometimes valid values, one hostile value or an unknown parameter.
        const query: string[] = [];
        const queryParams = op.parameters.filter((p) => p.in === 'query');
        for (const p of queryParams) if (rand() < 0.3) query.push(`${p.name}=${encodeURIComponent(String(sample(p.schema ?? { type: 'string' }, p.name)))}`);
        const mustBreakQuery = writes && !op.body && !hostilePath;
        if (mustBreakQuery || rand() < 0.25) {
          if (queryParams.length > 0 && rand() < 0.6 && !mustBreakQuery) {
            const p = pick(queryParams);
            const value = pick(HOSTILE_QUERY_VALUES);
            query.push(`${p.name}=${value.startsWith('%') ? value : encodeURIComponent(value)}`, ...(rand() < 0.2 ? [`${p.name}=1`] : []));
            defects.push(`query ${p.name}`);
          } else {
            const name = pick(UNKNOWN_QUERY);
            query.push(`${encodeURIComponent(name)}=1`);
            defects.push(`unknown query ${name}`);
          }
        }
        // The admin API is on the gateway's private listener.
        const base = op.path.startsWith('/admin/') ? t.adminBaseUrl : t.baseUrl;
        const url = `${base}${path}${query.length > 0 ? `?${query.join('&')}` : ''}`;
        if (op.parameters.some((p) => p.in === 'header' && p.name === 'Idempotency-Key') && rand() < 0.2) {
          headers['idempotency-key'] = pick(['x'.repeat(300), 'key with spaces', 'cl\u00e9', `fuzz-${Math.floor(rand() * 1e9)}`]);
        }
        let body: string | undefined;
        if (op.body) {
          headers['content-type'] =
            rand() < 0.04 ? pick(['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1']) : 'application/json';
          if (headers['content-type'] !== 'application/json') defects.push(`content-type ${headers['content-type']}`);
          const roll = rand();
          if (roll < 0.12) {
            body = pick(JUNK_BODIES);
            defects.push('junk body');
          } else {
            const base = sample(op.body, 'body') as Record<string, unknown>;
            const broken = breakBody(op.body, base);
            body = toJson(broken.body);
            defects.push(`body ${broken.defect}`);
          }
        }
        return { op, url, base, headers, body, defect: defects.join('; ') || 'none (a valid read)' };
      };

      const probes = Array.from({ length: REQUESTS }, () => probe(pick(operations)));
      const before = await snapshot();

      const statuses = new Map<number, number>();
      const covered = new Set<string>();
      const problems: string[] = [];
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < probes.length) {
          const p = probes[next++]!;
          covered.add(p.op.operationId);
          const what = `${p.op.method} ${p.url.slice(p.base.length, p.base.length + 200)} [${p.defect}] ${p.body?.slice(0, 200) ?? ''}`;
          let res: Response;
          try {
            res = await fetch(p.url, { method: p.op.method, headers: p.headers, body: p.body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
          } catch (err) {
            problems.push(`${what} -> no answer (${(err as Error).message})`);
            continue;
          }
          const text = await res.text();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status >= 500) {
            problems.push(`${what} -> ${res.status} ${text.slice(0, 300)}`);
            continue;
          }
          if (p.op.method !== 'GET' && res.status < 400) {
            problems.push(`${what} -> ${res.status}: a broken write was accepted`);
            continue;
          }
          if (res.status >= 400) {
            let error: Record<string, unknown> | undefined;
            try {
              error = (JSON.parse(text) as { error?: Record<string, unknown> }).error;
            } catch {
              error = undefined;
            }
            const complete = error && ['code', 'message', 'fix', 'docs_url', 'request_id'].every((k) => typeof error[k] === 'string' && error[k] !== '');
            if (!complete || error!.request_id !== res.headers.get('x-request-id') || /at \S+ \(|node_modules|Error:/.test(text))
              problems.push(`${what} -> ${res.status} without a proper envelope: ${text.slice(0, 300)}`);
          }
        }
      };
      await Promise.all(Array.from({ length: WORKERS }, worker));
      // Whatever the services still apply from the run has landed before the comparison: a state
      // that never comes back to `before` fails (the last snapshot is compared below).
      let after = await snapshot();
      await eventually(async () => (after = await snapshot()) === before, 3000, 'the state as before the run').catch(() => undefined);

      expect(problems.slice(0, 20)).toEqual([]);
      expect(after).toEqual(before);
      // The stream covered the document and got past authentication into validation and beyond.
      expect(covered.size).toBe(operations.length);
      expect(statuses.get(400) ?? 0).toBeGreaterThan(REQUESTS / 4);
      expect([...statuses.keys()].every((s) => s < 500)).toBe(true);
    },
    90_000 + REQUESTS * 40,
  );
});
