// Idempotency-Key on POST, through test-only routes mounted with the gateway's own pipeline,
// plus the store's expiry and crash-recovery rules with a controlled clock.
import { z } from 'zod';
import { AppError } from '@vrp/platform/errors';
import { createMemoryStore } from '@vrp/engines/store';
import { defineRoute } from '../src/app';
import { IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_TTL_MS, requestFingerprint } from '../src/domain/idempotency';
import { created, ok } from '../src/http/route';
import { IdempotencyStore } from '../src/store/idempotency-store';
import { idempotencyRecordSchema } from '../src/store/schemas';
import { eventually } from '@vrp/testkit';
import { bearer, provision, request, type ErrorBody, useGateway } from './harness';

const orderBody = z.strictObject({
  item: z.string().min(1),
  quantity: z.number().int().min(1),
  outcome: z.enum(['ok', 'refused', 'outage', 'slow', 'busy']).default('ok'),
});
const orderSchema = z.object({ id: z.string(), item: z.string(), quantity: z.number() });

let executions = 0;
let releaseSlow: () => void = () => undefined;

const orderRoutes = [
  defineRoute({
    method: 'post',
    path: '/v1/test/orders',
    operationId: 'testCreateOrder',
    summary: 'Create an order (test only)',
    tags: ['Test'],
    auth: 'api_key',
    body: orderBody,
    responses: { 201: z.object({ data: orderSchema }) },
    async handler({ body }) {
      executions += 1;
      if (body.outcome === 'refused') throw new AppError('pms_write_unsupported', 'PMS-B cannot do this.', { provider: 'PMS-B' });
      if (body.outcome === 'outage') throw new AppError('service_unavailable', 'down', { retryAfterSeconds: 1 });
      if (body.outcome === 'busy') throw new AppError('idempotency_in_progress', 'The first attempt still runs in the service.', { retryAfterSeconds: 2 });
      if (body.outcome === 'slow') await new Promise<void>((resolve) => (releaseSlow = resolve));
      return created({ data: { id: `ord_${executions}`, item: body.item, quantity: body.quantity } });
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/test/orders/:id',
    operationId: 'testChangeOrder',
    summary: 'Change an order (test only)',
    tags: ['Test'],
    auth: 'api_key',
    body: orderBody,
    responses: { 200: z.object({ data: orderSchema }) },
    async handler({ body, params }) {
      executions += 1;
      return ok({ data: { id: params.id ?? '', item: body.item, quantity: body.quantity } });
    },
  }),
];

describe('Idempotency-Key middleware', () => {
  const sut = useGateway({ extraRoutes: orderRoutes });
  let keyA: string;
  let keyB: string;

  beforeAll(async () => {
    keyA = (await provision(sut.gw.adminUrl, { name: 'Workspace A' })).key;
    keyB = (await provision(sut.gw.adminUrl, { name: 'Workspace B' })).key;
  });
  beforeEach(() => {
    executions = 0;
  });

  const send = <T>(method: string, path: string, apiKey: string, body: string, idempotencyKey?: string, signal?: AbortSignal) =>
    request<T>(`${sut.gw.url}${path}`, {
      method,
      headers: { ...bearer(apiKey), 'Content-Type': 'application/json', ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}) },
      body,
      ...(signal ? { signal } : {}),
    });
  const post = <T>(apiKey: string, body: string, idempotencyKey?: string, signal?: AbortSignal) =>
    send<T>('POST', '/v1/test/orders', apiKey, body, idempotencyKey, signal);
  const patch = <T>(apiKey: string, body: string, idempotencyKey?: string) => send<T>('PATCH', '/v1/test/orders/ord_x', apiKey, body, idempotencyKey);

  it('replays the first response for the same key and body, without running the handler again', async () => {
    const first = await post<{ data: { id: string } }>(keyA, '{"item":"towels","quantity":2}', 'idem-replay-1');
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // Same JSON, other key order and spacing: still the same request.
    const retry = await post<{ data: { id: string } }>(keyA, '{ "quantity": 2, "item": "towels" }', 'idem-replay-1');
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(executions).toBe(1);
  });

  it('answers 409 idempotency_conflict for the same key with another body', async () => {
    await post(keyA, '{"item":"soap","quantity":1}', 'idem-conflict-1');
    const other = await post<ErrorBody>(keyA, '{"item":"soap","quantity":3}', 'idem-conflict-1');
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('idempotency_conflict');
    expect(executions).toBe(1);
  });

  it('scopes keys per workspace', async () => {
    const a = await post<{ data: { id: string } }>(keyA, '{"item":"linen","quantity":1}', 'idem-shared-key');
    const b = await post<{ data: { id: string } }>(keyB, '{"item":"linen","quantity":1}', 'idem-shared-key');
    expect(b.status).toBe(201);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(b.body.data.id).not.toBe(a.body.data.id);
    expect(executions).toBe(2);
  });

  it('runs every request that carries no key', async () => {
    await post(keyA, '{"item":"tea","quantity":1}');
    await post(keyA, '{"item":"tea","quantity":1}');
    expect(executions).toBe(2);
  });

  it('replays a recorded 4xx error envelope under the new request id', async () => {
    const first = await post<ErrorBody>(keyA, '{"item":"x","quantity":1,"outcome":"refused"}', 'idem-refused-1');
    expect(first.status).toBe(422);
    const retry = await post<ErrorBody>(keyA, '{"item":"x","quantity":1,"outcome":"refused"}', 'idem-refused-1');
    expect(retry.status).toBe(422);
    expect(retry.body.error).toMatchObject({ code: 'pms_write_unsupported', provider: 'PMS-B' });
    expect(retry.body.error.request_id).toBe(retry.headers.get('x-request-id'));
    expect(retry.body.error.request_id).not.toBe(first.body.error.request_id);
    expect(executions).toBe(1);
  });

  it('does not record 5xx outcomes: a retry after an outage runs for real', async () => {
    const first = await post<ErrorBody>(keyA, '{"item":"y","quantity":1,"outcome":"outage"}', 'idem-outage-1');
    expect(first.status).toBe(503);
    const retry = await post<ErrorBody>(keyA, '{"item":"y","quantity":1,"outcome":"outage"}', 'idem-outage-1');
    expect(retry.status).toBe(503);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(executions).toBe(2);
  });

  it("does not record a service's own 409 idempotency_in_progress: the retry runs again", async () => {
    const first = await post<ErrorBody>(keyA, '{"item":"b","quantity":1,"outcome":"busy"}', 'idem-busy-1');
    expect([first.status, first.body.error.code, first.headers.get('retry-after')]).toEqual([409, 'idempotency_in_progress', '2']);
    const retry = await post<ErrorBody>(keyA, '{"item":"b","quantity":1,"outcome":"busy"}', 'idem-busy-1');
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(executions).toBe(2);
  });

  it('does not consume a key with a request that failed validation', async () => {
    const invalid = await post<ErrorBody>(keyA, '{"item":"z","quantity":0}', 'idem-invalid-1');
    expect(invalid.status).toBe(400);
    const valid = await post(keyA, '{"item":"z","quantity":1}', 'idem-invalid-1');
    expect(valid.status).toBe(201);
  });

  /** Waits (without a fixed sleep) until the slow handler has started. */
  const untilStarted = async (count: number) => {
    while (executions < count) await new Promise((resolve) => setImmediate(resolve));
  };

  it('answers 409 idempotency_in_progress with Retry-After while the first request with the key is still running', async () => {
    const slow = post(keyA, '{"item":"s","quantity":1,"outcome":"slow"}', 'idem-slow-1');
    await untilStarted(1);
    const concurrent = await post<ErrorBody>(keyA, '{"item":"s","quantity":1,"outcome":"slow"}', 'idem-slow-1');
    expect(concurrent.status).toBe(409);
    expect(concurrent.body.error.code).toBe('idempotency_in_progress');
    // When the running request's lease on the key ends (it renews it while it runs).
    expect(concurrent.headers.get('retry-after')).toBe(String(IDEMPOTENCY_LEASE_MS / 1000));
    releaseSlow();
    expect((await slow).status).toBe(201);
    const after = await post(keyA, '{"item":"s","quantity":1,"outcome":"slow"}', 'idem-slow-1');
    expect(after.status).toBe(201);
    expect(after.headers.get('idempotent-replayed')).toBe('true');
  });

  it('records the outcome of a request whose client dropped the connection: the retry replays it', async () => {
    const abort = new AbortController();
    const dropped = post(keyA, '{"item":"d","quantity":1,"outcome":"slow"}', 'idem-dropped-1', abort.signal).catch(() => 'dropped');
    await untilStarted(1);
    abort.abort();
    expect(await dropped).toBe('dropped');
    releaseSlow();
    // The handler runs to its end; once its outcome is recorded the retry replays it.
    let retry = await post<{ data: { id: string } }>(keyA, '{"item":"d","quantity":1,"outcome":"slow"}', 'idem-dropped-1');
    while (retry.status === 409) retry = await post<{ data: { id: string } }>(keyA, '{"item":"d","quantity":1,"outcome":"slow"}', 'idem-dropped-1');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.data.id).toBe('ord_1');
    expect(executions).toBe(1);
  });

  it('honours the key on PATCH too', async () => {
    const first = await patch<{ data: { id: string } }>(keyA, '{"item":"p","quantity":1}', 'idem-patch-1');
    const retry = await patch<{ data: { id: string } }>(keyA, '{"item":"p","quantity":1}', 'idem-patch-1');
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(executions).toBe(1);
    // Bound to the method and path: the same key on POST is another request.
    expect((await post<ErrorBody>(keyA, '{"item":"p","quantity":1}', 'idem-patch-1')).body.error.code).toBe('idempotency_conflict');
  });

  it('refuses a malformed key', async () => {
    const res = await post<ErrorBody>(keyA, '{"item":"k","quantity":1}', 'k'.repeat(256));
    expect(res.status).toBe(400);
    expect(res.body.error.fields).toEqual({ 'Idempotency-Key': 'must be 1 to 255 visible ASCII characters' });
  });

  it('documents the header on idempotent routes', async () => {
    const doc = sut.gw.running.gateway.openApiDocument();
    expect(doc.paths['/v1/test/orders']?.post?.parameters.map((p) => p.name)).toContain('Idempotency-Key');
    expect(doc.paths['/v1/test/orders']?.post?.responses['409']?.['x-error-codes']).toEqual(['idempotency_conflict', 'idempotency_in_progress']);
    expect(doc.paths['/v1/test/orders']?.post?.responses['409']?.headers).toHaveProperty('Retry-After');
  });
});

describe('the lease of a running request on its key', () => {
  // The gateway's clock, moved by the test; renewals run on their own timer.
  let now = new Date('2030-01-01T00:00:00.000Z');
  const sut = useGateway({ extraRoutes: orderRoutes, clock: () => now });
  const records = () =>
    sut.gw.store.collection<{ _id: string; key: string; lockedUntil: Date }>({ name: 'idempotency_records', schema: idempotencyRecordSchema });

  it('is renewed while the request runs: past its first lease a retry still finds it in progress, then gets the outcome', async () => {
    const { key } = await provision(sut.gw.adminUrl, { name: 'Lease' });
    executions = 0;
    const body = '{"item":"lease","quantity":1,"outcome":"slow"}';
    const send = () =>
      request<ErrorBody>(`${sut.gw.url}/v1/test/orders`, {
        method: 'POST',
        headers: { ...bearer(key), 'Content-Type': 'application/json', 'Idempotency-Key': 'idem-lease-1' },
        body,
      });
    const slow = send();
    while (executions < 1) await new Promise((resolve) => setImmediate(resolve));
    const claimedAt = now.getTime();
    // Most of the lease passes; the running request renews it from the (moved) clock.
    now = new Date(claimedAt + IDEMPOTENCY_LEASE_MS - 500);
    await eventually(async () => (await records().findOne({ key: 'idem-lease-1' }))!.lockedUntil.getTime() === now.getTime() + IDEMPOTENCY_LEASE_MS, {
      what: 'the lease renewed',
      timeoutMs: 5000,
      intervalMs: 20,
    });
    // Past the first lease: still the running request's key.
    now = new Date(claimedAt + IDEMPOTENCY_LEASE_MS + 1000);
    const retry = await send();
    expect([retry.status, retry.body.error.code]).toEqual([409, 'idempotency_in_progress']);
    // The lease's remaining time: 1.5 s rounded up, or 3 s when a renewal came first.
    expect(retry.headers.get('retry-after')).toMatch(/^[23]$/);
    releaseSlow();
    expect((await slow).status).toBe(201);
    expect((await send()).headers.get('idempotent-replayed')).toBe('true');
    expect(executions).toBe(1);
  });
});

describe('IdempotencyStore', () => {
  let now = new Date('2025-01-01T00:00:00.000Z');
  const store = new IdempotencyStore(createMemoryStore(), () => now);
  const fingerprint = requestFingerprint('POST', '/v1/x', { a: 1 });

  it('expires records after 24 hours, freeing the key', async () => {
    const claim = await store.claim('ws_1', 'k-expiry', fingerprint);
    expect(claim.kind).toBe('claimed');
    if (claim.kind !== 'claimed') return;
    await store.complete(claim.recordId, 201, { data: { id: 'one' } });

    now = new Date(now.getTime() + IDEMPOTENCY_TTL_MS - 1000);
    expect(await store.claim('ws_1', 'k-expiry', fingerprint)).toEqual({ kind: 'replay', status: 201, body: { data: { id: 'one' } } });
    expect((await store.claim('ws_1', 'k-expiry', requestFingerprint('POST', '/v1/x', { a: 2 }))).kind).toBe('fingerprint_mismatch');

    now = new Date(now.getTime() + 2000);
    expect((await store.claim('ws_1', 'k-expiry', requestFingerprint('POST', '/v1/x', { a: 2 }))).kind).toBe('claimed');
  });

  it('lets a retry take over a key whose first request died mid-flight once its lease ran out, saying how long that is', async () => {
    const base = createMemoryStore();
    // Two gateway processes on one store: the first dies after claiming the key.
    const dead = new IdempotencyStore(base, () => now);
    const alive = new IdempotencyStore(base, () => now);
    const claim = await dead.claim('ws_1', 'k-crash', fingerprint);
    expect(claim.kind).toBe('claimed');
    expect(await alive.claim('ws_1', 'k-crash', fingerprint)).toEqual({ kind: 'in_progress', retryAfterSeconds: IDEMPOTENCY_LEASE_MS / 1000 });
    now = new Date(now.getTime() + IDEMPOTENCY_LEASE_MS - 1500);
    expect(await alive.claim('ws_1', 'k-crash', fingerprint)).toEqual({ kind: 'in_progress', retryAfterSeconds: 2 });
    now = new Date(now.getTime() + 1500);
    const takeover = await alive.claim('ws_1', 'k-crash', fingerprint);
    expect(takeover.kind).toBe('claimed');
    // The old holder, were it only slow, no longer renews nor records over the new holder.
    if (claim.kind !== 'claimed' || takeover.kind !== 'claimed') return;
    expect(await dead.renew(claim.recordId)).toBe(false);
    await dead.complete(claim.recordId, 201, { data: { id: 'late' } });
    await alive.complete(takeover.recordId, 201, { data: { id: 'retry' } });
    expect(await alive.claim('ws_1', 'k-crash', fingerprint)).toEqual({ kind: 'replay', status: 201, body: { data: { id: 'retry' } } });
  });

  it('keeps a key whose request still runs: each renewal extends its lease', async () => {
    const claim = await store.claim('ws_1', 'k-renewed', fingerprint);
    if (claim.kind !== 'claimed') throw new Error('not claimed');
    for (let i = 0; i < 5; i++) {
      now = new Date(now.getTime() + IDEMPOTENCY_LEASE_MS - 1);
      expect(await store.renew(claim.recordId)).toBe(true);
    }
    now = new Date(now.getTime() + IDEMPOTENCY_LEASE_MS - 1);
    expect((await store.claim('ws_1', 'k-renewed', fingerprint)).kind).toBe('in_progress');
  });
});
