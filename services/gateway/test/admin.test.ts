// The operator API and the programmatic bootstrap of the embedded stack.
import { Schema } from 'mongoose';
import { AppError } from '@vrp/platform/errors';
import { parseConfig } from '@vrp/platform/config';
import { bootstrapWorkspace, gatewayConfigSchema } from '../src/app';
import { ADMIN_TOKEN, adminHeaders, bearer, PEPPER, request, type ErrorBody, useGateway } from './harness';

interface Workspace {
  id: string;
  name: string;
  activeListingLimit: number;
  createdAt: string;
  updatedAt: string;
}

describe('gateway admin API', () => {
  const sut = useGateway();

  afterEach(() => {
    delete sut.listingService.override.setWorkspacePlan;
  });

  const admin = <T>(method: string, path: string, body?: unknown) =>
    request<T>(`${sut.gw.adminUrl}${path}`, { method, headers: adminHeaders(), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

  describe('admin token', () => {
    it.each([
      ['no token', {}],
      ['a wrong token', bearer('wrong-token-0123456789')],
      ['a prefix of the token', bearer(ADMIN_TOKEN.slice(0, -1))],
      ['the token without Bearer', { Authorization: ADMIN_TOKEN }],
    ])('answers 401 admin_token_invalid for %s', async (_what, headers) => {
      const res = await request<ErrorBody>(`${sut.gw.adminUrl}/admin/v1/workspaces`, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: '{}',
      });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('admin_token_invalid');
    });
  });

  describe('workspaces', () => {
    it('a create retried with its Idempotency-Key after the gateway lost its record answers the first workspace; no second one', async () => {
      const create = (name: string) =>
        request<{ data: Workspace }>(`${sut.gw.adminUrl}/admin/v1/workspaces`, {
          method: 'POST',
          headers: { ...adminHeaders(), 'Idempotency-Key': 'ws-create-1' },
          body: JSON.stringify({ name, activeListingLimit: 3 }),
        });
      const first = await create('Once Only');
      expect(first.status).toBe(201);
      // The crash between the workspace's commit and the gateway's record: the record is gone.
      const records = sut.gw.store.collection({ name: 'idempotency_records', schema: new Schema({}, { strict: false }) });
      expect((await records.deleteMany({ key: 'ws-create-1' })).deletedCount).toBe(1);
      const plansSet = () => sut.listingService.calls.filter((c) => c.method === 'setWorkspacePlan').length;
      const plansBefore = plansSet();
      const again = await create('Once Only');
      expect([again.status, again.body.data.id]).toEqual([201, first.body.data.id]);
      expect(again.headers.get('idempotent-replayed')).toBeNull(); // answered by the write's own key, not by a replay
      expect(plansSet()).toBe(plansBefore); // no plan set for a second workspace
      await records.deleteMany({ key: 'ws-create-1' });
      const other = await create('Someone Else');
      expect([other.status, (other.body as unknown as ErrorBody).error.code]).toEqual([409, 'idempotency_conflict']);
    });

    it('creates a workspace, sets its plan in the listing service, and shows it with usage', async () => {
      const created = await admin<{ data: Workspace }>('POST', '/admin/v1/workspaces', { name: '  Sunny   Stays ', activeListingLimit: 5 });
      expect(created.status).toBe(201);
      expect(created.body.data).toMatchObject({ name: 'Sunny Stays', activeListingLimit: 5 });
      expect(created.body.data.id).toMatch(/^ws_[1-9A-HJ-NP-Za-km-z]{20}$/);
      expect(new Date(created.body.data.createdAt).toISOString()).toBe(created.body.data.createdAt);
      expect(await sut.listingService.planOf(created.body.data.id)).toBe(5);

      const got = await admin<{ data: Workspace & { usage: Record<string, number> } }>('GET', `/admin/v1/workspaces/${created.body.data.id}`);
      expect(got.status).toBe(200);
      expect(got.body.data).toMatchObject({ id: created.body.data.id, name: 'Sunny Stays', activeListingLimit: 5 });
      expect(got.body.data.usage).toEqual({ activeListings: 0, inactiveListings: 0, billableListings: 0, activeListingLimit: 5 });
    });

    it('creates a workspace once per Idempotency-Key', async () => {
      const send = () =>
        request<{ data: Workspace }>(`${sut.gw.adminUrl}/admin/v1/workspaces`, {
          method: 'POST',
          headers: { ...adminHeaders(), 'Idempotency-Key': 'create-once-1' },
          body: JSON.stringify({ name: 'Once Only', activeListingLimit: 2 }),
        });
      const first = await send();
      const retry = await send();
      expect(retry.status).toBe(201);
      expect(retry.body.data.id).toBe(first.body.data.id);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
    });

    it('changes the plan limit in both places with PATCH', async () => {
      const created = await admin<{ data: Workspace }>('POST', '/admin/v1/workspaces', { name: 'Growing Co', activeListingLimit: 1 });
      const patched = await admin<{ data: Workspace }>('PATCH', `/admin/v1/workspaces/${created.body.data.id}`, { activeListingLimit: 25 });
      expect(patched.status).toBe(200);
      expect(patched.body.data.activeListingLimit).toBe(25);
      expect(await sut.listingService.planOf(created.body.data.id)).toBe(25);
      const got = await admin<{ data: Workspace }>('GET', `/admin/v1/workspaces/${created.body.data.id}`);
      expect(got.body.data.activeListingLimit).toBe(25);
    });

    it('validates bodies and names the bad fields', async () => {
      const res = await admin<ErrorBody>('POST', '/admin/v1/workspaces', { name: '', activeListingLimit: -2, plan: 'gold' });
      expect(res.status).toBe(400);
      expect(res.body.error.fields).toEqual({ name: 'must not be empty', activeListingLimit: 'must be at least 0', plan: 'is not a known field' });
      const notInt = await admin<ErrorBody>('PATCH', '/admin/v1/workspaces/ws_x', { activeListingLimit: 'ten' });
      expect(notInt.body.error.fields).toEqual({ activeListingLimit: 'must be an integer' });
    });

    it('answers 404 not_found for an unknown workspace', async () => {
      expect((await admin<ErrorBody>('GET', '/admin/v1/workspaces/ws_missing')).body.error.code).toBe('not_found');
      expect((await admin<ErrorBody>('PATCH', '/admin/v1/workspaces/ws_missing', { activeListingLimit: 3 })).status).toBe(404);
      expect((await admin<ErrorBody>('POST', '/admin/v1/workspaces/ws_missing/api-keys', { mode: 'test' })).status).toBe(404);
    });

    it('creates nothing when the listing service cannot take the plan', async () => {
      sut.listingService.override.setWorkspacePlan = async () => {
        throw new AppError('service_unavailable', 'listing store down', { retryAfterSeconds: 2 });
      };
      const res = await admin<ErrorBody>('POST', '/admin/v1/workspaces', { name: 'Never Created', activeListingLimit: 1 });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('2');
      delete sut.listingService.override.setWorkspacePlan;
      const again = await bootstrapWorkspace(
        { store: sut.gw.store, upstreams: sut.gw.upstreams, config: parseConfig(gatewayConfigSchema, { ADMIN_TOKEN, API_KEY_PEPPER: PEPPER }) },
        { name: 'Never Created', activeListingLimit: 1, mode: 'test' },
      );
      expect(again.workspaceCreated).toBe(true);
    });
  });

  describe('API keys', () => {
    it('issues a key once, lists it without its secret, revokes it, and the key stops working', async () => {
      const ws = await admin<{ data: Workspace }>('POST', '/admin/v1/workspaces', { name: 'Key Co', activeListingLimit: 3 });
      const wsId = ws.body.data.id;
      const issued = await admin<{
        data: { id: string; key: string; mode: string; workspaceId: string; createdAt: string; prefix: string; name: string | null };
      }>('POST', `/admin/v1/workspaces/${wsId}/api-keys`, { mode: 'test', name: 'staging' });
      expect(issued.status).toBe(201);
      const { key, id } = issued.body.data;
      expect(key).toMatch(/^sk_test_[1-9A-HJ-NP-Za-km-z]{40}$/);
      expect(issued.body.data).toMatchObject({ mode: 'test', workspaceId: wsId, name: 'staging', prefix: `${key.slice(0, 12)}…` });
      expect((await request(`${sut.gw.url}/v1/listings`, { headers: bearer(key) })).status).toBe(200);

      await admin('POST', `/admin/v1/workspaces/${wsId}/api-keys`, { mode: 'live' });
      const listed = await admin<{ data: Record<string, unknown>[]; pagination: Record<string, unknown> }>('GET', `/admin/v1/workspaces/${wsId}/api-keys`);
      expect(listed.status).toBe(200);
      expect(listed.body.data).toHaveLength(2);
      expect(listed.body.data[0]).toEqual({
        id,
        workspaceId: wsId,
        name: 'staging',
        mode: 'test',
        prefix: `${key.slice(0, 12)}…`,
        createdAt: issued.body.data.createdAt,
        revokedAt: null,
      });
      expect(listed.body.data[1]).toMatchObject({ mode: 'live', name: null });
      expect(listed.text).not.toContain(key);
      expect(listed.text).not.toContain('hash');
      expect(listed.body.pagination).toEqual({ total: 2, limit: 50, offset: 0, hasMore: false });

      const revoked = await admin<{ data: { revokedAt: string | null } }>('DELETE', `/admin/v1/api-keys/${id}`);
      expect(revoked.status).toBe(200);
      expect(revoked.body.data.revokedAt).not.toBeNull();
      const denied = await request<ErrorBody>(`${sut.gw.url}/v1/listings`, { headers: bearer(key) });
      expect(denied.status).toBe(401);
      expect(denied.body.error.code).toBe('invalid_api_key');

      const again = await admin<{ data: { revokedAt: string } }>('DELETE', `/admin/v1/api-keys/${id}`);
      expect(again.body.data.revokedAt).toBe(revoked.body.data.revokedAt);
      expect((await admin<ErrorBody>('DELETE', '/admin/v1/api-keys/key_missing')).status).toBe(404);
    });

    it('refuses an unknown mode', async () => {
      const ws = await admin<{ data: Workspace }>('POST', '/admin/v1/workspaces', { name: 'Mode Co', activeListingLimit: 3 });
      const res = await admin<ErrorBody>('POST', `/admin/v1/workspaces/${ws.body.data.id}/api-keys`, { mode: 'prod' });
      expect(res.status).toBe(400);
      expect(res.body.error.fields).toEqual({ mode: 'must be one of: test, live' });
    });
  });

  describe('bootstrapWorkspace', () => {
    const demoKey = 'sk_test_DemoKeyDemoKeyDemoKeyDemoKey0001';
    const deps = () => ({
      store: sut.gw.store,
      upstreams: sut.gw.upstreams,
      config: parseConfig(gatewayConfigSchema, { ADMIN_TOKEN, API_KEY_PEPPER: PEPPER }),
    });

    it('creates the workspace and the pinned key once, and reuses both afterwards', async () => {
      const first = await sut.gw.running.gateway.bootstrapWorkspace({ name: 'Demo Workspace', activeListingLimit: 20, mode: 'test', key: demoKey });
      expect(first).toMatchObject({ workspaceCreated: true, apiKey: { key: demoKey, created: true, mode: 'test', prefix: 'sk_test_Demo' } });
      expect(await sut.listingService.planOf(first.workspace.id)).toBe(20);
      const res = await request(`${sut.gw.url}/v1/listings`, { headers: { ...bearer(demoKey), 'X-Workspace-Id': first.workspace.id } });
      expect(res.status).toBe(200);

      await sut.listingService.restartEmpty(); // the listing service restarted empty
      const second = await bootstrapWorkspace(deps(), { name: 'demo workspace', activeListingLimit: 99, mode: 'test', key: demoKey });
      expect(second).toMatchObject({
        workspaceCreated: false,
        workspace: { id: first.workspace.id, activeListingLimit: 20 },
        apiKey: { id: first.apiKey.id, created: false },
      });
      expect(await sut.listingService.planOf(first.workspace.id)).toBe(20);
    });

    it('generates a key for a new workspace and does not pile up keys on reruns', async () => {
      const first = await bootstrapWorkspace(deps(), { name: 'Generated Demo', activeListingLimit: 5, mode: 'live' });
      expect(first.apiKey.key).toMatch(/^sk_live_/);
      const second = await bootstrapWorkspace(deps(), { name: 'Generated Demo', activeListingLimit: 5, mode: 'live' });
      expect(second.apiKey).toMatchObject({ id: first.apiKey.id, key: null, created: false });
    });

    it('refuses a malformed pinned key or one of the other mode', async () => {
      await expect(bootstrapWorkspace(deps(), { name: 'Bad Key', activeListingLimit: 1, mode: 'test', key: 'sk_test_short' })).rejects.toMatchObject({
        code: 'validation_failed',
      });
      await expect(bootstrapWorkspace(deps(), { name: 'Bad Key', activeListingLimit: 1, mode: 'live', key: demoKey })).rejects.toMatchObject({
        code: 'validation_failed',
      });
    });
  });

  describe('dead letters (input checks; lists, replays and deletes: dead-letters.test.ts and e2e/dead-letters.test.ts)', () => {
    it.each([
      ['an unknown status', '?status=stuck', 'status'],
      ['a page deeper than 1000 records', '?offset=950&limit=100', 'offset'],
      ['an unknown service', '?service=gateway', 'service'],
      ['an empty topic', '?topic=', 'topic'],
      ['an unknown parameter', '?workspaceId=ws_1', 'workspaceId'],
    ])('answers 400 validation_failed for %s, before calling any service', async (_what, query, field) => {
      const res = await admin<ErrorBody & { error: { fields: Record<string, string> } }>('GET', `/admin/v1/dead-letters${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(Object.keys(res.body.error.fields)).toContain(field);
    });

    it('answers 404 not_found for an id that no consuming service issued', async () => {
      for (const [method, path] of [
        ['POST', '/admin/v1/dead-letters/dlq_gateway_123/replay'],
        ['DELETE', '/admin/v1/dead-letters/lst_123'],
      ] as const) {
        const res = await admin<ErrorBody>(method, path);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('not_found');
      }
    });

    it('is for operators only', async () => {
      const res = await request<ErrorBody>(`${sut.gw.adminUrl}/admin/v1/dead-letters`, { method: 'GET', headers: bearer('sk_test_not_an_admin_token_000000') });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('admin_token_invalid');
    });
  });
});
