// Request ids, the error envelope, bad input, unknown routes and methods, ops endpoints.
import { z } from 'zod';
import { AppError, ERROR_CATALOG } from '@vrp/platform/errors';
import { currentContext } from '@vrp/platform/context';
import { defineRoute } from '../src/app';
import { ok } from '../src/http/route';
import { adminHeaders, bearer, provision, request, startTestGateway, type ErrorBody, useGateway } from './harness';

const REQUEST_ID_FORMAT = /^req_[0-9a-f]{32}$/;

// Test-only routes: they exercise the pipeline without depending on a product endpoint.
const echoBody = z.strictObject({ name: z.string().min(1), count: z.number().int().min(0).optional(), tags: z.array(z.string()).optional() });
const probeRoutes = [
  defineRoute({
    method: 'post',
    path: '/v1/test/echo',
    operationId: 'testEcho',
    summary: 'Echo (test only)',
    tags: ['Test'],
    auth: 'api_key',
    body: echoBody,
    responses: { 200: z.object({ body: echoBody, requestId: z.string().nullable(), workspaceId: z.string().nullable() }) },
    async handler({ body }) {
      // Read after a hop through the event loop: the context must survive body parsing and awaits.
      await new Promise((resolve) => setTimeout(resolve, 5));
      const ctx = currentContext();
      return ok({ body, requestId: ctx?.requestId ?? null, workspaceId: ctx?.workspaceId ?? null });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/test/boom',
    operationId: 'testBoom',
    summary: 'Fails with an unexpected error (test only)',
    tags: ['Test'],
    auth: 'none',
    responses: { 200: z.object({}) },
    async handler() {
      throw new Error('database password is hunter2');
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/test/pms',
    operationId: 'testPms',
    summary: 'Fails with pms_write_unsupported (test only)',
    tags: ['Test'],
    auth: 'none',
    responses: { 200: z.object({}) },
    async handler() {
      throw new AppError('pms_write_unsupported', 'PMS-A cannot cancel a reservation.', { provider: 'PMS-A', listingIds: ['lst_should_not_show'] });
    },
  }),
];

describe('gateway HTTP basics', () => {
  const sut = useGateway({ extraRoutes: probeRoutes });
  let key: string;

  beforeAll(async () => {
    ({ key } = await provision(sut.gw.adminUrl));
  });

  const json = (body: string, extra: Record<string, string> = {}) => ({
    method: 'POST',
    headers: { ...bearer(key), 'Content-Type': 'application/json', ...extra },
    body,
  });

  describe('request id', () => {
    it('generates one when the caller sends none, and the envelope carries the same id', async () => {
      const res = await request<ErrorBody>(`${sut.gw.url}/v1/listings`);
      const id = res.headers.get('x-request-id');
      expect(id).toMatch(REQUEST_ID_FORMAT);
      expect(res.body.error.request_id).toBe(id);
    });

    it("keeps a caller's well-formed id and passes it to the upstream service", async () => {
      const res = await request(`${sut.gw.url}/v1/listings`, { headers: { ...bearer(key), 'X-Request-Id': 'client-trace-0001' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-request-id')).toBe('client-trace-0001');
      expect(sut.listingService.calls.at(-1)).toMatchObject({ method: 'listListings', requestId: 'client-trace-0001' });
    });

    it.each([
      ['too short', 'abc'],
      ['bad characters', 'id with spaces <script>'],
      ['too long', 'x'.repeat(200)],
    ])('replaces a malformed id (%s)', async (_what, bad) => {
      const res = await request<ErrorBody>(`${sut.gw.url}/v1/nope`, { headers: { 'X-Request-Id': bad } });
      const id = res.headers.get('x-request-id');
      expect(id).toMatch(REQUEST_ID_FORMAT);
      expect(res.body.error.request_id).toBe(id);
    });

    it('keeps the request context (id and workspace) through body parsing and awaits', async () => {
      const res = await request<{ requestId: string; workspaceId: string }>(
        `${sut.gw.url}/v1/test/echo`,
        json('{"name":"x"}', { 'X-Request-Id': 'ctx-check-0001' }),
      );
      expect(res.status).toBe(200);
      expect(res.body.requestId).toBe('ctx-check-0001');
      expect(res.body.workspaceId).toMatch(/^ws_/);
    });
  });

  describe('error envelope', () => {
    it('has exactly code, message, fix, absolute docs_url and request_id for a plain error', async () => {
      const res = await request<ErrorBody>(`${sut.gw.url}/v1/listings`);
      expect(Object.keys(res.body.error).sort()).toEqual(['code', 'docs_url', 'fix', 'message', 'request_id']);
      expect(res.body.error).toMatchObject({
        code: 'authentication_required',
        message: ERROR_CATALOG.authentication_required.message,
        fix: ERROR_CATALOG.authentication_required.fix,
        docs_url: `http://localhost:${sut.gw.running.port}/docs/errors/authentication_required`,
      });
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    });

    it('writes JSON with the charset and the exact byte length, and HEAD with the same headers and no body', async () => {
      const get = await fetch(`${sut.gw.url}/v1/listings`);
      const body = await get.text();
      expect(get.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(get.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
      expect(JSON.parse(body)).toMatchObject({ error: { code: 'authentication_required' } });
      const head = await fetch(`${sut.gw.url}/v1/listings`, { method: 'HEAD' });
      expect(head.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
      expect(await head.text()).toBe('');
    });

    it('renders docs_url from PUBLIC_BASE_URL when configured', async () => {
      const other = await startTestGateway({ listingAddress: `127.0.0.1:${sut.listingService.port}`, env: { PUBLIC_BASE_URL: 'https://api.example.com/' } });
      try {
        const res = await request<ErrorBody>(`${other.url}/v1/listings`);
        expect(res.body.error.docs_url).toBe('https://api.example.com/docs/errors/authentication_required');
      } finally {
        await other.stop();
      }
    });

    it('hides the internals of an unexpected error behind 500 internal_error', async () => {
      const res = await request<ErrorBody>(`${sut.gw.url}/v1/test/boom`);
      expect(res.status).toBe(500);
      expect(res.body.error.code).toBe('internal_error');
      expect(res.text).not.toContain('hunter2');
      expect(res.text).not.toMatch(/at .*\.ts/);
    });

    it('adds provider only to pms_write_unsupported, and never listing fields to it', async () => {
      const res = await request<ErrorBody>(`${sut.gw.url}/v1/test/pms`);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'pms_write_unsupported', provider: 'PMS-A', message: 'PMS-A cannot cancel a reservation.' });
      expect(res.body.error).not.toHaveProperty('listing_ids');
      expect(res.body.error).not.toHaveProperty('listings');
    });

    it('sets baseline security headers on every response', async () => {
      const res = await request(`${sut.gw.url}/healthz`);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-powered-by')).toBeNull();
      expect(res.headers.get('x-request-id')).toMatch(REQUEST_ID_FORMAT);
    });
  });

  describe('bad input', () => {
    it('answers 400 invalid_json for malformed JSON', async () => {
      const res = await request<ErrorBody>(`${sut.gw.url}/v1/test/echo`, json('{"name": '));
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_json');
    });

    it('answers 400 invalid_json for a JSON scalar where an object is expected (strict parsing)', async () => {
      const res = await request<ErrorBody>(`${sut.gw.url}/v1/test/echo`, json('"just a string"'));
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_json');
    });

    it('answers 415 unsupported_media_type for a non-JSON body', async () => {
      const res = await request<ErrorBody>(`${sut.gw.url}/v1/test/echo`, {
        method: 'POST',
        headers: { ...bearer(key), 'Content-Type': 'text/plain' },
        body: 'name=x',
      });
      expect(res.status).toBe(415);
      expect(res.body.error.code).toBe('unsupported_media_type');
      const form = await request<ErrorBody>(`${sut.gw.url}/v1/test/echo`, { method: 'POST', headers: bearer(key), body: new URLSearchParams({ name: 'x' }) });
      expect(form.status).toBe(415);
    });

    it('answers 413 payload_too_large for a body over 1 MiB', async () => {
      const big = JSON.stringify({ name: 'x', tags: ['y'.repeat(1024 * 1024)] });
      const res = await request<ErrorBody>(`${sut.gw.url}/v1/test/echo`, json(big));
      expect(res.status).toBe(413);
      expect(res.body.error.code).toBe('payload_too_large');
    });

    it('accepts a body just under 1 MiB', async () => {
      const body = JSON.stringify({ name: 'x', tags: ['y'.repeat(1024 * 1024 - 100)] });
      const res = await request(`${sut.gw.url}/v1/test/echo`, json(body));
      expect(res.status).toBe(200);
    });

    it('answers 400 validation_failed naming every bad field of a body', async () => {
      const res = await request<ErrorBody>(`${sut.gw.url}/v1/test/echo`, json('{"count": -1, "tags": [1], "extra": true}'));
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.fields).toEqual({
        name: 'is required',
        count: 'must be at least 0',
        'tags[0]': 'must be a string',
        extra: 'is not a known field',
      });
    });

    it('names a missing body as its missing required fields', async () => {
      const res = await request<ErrorBody>(`${sut.gw.url}/v1/test/echo`, { method: 'POST', headers: bearer(key) });
      expect(res.status).toBe(400);
      expect(res.body.error.fields).toEqual({ name: 'is required' });
    });

    it('answers 400 validation_failed for invalid and unknown query parameters, never a 500', async () => {
      const res = await request<ErrorBody>(`${sut.gw.url}/v1/listings?limit=0&offset=-3&status=deleted&sort=name`, { headers: bearer(key) });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.fields).toEqual({
        limit: 'must be at least 1',
        offset: 'must be at least 0',
        status: 'must be one of: active, inactive, all',
        sort: 'is not a known parameter',
      });
      expect(res.body.error.message).toContain('limit');
    });

    it.each([
      ['limit=201', { limit: 'must be at most 200' }],
      ['limit=abc', { limit: 'must be an integer' }],
      ['limit=2.5', { limit: 'must be an integer' }],
      ['limit=1&limit=2', { limit: 'must be an integer' }],
      // Decimal digits only: these are numbers to JavaScript, not integers as a client writes them.
      ['limit=0x10', { limit: 'must be an integer' }],
      ['limit=1e1', { limit: 'must be an integer' }],
      ['limit=+5', { limit: 'must be an integer' }],
      ['limit=%2010', { limit: 'must be an integer' }],
      ['offset=', { offset: 'must be an integer' }],
    ])('rejects %s', async (query, fields) => {
      const res = await request<ErrorBody>(`${sut.gw.url}/v1/listings?${query}`, { headers: bearer(key) });
      expect(res.status).toBe(400);
      expect(res.body.error.fields).toEqual(fields);
    });
  });

  describe('unknown routes and methods', () => {
    it('answers 404 route_not_found for an unknown path', async () => {
      const res = await request<ErrorBody>(`${sut.gw.url}/v2/listings`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('route_not_found');
    });

    it('answers 405 method_not_allowed with Allow for a known path', async () => {
      const res = await request<ErrorBody>(`${sut.gw.url}/v1/listings`, { method: 'DELETE', headers: bearer(key) });
      expect(res.status).toBe(405);
      expect(res.body.error.code).toBe('method_not_allowed');
      expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    });

    it('matches path parameters when computing Allow', async () => {
      const res = await request<ErrorBody>(`${sut.gw.adminUrl}/admin/v1/workspaces/ws_123`, { method: 'PUT' });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD, PATCH, OPTIONS');
    });

    it('answers OPTIONS with the allowed methods', async () => {
      const res = await request(`${sut.gw.url}/v1/listings`, { method: 'OPTIONS' });
      expect(res.status).toBe(204);
      expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    });
  });

  describe('ops endpoints', () => {
    it('serves /healthz, /readyz and /metrics', async () => {
      expect((await request(`${sut.gw.url}/healthz`)).body).toEqual({ status: 'ok' });
      const ready = await request<{ status: string; checks: Record<string, boolean> }>(`${sut.gw.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(ready.body.checks).toEqual({ store: true });
    });

    it('serves /metrics and the health endpoints on the private listener', async () => {
      const metrics = await request(`${sut.gw.adminUrl}/metrics`);
      expect(metrics.status).toBe(200);
      expect(metrics.text).toContain('# TYPE');
      expect((await request(`${sut.gw.adminUrl}/healthz`)).body).toEqual({ status: 'ok' });
      expect((await request(`${sut.gw.adminUrl}/readyz`)).status).toBe(200);
    });

    it.each([
      ['GET', '/metrics'],
      ['GET', '/admin/v1/workspaces'],
      ['POST', '/admin/v1/workspaces'],
      ['GET', '/admin/v1/dead-letters'],
      ['DELETE', '/admin/v1/api-keys/key_123'],
    ])('answers %s %s on the public listener 404 route_not_found, with the admin token too', async (method, path) => {
      const res = await request<ErrorBody>(`${sut.gw.url}${path}`, { method, headers: adminHeaders(), ...(method === 'POST' ? { body: '{}' } : {}) });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('route_not_found');
      expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
    });

    it('serves neither the API nor the reference on the private listener', async () => {
      for (const path of ['/v1/listings', '/docs']) {
        const res = await request<ErrorBody>(`${sut.gw.adminUrl}${path}`, { headers: bearer(key) });
        expect({ path, status: res.status, code: res.body.error.code }).toEqual({ path, status: 404, code: 'route_not_found' });
      }
    });

    it('labels request metrics with the route pattern, not the raw path', async () => {
      await request(`${sut.gw.adminUrl}/admin/v1/workspaces/ws_someid`);
      const metrics = await request(`${sut.gw.adminUrl}/metrics`);
      expect(metrics.text).toContain('vrp_http_request_seconds');
      expect(metrics.text).toMatch(/route="\/admin\/v1\/workspaces\/:id"/);
      expect(metrics.text).not.toContain('ws_someid');
    });
  });
});
