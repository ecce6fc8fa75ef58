// The SDK's retries and idempotency keys, against a local HTTP server that answers what each
// test scripts (the failures the stack cannot be made to produce on demand: 429, 503, 409
// idempotency_in_progress, dropped connections). Waits are recorded, not slept.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ServiceUnavailableError, Vrp, VrpApiError, VrpNetworkError } from '../src';

type Answer = { status: number; headers?: Record<string, string>; error?: string } | 'drop';

interface Scripted {
  url: string;
  seen: { method: string; key: string | undefined; body: string }[];
  close(): Promise<void>;
}

async function scriptedServer(answers: Answer[]): Promise<Scripted> {
  const seen: Scripted['seen'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', key: req.headers['idempotency-key'] as string | undefined, body: Buffer.concat(chunks).toString('utf8') });
      const answer = answers.shift() ?? { status: 200 };
      if (answer === 'drop') return req.socket.destroy();
      const body = answer.error
        ? { error: { code: answer.error, message: 'm', fix: 'f', docs_url: `http://x/docs/errors/${answer.error}`, request_id: 'req_1' } }
        : { data: { id: 'gst_1', firstName: 'Ada' } };
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function client(url: string, delays: number[], maxRetries = 3): Vrp {
  return new Vrp({ baseUrl: url, apiKey: 'sk_test_x', retry: { maxRetries, baseDelayMs: 100, maxDelayMs: 1000 }, sleep: async (ms) => void delays.push(ms) });
}

describe('SDK transport: retries and idempotency keys', () => {
  let server: Scripted | undefined;
  afterEach(async () => server?.close());

  it('retries 429 (waiting its Retry-After), 503 and 409 idempotency_in_progress with the same key and body', async () => {
    server = await scriptedServer([
      { status: 429, headers: { 'retry-after': '2' }, error: 'rate_limited' },
      { status: 503, error: 'service_unavailable' },
      { status: 409, headers: { 'retry-after': '1' }, error: 'idempotency_in_progress' },
      { status: 201 },
    ]);
    const delays: number[] = [];
    const res = await client(server.url, delays).post('/v1/guests', { body: { firstName: 'Ada' } });
    expect(res.data).toMatchObject({ firstName: 'Ada' });
    expect(server.seen).toHaveLength(4);
    const keys = new Set(server.seen.map((s) => s.key));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(server.seen.map((s) => s.body))).toEqual(new Set([JSON.stringify({ firstName: 'Ada' })]));
    // Retry-After is a floor; the 503 without one backs off within the exponential window (200 ms for retry 2).
    expect(delays[0]).toBeGreaterThanOrEqual(2000);
    expect(delays[1]).toBeLessThan(200);
    expect(delays[2]).toBeGreaterThanOrEqual(1000);
  });

  it('keeps a key the caller gives, and retries a dropped connection with it', async () => {
    server = await scriptedServer(['drop', { status: 201 }]);
    const delays: number[] = [];
    await client(server.url, delays).post('/v1/guests', { body: { firstName: 'Ada' }, headers: { 'Idempotency-Key': 'mine-1' } });
    expect(server.seen.map((s) => s.key)).toEqual(['mine-1', 'mine-1']);
    expect(delays).toHaveLength(1);
  });

  it.each([
    [400, 'validation_failed'],
    [404, 'not_found'],
    [409, 'idempotency_conflict'],
    [409, 'dates_unavailable'],
    [422, 'pms_write_unsupported'],
  ])('never retries %i %s', async (status, code) => {
    server = await scriptedServer([{ status, error: code }, { status: 201 }]);
    const err = await client(server.url, [])
      .post('/v1/guests', { body: { firstName: 'Ada' } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VrpApiError);
    expect([(err as VrpApiError).status, (err as VrpApiError).code]).toEqual([status, code]);
    expect(server.seen).toHaveLength(1);
  });

  it('gives up after maxRetries with the last answer as a typed error, or a VrpNetworkError when nothing answered', async () => {
    server = await scriptedServer([
      { status: 503, error: 'service_unavailable' },
      { status: 503, error: 'service_unavailable' },
    ]);
    await expect(client(server.url, [], 1).get('/v1/guests')).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(server.seen).toHaveLength(2);
    await server.close();
    server = await scriptedServer(['drop', 'drop']);
    await expect(client(server.url, [], 1).get('/v1/guests')).rejects.toBeInstanceOf(VrpNetworkError);
    expect(server.seen.map((s) => [s.method, s.key])).toEqual([
      ['GET', undefined],
      ['GET', undefined],
    ]);
  });
});
