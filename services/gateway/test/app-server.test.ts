// The gateway's HTTP server (src/http/server.ts): requests and responses are born with the
// Express app's prototypes, so Express's per-request Object.setPrototypeOf changes nothing, and
// Express's request and response helpers work on them as on its own objects.
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createAppServer } from '../src/http/server';

describe('the gateway HTTP server', () => {
  it('creates each request and response with the app prototypes before Express sees them', async () => {
    const app = express();
    app.get('/probe/:id', (req, res) => {
      res.status(201).json({ id: req.params.id, accept: req.get('accept') ?? null, query: req.query });
    });
    const server = createAppServer(app);
    const seen: { req: unknown; res: unknown }[] = [];
    // Runs before the app's own listener, i.e. before Express's app.handle sets any prototype.
    server.prependListener('request', (req, res) => seen.push({ req: Object.getPrototypeOf(req), res: Object.getPrototypeOf(res) }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const answer = await fetch(`http://127.0.0.1:${port}/probe/r1?x=2`, { headers: { accept: 'application/json' } });
      expect(answer.status).toBe(201);
      expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await answer.json()).toEqual({ id: 'r1', accept: 'application/json', query: { x: '2' } });
      expect(seen).toHaveLength(1);
      expect(seen[0]!.req).toBe(app.request);
      expect(seen[0]!.res).toBe(app.response);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
