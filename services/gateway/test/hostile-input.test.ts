// Hostile input at the gateway: keys named like Object.prototype members are unknown fields,
// text with NUL or unpaired surrogates is refused naming the field, and the errors Node's HTTP
// parser produces (400, 431) carry the envelope too.
import { gzipSync } from 'node:zlib';
import { z } from 'zod';
import { defineRoute } from '../src/app';
import { ok } from '../src/http/route';
import { parseRawResponse, rawExchange } from '@vrp/testkit';
import { bearer, request, startGatewayFixture, type ErrorBody, type GatewayFixture, type TestGateway } from './harness';

const echoBody = z.strictObject({ name: z.string().min(1), tags: z.record(z.string(), z.string()).optional() });
let handled = 0;
const probeRoutes = [
  defineRoute({
    method: 'post',
    path: '/v1/test/hostile-echo',
    operationId: 'testHostileEcho',
    summary: 'Echo (test only)',
    tags: ['Test'],
    auth: 'api_key',
    body: echoBody,
    responses: { 200: z.object({ body: echoBody }) },
    async handler({ body }) {
      handled += 1;
      return ok({ body });
    },
  }),
];

const parseRaw = (raw: string) => parseRawResponse<ErrorBody>(raw);

describe('hostile input at the gateway', () => {
  let fixture: GatewayFixture;
  let gw: TestGateway;
  let key: string;

  beforeAll(async () => {
    fixture = await startGatewayFixture({ extraRoutes: probeRoutes });
    ({ gw, key } = fixture);
  });
  afterAll(() => fixture.stop());

  const post = (body: string) =>
    request<ErrorBody>(`${gw.url}/v1/test/hostile-echo`, { method: 'POST', headers: { ...bearer(key), 'Content-Type': 'application/json' }, body });

  describe('keys named like Object.prototype members', () => {
    it.each(['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf', '__defineGetter__'])(
      '?%s=1 is an unknown parameter (400), never a 500',
      async (name) => {
        const res = await request<ErrorBody>(`${gw.url}/v1/listings?${name}=1`, { headers: bearer(key) });
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('validation_failed');
        expect(res.body.error.fields).toEqual({ [name]: 'is not a known parameter' });
      },
    );

    it.each(['toString', 'constructor', '__proto__', 'isPrototypeOf'])('a body field %s is an unknown field (400) and the handler never runs', async (name) => {
      const before = handled;
      const res = await post(`{"name":"x","${name}":1}`);
      expect(res.status).toBe(400);
      expect(res.body.error.fields).toEqual({ [name]: 'is not a known field' });
      expect(handled).toBe(before);
    });

    it('refuses __proto__ inside a free-form record, which a schema would otherwise drop silently', async () => {
      const res = await post('{"name":"x","tags":{"__proto__":{"admin":"yes"},"ok":"1"}}');
      expect(res.status).toBe(400);
      expect(res.body.error.fields).toEqual({ 'tags.__proto__': 'is not a known field' });
    });

    it('still accepts the same names as values', async () => {
      const res = await request<{ body: unknown }>(`${gw.url}/v1/test/hostile-echo`, {
        method: 'POST',
        headers: { ...bearer(key), 'Content-Type': 'application/json' },
        body: '{"name":"constructor","tags":{"k":"__proto__"}}',
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ body: { name: 'constructor', tags: { k: '__proto__' } } });
    });
  });

  describe('text that cannot be stored', () => {
    it.each([
      ['a NUL character', '"Sea\\u0000View"', 'must not contain NUL characters'],
      ['a lone high surrogate', '"Sea\\ud800View"', 'must not contain unpaired UTF-16 surrogates'],
      ['a lone low surrogate', '"\\udc00"', 'must not contain unpaired UTF-16 surrogates'],
      ['a reversed surrogate pair', '"\\udc00\\ud800"', 'must not contain unpaired UTF-16 surrogates'],
    ])('refuses %s in a body field, naming it', async (_what, json, problem) => {
      const before = handled;
      const res = await post(`{"name":${json}}`);
      expect(res.status).toBe(400);
      expect(res.body.error.fields).toEqual({ name: problem });
      expect(handled).toBe(before);
    });

    it('refuses them in nested values and in keys of records', async () => {
      const res = await post('{"name":"ok","tags":{"a":"x\\u0000","b\\ud800":"y"}}');
      expect(res.status).toBe(400);
      expect(res.body.error.fields).toEqual({
        'tags.a': 'must not contain NUL characters',
        'tags.b\ufffd': 'must not contain NUL characters or unpaired UTF-16 surrogates in its name',
      });
    });

    it('accepts well-formed text outside the BMP (a valid surrogate pair)', async () => {
      const res = await post('{"name":"Casa \\ud83c\\udfe0"}');
      expect(res.status).toBe(200);
    });

    it('refuses NUL in a query parameter and in a path parameter', async () => {
      const query = await request<ErrorBody>(`${gw.url}/v1/listings?status=%00`, { headers: bearer(key) });
      expect(query.status).toBe(400);
      expect(query.body.error.fields).toEqual({ status: 'must not contain NUL characters' });
      const path = await request<ErrorBody>(`${gw.url}/v1/listings/lst%00x`, { headers: bearer(key) });
      expect(path.status).toBe(400);
      expect(path.body.error.fields).toEqual({ id: 'must not contain NUL characters' });
    });

    it('refuses JSON nested deeper than 32 levels', async () => {
      const res = await post(`{"name":"x","tags":${'['.repeat(40)}${']'.repeat(40)}}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
    });
  });

  describe('errors of the HTTP parser carry the envelope', () => {
    it('answers a malformed request line with 400 malformed_request and a request id', async () => {
      const res = parseRaw(await rawExchange(gw.running.port, 'GET /v1/listings HTTP/1.1 junk\r\n\r\n'));
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toContain('application/json');
      expect(res.body.error).toMatchObject({ code: 'malformed_request', request_id: res.headers['x-request-id'] });
      expect(res.body.error.docs_url).toMatch(/\/docs\/errors\/malformed_request$/);
    });

    it('answers a bad header (invalid characters in its name) with the envelope', async () => {
      const res = parseRaw(await rawExchange(gw.running.port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n'));
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('malformed_request');
    });

    it('answers headers over 16 KiB with 431 headers_too_large', async () => {
      const res = parseRaw(await rawExchange(gw.running.port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
      expect(res.status).toBe(431);
      expect(res.body.error.code).toBe('headers_too_large');
    });

    it('answers conflicting framing (Content-Length and Transfer-Encoding) with the envelope', async () => {
      const res = parseRaw(
        await rawExchange(gw.running.port, 'POST /v1/listings/status HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'),
      );
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('malformed_request');
    });
  });

  describe('headers HTTP refuses carry the envelope and a request id', () => {
    it('answers an HTTP/1.1 request without Host with 400 malformed_request naming Host (no limit was looked at)', async () => {
      const res = parseRaw(await rawExchange(gw.running.port, `GET /v1/listings HTTP/1.1\r\nAuthorization: Bearer ${key}\r\n\r\n`));
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'malformed_request', request_id: res.headers['x-request-id'] });
      expect(res.body.error.message).toContain('Host');
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    });

    it('answers an Expect other than 100-continue with 417 expectation_failed', async () => {
      const res = parseRaw(
        await rawExchange(gw.running.port, `GET /v1/listings HTTP/1.1\r\nHost: x\r\nExpect: 999-bogus\r\nAuthorization: Bearer ${key}\r\n\r\n`),
      );
      expect(res.status).toBe(417);
      expect(res.body.error).toMatchObject({ code: 'expectation_failed', request_id: res.headers['x-request-id'] });
      expect(res.body.error.message).toContain('999-bogus');
    });

    it('accepts Expect: 100-continue', async () => {
      const body = '{"name":"x"}';
      const raw = await rawExchange(
        gw.running.port,
        `POST /v1/test/hostile-echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
      expect(raw.startsWith('HTTP/1.1 100 Continue')).toBe(true);
      expect(parseRaw(raw.slice(raw.indexOf('\r\n\r\n') + 4)).status).toBe(200);
    });

    it.each(['compress', 'zstd-x', 'gzip, br', 'bogus'])(
      'answers Content-Encoding %s with 415 unsupported_encoding naming the accepted ones',
      async (encoding) => {
        const before = handled;
        const res = await request<ErrorBody>(`${gw.url}/v1/test/hostile-echo`, {
          method: 'POST',
          headers: { ...bearer(key), 'Content-Type': 'application/json', 'Content-Encoding': encoding },
          body: '{"name":"x"}',
        });
        expect(res.status).toBe(415);
        expect(res.body.error.code).toBe('unsupported_encoding');
        expect(res.body.error.message).toContain('gzip, deflate, br, identity');
        expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
        expect(res.headers.get('ratelimit-limit')).not.toBeNull();
        expect(handled).toBe(before);
      },
    );

    it('answers a body that does not decode as its Content-Encoding says with 400 invalid_json; a real gzip body is read', async () => {
      const corrupt = await request<ErrorBody>(`${gw.url}/v1/test/hostile-echo`, {
        method: 'POST',
        headers: { ...bearer(key), 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
        body: '{"name":"not gzip"}',
      });
      expect(corrupt.status).toBe(400);
      expect(corrupt.body.error.code).toBe('invalid_json');
      expect(corrupt.body.error.message).toContain('gzip');
      const good = await request<{ body: unknown }>(`${gw.url}/v1/test/hostile-echo`, {
        method: 'POST',
        headers: { ...bearer(key), 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
        body: gzipSync('{"name":"zipped"}'),
      });
      expect(good.status).toBe(200);
      expect(good.body).toEqual({ body: { name: 'zipped' } });
    });
  });

  describe('RateLimit-* on answers no route gives', () => {
    it.each([
      ['GET', '/v1/nowhere', 404, 'route_not_found'],
      ['DELETE', '/v1/listings', 405, 'method_not_allowed'],
      ['GET', '/admin/v1/nowhere', 404, 'route_not_found'],
    ])('%s %s: %i %s with the limit that applied', async (method, path, status, code) => {
      const res = await request<ErrorBody>(`${gw.url}${path}`, { method, headers: bearer(key) });
      expect([res.status, res.body.error.code]).toEqual([status, code]);
      for (const h of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) expect(Number(res.headers.get(h))).toBeGreaterThanOrEqual(0);
      expect(res.headers.get('ratelimit-limit')).not.toBeNull();
    });

    it('GET /v1/openapi.json (no key needed) counts per address and says so', async () => {
      const first = await request(`${gw.url}/v1/openapi.json`);
      const second = await request(`${gw.url}/v1/openapi.json`);
      expect(first.status).toBe(200);
      expect(Number(first.headers.get('ratelimit-limit'))).toBeGreaterThan(0);
      expect(Number(second.headers.get('ratelimit-remaining'))).toBeLessThan(Number(first.headers.get('ratelimit-remaining')));
    });
  });

  describe('HEAD', () => {
    it('answers like GET with the error status and the envelope headers, and no body (RFC 9110)', async () => {
      for (const path of ['/v1/listings', '/v1/nowhere', '/v1/listings?toString=1']) {
        const get = await request(`${gw.url}${path}`);
        const head = await fetch(`${gw.url}${path}`, { method: 'HEAD' });
        expect(head.status).toBe(get.status);
        expect(head.headers.get('content-type')).toContain('application/json');
        expect(head.headers.get('x-request-id')).toMatch(/^req_/);
        expect(await head.text()).toBe('');
      }
    });
  });
});
