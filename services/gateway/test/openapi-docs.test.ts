// The OpenAPI document and the HTML reference, both generated from the route table.
import { z } from 'zod';
import { EVENT_TYPES } from '@vrp/api-model';
import { ERROR_CATALOG, type ErrorCode } from '@vrp/platform/errors';
import { openApiPath, type OpenApiDocument } from '../src/http/openapi';
import { createWorkspaceBody } from '../src/http/routes/admin';
import { listListingsQuery } from '../src/http/routes/listings';
import { request, type ErrorBody, useGateway } from './harness';

/** Every `$ref` in the document, to check they all resolve. */
function refsOf(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => refsOf(v, out));
  else if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') out.push(inner);
      else refsOf(inner, out);
    }
  }
  return out;
}

function resolvePointer(doc: unknown, ref: string): unknown {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>((node, part) => (typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[part] : undefined), doc);
}

describe('gateway OpenAPI document and docs pages', () => {
  const sut = useGateway();
  let doc: OpenApiDocument;

  beforeAll(async () => {
    const res = await request<OpenApiDocument>(`${sut.gw.url}/v1/openapi.json`);
    expect(res.status).toBe(200);
    doc = res.body;
  });

  it('is an OpenAPI 3.1 document with the JSON Schema 2020-12 dialect', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.jsonSchemaDialect).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(doc.info.title).toEqual(expect.any(String));
    expect(doc.info.version).toEqual(expect.any(String));
    expect(doc.servers).toEqual([{ url: `http://localhost:${sut.gw.running.port}`, description: expect.any(String) }]);
  });

  it('documents every route of the table exactly once, with unique operation ids', () => {
    const routes = sut.gw.running.gateway.routes;
    for (const route of routes) {
      const op = doc.paths[openApiPath(route.path)]?.[route.method];
      expect(op).toBeDefined();
      expect(op?.operationId).toBe(route.operationId);
    }
    const documented = Object.values(doc.paths).flatMap((methods) => Object.values(methods));
    expect(documented).toHaveLength(routes.length);
    expect(new Set(documented.map((op) => op.operationId)).size).toBe(routes.length);
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/v1/listings',
        '/v1/properties',
        '/v1/listings/{id}',
        '/v1/properties/{id}',
        '/admin/v1/workspaces',
        '/admin/v1/workspaces/{id}',
        '/admin/v1/workspaces/{id}/api-keys',
        '/admin/v1/api-keys/{id}',
        '/v1/openapi.json',
      ]),
    );
  });

  it('documents every webhook event type as an OpenAPI webhook: signed headers and the payload of its resource', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual(Object.keys(EVENT_TYPES).sort());
    const components: Record<string, string> = {
      listing: 'ListingEvent',
      reservation: 'ReservationEvent',
      guest: 'GuestEvent',
      message: 'MessageEvent',
      review: 'ReviewEvent',
      request: 'RequestEvent',
    };
    for (const [type, { post }] of Object.entries(doc.webhooks)) {
      expect(post.parameters.map((p) => p.name)).toEqual(expect.arrayContaining(['Vrp-Signature', 'Vrp-Event-Id']));
      const ref = post.requestBody.content['application/json'].schema.$ref as string;
      expect([type, ref]).toEqual([type, `#/components/schemas/${components[type.split('.')[0]!]}`]);
      const event = resolvePointer(doc, ref) as { properties: { type: { enum: string[] }; data: unknown } };
      expect(event.properties.type.enum).toContain(type);
    }
    const reservationEvent = resolvePointer(doc, '#/components/schemas/ReservationEvent') as {
      properties: { data: { properties: { object: Record<string, unknown> } } };
    };
    expect(reservationEvent.properties.data.properties.object).toMatchObject({ $ref: '#/components/schemas/Reservation' });
  });

  it('resolves every $ref inside the document', () => {
    const refs = refsOf(doc);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      expect(ref.startsWith('#/')).toBe(true);
      expect(resolvePointer(doc, ref)).toBeDefined();
    }
  });

  it('declares the security schemes and applies them per route', () => {
    expect(doc.components.securitySchemes).toMatchObject({
      apiKey: { type: 'http', scheme: 'bearer' },
      workspaceId: { type: 'apiKey', in: 'header', name: 'X-Workspace-Id' },
      adminToken: { type: 'http', scheme: 'bearer' },
    });
    expect(doc.paths['/v1/listings']?.get?.security).toEqual([{ apiKey: [], workspaceId: [] }, { apiKey: [] }]);
    expect(doc.paths['/admin/v1/workspaces']?.post?.security).toEqual([{ adminToken: [] }]);
    expect(doc.paths['/v1/openapi.json']?.get?.security).toEqual([]);
  });

  it('includes the error envelope schema and references it from error responses', () => {
    const envelope = doc.components.schemas.ErrorEnvelope as { properties: { error: { properties: Record<string, unknown>; required: string[] } } };
    expect(Object.keys(envelope.properties.error.properties)).toEqual([
      'code',
      'message',
      'fix',
      'docs_url',
      'request_id',
      'fields',
      'listing_ids',
      'listings',
      'provider',
      'conflicts',
    ]);
    expect(envelope.properties.error.required).toEqual(['code', 'message', 'fix', 'docs_url', 'request_id']);
    const getOne = doc.paths['/v1/listings/{id}']?.get;
    expect(getOne?.responses['403']).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } });
    expect(getOne?.responses['403']?.['x-error-codes']).toEqual(['workspace_mismatch', 'listing_inactive']);
    expect(getOne?.responses['401']?.['x-error-codes']).toEqual(['authentication_required', 'invalid_api_key']);
    expect(doc.paths['/v1/listings']?.get?.responses['503']?.headers).toHaveProperty('Retry-After');
  });

  it('derives parameters and bodies from the same zod schemas the routes validate with', () => {
    const params = doc.paths['/v1/listings']?.get?.parameters ?? [];
    const fromZod = z.toJSONSchema(listListingsQuery, { io: 'input' }) as { properties: Record<string, Record<string, unknown>> };
    expect(params.map((p) => [p.name, p.in, p.required])).toEqual([
      ['status', 'query', false],
      ['limit', 'query', false],
      ['offset', 'query', false],
    ]);
    for (const param of params) {
      const { description, ...schema } = fromZod.properties[param.name]!;
      // The document leaves out zod's implicit safe-integer bounds; everything else is zod's own output.
      if (schema.maximum === Number.MAX_SAFE_INTEGER) delete schema.maximum;
      expect(param.schema).toEqual(schema);
      expect(param.description).toBe(description);
    }
    expect(params.find((p) => p.name === 'limit')?.schema).toEqual({ type: 'integer', minimum: 1, maximum: 200, default: 50 });

    const body = doc.paths['/admin/v1/workspaces']?.post?.requestBody?.content['application/json'].schema;
    const { $schema: _dialect, ...bodyFromZod } = z.toJSONSchema(createWorkspaceBody, { io: 'input' });
    expect(body).toMatchObject(bodyFromZod);
    expect(body).toMatchObject({ additionalProperties: false, required: ['name', 'activeListingLimit'] });
    expect(doc.paths['/admin/v1/workspaces']?.post?.parameters.map((p) => [p.name, p.in])).toEqual([['Idempotency-Key', 'header']]);
    expect(doc.paths['/v1/listings/{id}']?.get?.parameters[0]).toMatchObject({ name: 'id', in: 'path', required: true });
  });

  it('names response schemas as components', () => {
    const list = doc.paths['/v1/listings']?.get?.responses['200']?.content?.['application/json'].schema as {
      properties: { data: { items: unknown }; pagination: unknown };
    };
    expect(list.properties.pagination).toEqual({ $ref: '#/components/schemas/Pagination' });
    expect(list.properties.data.items).toEqual({ $ref: '#/components/schemas/ListingRow' });
    expect(doc.components.schemas.ListingRow).toMatchObject({
      oneOf: [{ $ref: '#/components/schemas/Listing' }, { $ref: '#/components/schemas/InactiveListingRow' }],
      discriminator: { propertyName: 'status' },
    });
    expect(doc.components.schemas.InactiveListingRow).toMatchObject({ required: ['id', 'name', 'status', 'channels'] });
    expect(doc.components.schemas.ListingWithCapabilities).toBeDefined();
  });

  it('serves the reference at /docs: Redoc from this gateway, no CDN, rendering the served document', async () => {
    const res = await request(`${sut.gw.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(res.text).toContain('<redoc spec-url="/v1/openapi.json"');
    // Every script and link is local: the page works offline.
    expect(res.text).not.toMatch(/(src|href)="(https?:)?\/\//i);
    const scripts = [...res.text.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts).toEqual(['/docs/assets/redoc.standalone.js']);
    const bundle = await request(`${sut.gw.url}/docs/assets/redoc.standalone.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);
    expect(bundle.text.length).toBeGreaterThan(500_000);
    expect(bundle.text).toContain('Redoc');
  });

  it('introduces the document: authentication, modes, rate limits, idempotency once, and every error code with its page', () => {
    for (const section of ['# Authentication', '# Test mode and live mode', '# Rate limits', '# Idempotency', '# Absent values', '# Errors']) {
      expect(doc.info.description).toContain(section);
    }
    for (const code of Object.keys(ERROR_CATALOG)) expect(doc.info.description).toContain(`(/docs/errors/${code})`);
    const keyParams = Object.values(doc.paths)
      .flatMap((methods) => Object.values(methods))
      .flatMap((op) => op.parameters.filter((p) => p.name === 'Idempotency-Key'));
    expect(keyParams.length).toBeGreaterThan(20);
    for (const p of keyParams) expect((p.description ?? '').length).toBeLessThan(160);
    expect(Object.keys(doc.webhooks).sort()).toEqual(Object.keys(EVENT_TYPES).sort());
  });

  it('serves one page per error code', async () => {
    for (const code of Object.keys(ERROR_CATALOG) as ErrorCode[]) {
      const res = await request(`${sut.gw.url}/docs/errors/${code}`);
      expect(res.status).toBe(200);
      expect(res.text).toContain(`HTTP ${ERROR_CATALOG[code].http}`);
      expect(res.text).toContain(ERROR_CATALOG[code].title);
    }
    const inactive = await request(`${sut.gw.url}/docs/errors/listing_inactive`);
    expect(inactive.text).toContain('<code>listing_ids</code>');
    expect(inactive.text).toContain('<code>listings</code>');
    expect(inactive.text).toContain('HTTP 403');
    const pms = await request(`${sut.gw.url}/docs/errors/pms_write_unsupported`);
    expect(pms.text).toContain('<code>provider</code>');
    expect(pms.text).toContain('HTTP 422');
  });

  it('answers 404 with an envelope for an unknown error code, and escapes it', async () => {
    const res = await request<ErrorBody>(`${sut.gw.url}/docs/errors/${encodeURIComponent('<b>nope</b>')}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('answers a browser an HTML 404 page for an unknown error code, escaped, listing the codes that exist', async () => {
    const res = await request(`${sut.gw.url}/docs/errors/${encodeURIComponent('<b>nope</b>')}`, {
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.text).toContain('&lt;b&gt;nope&lt;/b&gt;');
    expect(res.text).not.toContain('<b>nope</b>');
    for (const code of Object.keys(ERROR_CATALOG)) expect(res.text).toContain(`href="/docs/errors/${code}"`);
  });
});
