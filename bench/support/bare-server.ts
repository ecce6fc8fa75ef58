// Child process of bench/gateway-overhead.bench.ts: a bare Express 5 handler that answers one
// route with fixed bytes and headers (those the gateway answered for the same request), so the
// benchmark compares the gateway's path with the cost of HTTP + Express alone.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { answerLoopDelay } from './loop-delay';

answerLoopDelay();

interface Reply {
  path: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

process.once('message', (reply: Reply) => {
  const body = Buffer.from(reply.body);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get(reply.path, (_req, res) => {
    res.status(reply.status);
    for (const [name, value] of Object.entries(reply.headers)) res.setHeader(name, value);
    res.end(body);
  });
  const server = http.createServer(app);
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.on('disconnect', () => process.exit(0));
});
