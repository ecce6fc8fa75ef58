// No answer later than the gateway's deadline (middleware/deadline.ts): a request that waits on
// something past UPSTREAM_DEADLINE_MS is answered 504 upstream_timeout shortly after it, and the
// outcome of a write answered so is the one a retry with the same Idempotency-Key gets once the
// write completed (never a second execution).
import { z } from 'zod';
import { eventually } from '@vrp/testkit';
import { defineRoute } from '../src/app';
import { DEADLINE_MARGIN_MS } from '../src/http/middleware/deadline';
import { created } from '../src/http/route';
import { bearer, provision, request, type ErrorBody, useGateway } from './harness';

const DEADLINE_MS = 400;
/** Executions started and finished, by the item written. */
const started = new Map<string, number>();
const finished = new Set<string>();
const waiting: Array<() => void> = [];
const finishSlow = () => {
  for (const finish of waiting.splice(0)) finish();
};

const routes = [
  defineRoute({
    method: 'post',
    path: '/v1/test/slow-writes',
    operationId: 'testSlowWrite',
    summary: 'A write that takes longer than the deadline (test only)',
    tags: ['Test'],
    auth: 'api_key',
    body: z.strictObject({ item: z.string().min(1) }),
    responses: { 201: z.object({ data: z.object({ id: z.string(), item: z.string() }) }) },
    async handler({ body }) {
      started.set(body.item, (started.get(body.item) ?? 0) + 1);
      // Waits on something that is no upstream call (a store that does not answer, say).
      await new Promise<void>((resolve) => waiting.push(resolve));
      finished.add(body.item);
      return created({ data: { id: `wr_${body.item}`, item: body.item } });
    },
  }),
];

describe('the gateway answers by its deadline', () => {
  const sut = useGateway({ extraRoutes: routes, env: { UPSTREAM_DEADLINE_MS: String(DEADLINE_MS) } });
  let key: string;
  beforeAll(async () => {
    key = (await provision(sut.gw.adminUrl, { name: 'Deadline Rentals' })).key;
  });
  afterEach(() => finishSlow());

  const write = (item: string, headers: Record<string, string> = {}) =>
    request<ErrorBody & { data: { id: string; item: string } }>(`${sut.gw.url}/v1/test/slow-writes`, {
      method: 'POST',
      headers: { ...bearer(key), 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ item }),
    });

  it('answers 504 upstream_timeout, with Retry-After and the request id, no later than the deadline plus 100 ms', async () => {
    const sent = Date.now();
    const res = await write('sheets');
    const elapsed = Date.now() - sent;
    expect(res.status).toBe(504);
    expect(res.body.error.code).toBe('upstream_timeout');
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.headers.get('x-request-id')).toBe(res.body.error.request_id);
    expect(elapsed).toBeGreaterThanOrEqual(DEADLINE_MS);
    expect(elapsed).toBeLessThanOrEqual(DEADLINE_MS + DEADLINE_MARGIN_MS + 100);
  });

  it('gives a retry with the same Idempotency-Key the real outcome of a write answered 504, executed once', async () => {
    const headers = { 'Idempotency-Key': `slow-${Date.now()}` };
    const first = await write('towels', headers);
    expect(first.status).toBe(504);
    // Still running: the retry is told to wait, and runs nothing.
    const during = await write('towels', headers);
    expect(during.status).toBe(409);
    expect(during.body.error.code).toBe('idempotency_in_progress');
    finishSlow();
    await eventually(() => finished.has('towels'), { what: 'the write to complete' });
    let replay: Awaited<ReturnType<typeof write>> | undefined;
    await eventually(async () => (replay = await write('towels', headers)).status !== 409, { what: 'the outcome to be recorded' });
    expect(replay!.status).toBe(201);
    expect(replay!.headers.get('idempotent-replayed')).toBe('true');
    expect(replay!.body.data).toEqual({ id: 'wr_towels', item: 'towels' });
    expect(started.get('towels')).toBe(1);
  });
});
