// The webhook sender's address guard and its connection reuse: a keep-alive connection opened for
// one target policy is never reused by a request under another, so a host that one policy may reach
// (loopback in test mode) stays refused to a stricter one (live mode) however recently it was used.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TargetPolicy } from '../src/domain/target';
import { createHttpSender } from '../src/ports/http-sender';

const TEST: TargetPolicy = { mode: 'test', allowLoopbackInTest: true };
const LIVE: TargetPolicy = { mode: 'live', allowLoopbackInTest: true };

describe('the webhook HTTP sender', () => {
  let server: http.Server;
  let port: number;
  /** Requests the receiver answered. */
  let answered = 0;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        answered += 1;
        res.end('ok');
      });
    });
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('refuses under live mode a host that resolves to loopback, right after sending to it under test mode over a kept-alive connection', async () => {
    const send = createHttpSender(async (host) => (host === 'hooks.test' ? ['127.0.0.1'] : []));
    const url = `http://hooks.test:${port}/hook`;
    const first = await send({ url, body: '{}', headers: {}, policy: TEST });
    expect(first).toMatchObject({ kind: 'response', status: 200 });
    const again = await send({ url, body: '{}', headers: {}, policy: TEST });
    expect(again).toMatchObject({ kind: 'response', status: 200 });
    const live = await send({ url, body: '{}', headers: {}, policy: LIVE });
    expect(live).toMatchObject({ kind: 'error', error: expect.stringContaining('blocked: resolves to a loopback address (127.0.0.1)') });
    expect(answered).toBe(2);
  });
});
