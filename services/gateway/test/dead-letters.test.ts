// The gateway's dead-letter admin API against four services' DeadLetterService over real gRPC.
// Each stand-in service is the platform's own consumer runner and DeadLetterService on the
// embedded engines, with a consumer group that fails for good on every message until told the
// cause is fixed. Proves the merge of the services' lists (newest first, pages, totals), the
// filters, the routing of replay and delete by id, and the envelopes of failures.
import { ConsumerRunner, DEAD_LETTER_SERVICES, deadLetterService, PermanentError, type DeadLetterServiceName } from '@vrp/platform/consumer';
import { createLogger } from '@vrp/platform/logging';
import { createMemoryBus } from '@vrp/engines/bus';
import { createMemoryStore } from '@vrp/engines/store';
import { Outbox } from '@vrp/platform/outbox';
import { startService, type RunningService } from '@vrp/platform/service';
import type { Subscription } from '@vrp/platform/bus';
import { adminHeaders, request, startTestGateway, type ErrorBody, type TestGateway } from './harness';

const logger = createLogger('test', 'silent');
const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

interface ApiDeadLetter {
  id: string;
  service: string;
  consumerGroup: string;
  topic: string;
  workspaceId: string | null;
  payloadBase64: string;
  errorCode: string;
  status: string;
  attempts: number;
}
interface Page {
  data: ApiDeadLetter[];
  pagination: { total: number; limit: number; offset: number; hasMore: boolean };
}

describe('admin API: dead letters of every consuming service', () => {
  const bus = createMemoryBus({ onHandlerError: () => undefined });
  const fixed = new Set<string>();
  const services = new Map<DeadLetterServiceName, { running: RunningService; subscription: Subscription; outbox: Outbox }>();
  let gw: TestGateway;
  /** Bodies in publish order: "<service>:<workspace>:<n>". */
  const published: string[] = [];

  const admin = <T>(method: string, path: string) => request<T>(`${gw.adminUrl}${path}`, { method, headers: adminHeaders() });
  const bodiesOf = (page: Page) => page.data.map((d) => dec(Buffer.from(d.payloadBase64, 'base64')));

  beforeAll(async () => {
    for (const name of DEAD_LETTER_SERVICES) {
      const store = createMemoryStore();
      const outbox = new Outbox(store, bus, logger);
      const runner = new ConsumerRunner({ service: name, store, bus, outbox, logger });
      const subscription = await runner.subscribe({
        groupId: `${name}-things`,
        topics: [{ name: `${name}.things.v1`, partitions: 2 }],
        fromBeginning: true,
        decode: (b) => dec(b),
        describe: (body) => ({ workspaceId: body.split(':')[1] }),
        handle: async (body) => {
          if (!fixed.has(body)) throw new PermanentError('thing_missing', `${body} has no thing yet`);
        },
      });
      await subscription.ready;
      const running = await startService({ name, grpcPort: 0, opsPort: 0, host: '127.0.0.1', services: [deadLetterService(runner)], checks: {}, logger });
      services.set(name, { running, subscription, outbox });
    }
    const addr = (s: DeadLetterServiceName) => `127.0.0.1:${services.get(s)!.running.grpcPort}`;
    gw = await startTestGateway({
      listingAddress: addr('listing'),
      env: { RESERVATION_ADDR: addr('reservation'), GUEST_ADDR: addr('guest'), WEBHOOK_ADDR: addr('webhook'), PMS_ADAPTER_ADDR: addr('pms-adapter') },
    });

    // Eight messages, two per service, across two workspaces, each failing at a later millisecond.
    const order: DeadLetterServiceName[] = ['listing', 'guest', 'webhook', 'reservation', 'guest', 'listing', 'reservation', 'webhook'];
    for (const [n, name] of order.entries()) {
      const body = `${name}:${n % 2 ? 'ws_b' : 'ws_a'}:${n}`;
      const before = Date.now();
      await bus.publish(`${name}.things.v1`, [{ key: `k${n}`, value: enc(body) }]);
      await bus.whenIdle(5000);
      published.push(body);
      // The next one fails at a later millisecond, so "newest first" has one answer.
      while (Date.now() === before) await new Promise((r) => setImmediate(r));
    }
  });
  afterAll(async () => {
    await gw.stop();
    for (const { running, subscription, outbox } of services.values()) {
      await subscription.stop();
      await running.stop();
      await outbox.stop();
    }
    await bus.close();
  });

  it('merges every service’s dead letters newest first, with the total of all of them', async () => {
    const res = await admin<Page>('GET', '/admin/v1/dead-letters');
    expect(res.status).toBe(200);
    expect(bodiesOf(res.body)).toEqual([...published].reverse());
    expect(res.body.pagination).toEqual({ total: 8, limit: 50, offset: 0, hasMore: false });
    expect(res.body.data[0]).toMatchObject({
      service: 'webhook',
      consumerGroup: 'webhook-things',
      topic: 'webhook.things.v1',
      workspaceId: 'ws_b',
      errorCode: 'thing_missing',
      status: 'open',
      attempts: 1,
    });
  });

  it('cuts pages out of the merged order', async () => {
    const newestFirst = [...published].reverse();
    const page = await admin<Page>('GET', '/admin/v1/dead-letters?limit=3&offset=2');
    expect(bodiesOf(page.body)).toEqual(newestFirst.slice(2, 5));
    expect(page.body.pagination).toEqual({ total: 8, limit: 3, offset: 2, hasMore: true });
    const last = await admin<Page>('GET', '/admin/v1/dead-letters?limit=3&offset=6');
    expect(bodiesOf(last.body)).toEqual(newestFirst.slice(6));
    expect(last.body.pagination.hasMore).toBe(false);
  });

  it('filters by workspace, service, topic and group', async () => {
    const only = async (query: string) => bodiesOf((await admin<Page>('GET', `/admin/v1/dead-letters?${query}`)).body);
    expect(await only('workspace_id=ws_b')).toEqual(published.filter((b) => b.includes(':ws_b:')).reverse());
    expect(await only('service=guest')).toEqual(published.filter((b) => b.startsWith('guest:')).reverse());
    expect(await only('topic=reservation.things.v1')).toEqual(published.filter((b) => b.startsWith('reservation:')).reverse());
    expect(await only('group=listing-things&workspace_id=ws_a')).toEqual(['listing:ws_a:0']);
    expect(await only('group=nobody')).toEqual([]);
  });

  it('routes replay and delete to the service named in the id, with its envelopes', async () => {
    const all = (await admin<Page>('GET', '/admin/v1/dead-letters?service=reservation')).body.data;
    const [newer, older] = all;
    // Cause still there: 409, kept with one more attempt.
    const failed = await admin<ErrorBody>('POST', `/admin/v1/dead-letters/${older!.id}/replay`);
    expect(failed.status).toBe(409);
    expect(failed.body.error.code).toBe('conflict');
    expect(failed.body.error.message).toContain('thing_missing');
    // Fixed: 200, replayed, out of the open list; a second replay is 409 and changes nothing.
    fixed.add(dec(Buffer.from(older!.payloadBase64, 'base64')));
    const replayed = await admin<{ data: ApiDeadLetter }>('POST', `/admin/v1/dead-letters/${older!.id}/replay`);
    expect(replayed.status).toBe(200);
    expect(replayed.body.data).toMatchObject({ id: older!.id, service: 'reservation', status: 'replayed', attempts: 3 });
    expect((await admin<ErrorBody>('POST', `/admin/v1/dead-letters/${older!.id}/replay`)).status).toBe(409);
    expect((await admin<Page>('GET', '/admin/v1/dead-letters?service=reservation')).body.data.map((d) => d.id)).toEqual([newer!.id]);
    expect((await admin<Page>('GET', '/admin/v1/dead-letters?service=reservation&status=replayed')).body.data.map((d) => d.id)).toEqual([older!.id]);
    // Delete, then 404; an id naming another service is not found there either.
    const deleted = await admin<{ data: ApiDeadLetter }>('DELETE', `/admin/v1/dead-letters/${newer!.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.data.id).toBe(newer!.id);
    expect((await admin<ErrorBody>('DELETE', `/admin/v1/dead-letters/${newer!.id}`)).status).toBe(404);
    expect((await admin<ErrorBody>('DELETE', `/admin/v1/dead-letters/${newer!.id.replace('dlq_reservation_', 'dlq_guest_')}`)).status).toBe(404);
  });

  it('answers 503 service_unavailable, not 500, when a service cannot be asked', async () => {
    const webhook = services.get('webhook')!;
    await webhook.running.stop();
    const res = await admin<ErrorBody>('GET', '/admin/v1/dead-letters');
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('service_unavailable');
    // The other services still answer when the list is narrowed to them.
    expect((await admin<Page>('GET', '/admin/v1/dead-letters?service=guest')).status).toBe(200);
  });
});
