// The gateway's line per request (request-context.ts): every API request is logged once with its
// request id, workspace, method, route pattern, status and duration. It skips the logger's
// redaction (its fields are fixed and never secret), while every other line of the same
// logger is still redacted.
import { Writable } from 'node:stream';
import express from 'express';
import { createLogger } from '@vrp/platform';
import { requestContext } from '../src/http/middleware/request-context';
import { requestState } from '../src/http/request-state';

function capture(): { lines: Array<Record<string, unknown>>; stream: Writable } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, stream };
}

describe('the line per request', () => {
  it('logs each request once with its fields, and the other lines of the logger stay redacted', async () => {
    const { lines, stream } = capture();
    const logger = createLogger('gateway', 'info', stream);
    const app = express();
    app.use(requestContext(logger));
    app.get('/v1/things/:id', (req, res) => {
      requestState(req).context.workspaceId = 'ws_test';
      logger.info({ headers: { authorization: 'Bearer sk_test_secret' }, apiKey: { apiKey: 'sk_test_secret' } }, 'a handler line');
      res.status(200).json({ ok: true });
    });
    const server = app.listen(0);
    try {
      const port = (server.address() as { port: number }).port;
      const res = await fetch(`http://127.0.0.1:${port}/v1/things/t1`, {
        headers: { authorization: 'Bearer sk_test_secret', 'x-request-id': 'req_log_test_1' },
      });
      expect(res.status).toBe(200);
      await new Promise((resolve) => setImmediate(resolve));
      const served = lines.filter((l) => l.msg === 'request served');
      expect(served).toEqual([
        expect.objectContaining({
          service: 'gateway',
          request_id: 'req_log_test_1',
          workspace_id: 'ws_test',
          method: 'GET',
          route: '/v1/things/:id',
          status: 200,
          duration_ms: expect.any(Number),
        }),
      ]);
      const handlerLine = lines.find((l) => l.msg === 'a handler line');
      expect(handlerLine).toEqual(
        expect.objectContaining({ headers: { authorization: '[redacted]' }, apiKey: { apiKey: '[redacted]' }, request_id: 'req_log_test_1' }),
      );
      expect(JSON.stringify(lines)).not.toContain('sk_test_secret');
    } finally {
      server.close();
    }
  });
});
