// Child process of bench/gateway-overhead.bench.ts, the near end of the bare hop: a bare Express 5
// handler that answers each request from one bare grpc-js unary call to hop-upstream.ts in another
// process (raw bytes both ways, no proto, no checks, the request's id as the request), with the
// headers the gateway answered. The reference of the split layout: the floor of a design in which
// an HTTP process answers from a gRPC call to another process.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import express from 'express';
import { answerLoopDelay } from './loop-delay';

answerLoopDelay();

const bytes = (b: Buffer) => b;

process.once('message', (message: { address: string; method: string; path: string; headers: Record<string, string> }) => {
  const client = new grpc.Client(message.address, grpc.credentials.createInsecure());
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get(message.path, (req, res) => {
    client.makeUnaryRequest(message.method, bytes, bytes, Buffer.from(req.params.id as string), (err: grpc.ServiceError | null, body?: Buffer) => {
      if (err || !body) {
        res.status(502).end();
        return;
      }
      res.status(200);
      for (const [name, value] of Object.entries(message.headers)) res.setHeader(name, value);
      res.end(body);
    });
  });
  const server = http.createServer(app);
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.on('disconnect', () => process.exit(0));
});
