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
let executions = 0;
let finishSlow: () => void = () => undefined;
let finished = false;

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
      executions += 1;
      // Waits on something that is no upstream call (a store that does not answer, say).
      await new Promise<void>((resolve) => (finishSlow = resolve));
      finished = true;
      return created({ data: { id: `wr_${executions}`, item: body.item } });
    },
  }),
];

describe('the gateway answers by its deadline', () => {
  const sut = useGateway({ extraRoutes: routes, env: { UPSTREAM_DEADLINE_MS: String(DEADLINE_MS) } });
  let key: string;
  beforeAll(async () => {
    key = (await provision(sut.gw.url, { name: 'Deadline Rentals' })).key;
  });
  beforeEach(() => {
    executions = 0;
    finished = false;
  });
  afterEach(() => finishSlow());

  const write = (headers: Record<string, string> = {}) =>
    request<ErrorBody & { data: { id: string; item: string } }>(`${sut.gw.url}/v1/test/slow-writes`, {
      method: 'POST',
      headers: { ...bearer(key), 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ item: 'towels' }),
    });

  it('answers 504 upstream_timeout, with Retry-After and the request id, no later than the deadline plus 100 ms', async () => {
    const started = Date.now();
    const res = await write();
    const elapsed = Date.now() - started;
    expect(res.status).toBe(504);
    expect(res.body.error.code).toBe('upstream_timeout');
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.headers.get('x-request-id')).toBe(res.body.error.request_id);
    expect(elapsed).toBeGreaterThanOrEqual(DEADLINE_MS);
    expect(elapsed).toBeLessThanOrEqual(DEADLINE_MS + DEADLINE_MARGIN_MS + 100);
  });

  it('gives a retry with the same Idempotency-Key the real outcome of a write answered 504, executed once', async () => {
    const headers = { 'Idempotency-Key': `slow-${Date.now()}` };
    const first = await write(headers);
    expect(first.status).toBe(504);
    // Still running: the retry is told to wait, and runs nothing.
    const during = await write(headers);
    expect(during.status).toBe(409);
    expect(during.body.error.code).toBe('idempotency_in_progress');
    finishSlow();
    await eventually(() => finished, { what: 'the write to complete' });
    let replay: Awaited<ReturnType<typeof write>> | undefined;
    await eventually(async () => (replay = await write(headers)).status !== 409, { what: 'the outcome to be recorded' });
    expect(replay!.status).toBe(201);
    expect(replay!.headers.get('idempotent-replayed')).toBe('true');
    expect(replay!.body.data).toEqual({ id: 'wr_1', item: 'towels' });
    expect(executions).toBe(1);
  });
});
