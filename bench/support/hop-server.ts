// Child process of bench/gateway-overhead.bench.ts, the near end of the bare hop: a bare Express 5
// handler that answers each request from one bare grpc-js unary call to hop-upstream.ts in another
// process (raw bytes both ways, no proto, the request's id as the request), with the headers the
// gateway answered. The reference of the split layout: the floor of a design in which an HTTP
// process answers from a gRPC call to another process.
//
// With `contract`, it is the contract's hop: an HTTP process doing, per request, only the work the
// interface contract asks of every request, each the least way: the request id (accepted or made,
// answered in a header), the API key (HMAC-SHA256 under a pepper, compared in constant time with
// the stored hash), one rate limit per key (rate-limiter-flexible, the RateLimit-* headers), the
// path's id checked, one call with a deadline and the request id through the upstream's opossum
// breaker (the design puts one on every upstream of the gateway), and one access-log line (pino,
// into this process's discarded stdout). Over the bare upstream it answers its raw bytes; with
// `services` it calls a reservation service (the split layout's, or the least one of
// hop-upstream.ts) with the generated gRPC client and maps the reply to the API's JSON
// (toApiReservation, the contract's shape defined once). No gateway that keeps the contract, over
// the same upstream, can cost less per request than this.
import { createHmac, createSecretKey, randomUUID, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import express from 'express';
import CircuitBreaker from 'opossum';
import pino from 'pino';
import { RateLimiterMemory, type RateLimiterRes } from 'rate-limiter-flexible';
import { toApiReservation } from '@vrp/api-model';
import { reservation as pb } from '@vrp/contracts';
import { answerLoopDelay } from './loop-delay';

answerLoopDelay();

const bytes = (b: Buffer) => b;

interface HopMessage {
  address: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  /**
   * The contract's hop: the API key it accepts; with `services`, the reservation service it calls
   * and the key's workspace there (else the bare upstream, raw bytes, as the bare hop).
   */
  contract?: { apiKey: string; services?: { reservationAddress: string; workspaceId: string } };
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;
const RESOURCE_ID = /^[A-Za-z0-9_-]{1,64}$/;
const DEADLINE_MS = 5_000;

process.once('message', (message: HopMessage) => {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  /** Answers the upstream's bytes with the gateway's headers, then `own` (the contract hop's per-request ones). */
  const answer = (res: express.Response, body: Buffer | undefined, err: grpc.ServiceError | null, own?: () => void) => {
    if (err || !body) {
      res.status(502).end();
      return;
    }
    res.status(200);
    for (const [name, value] of Object.entries(message.headers)) res.setHeader(name, value);
    own?.();
    res.end(body);
  };
  const { contract } = message;
  // The bare upstream's client (it connects on its first call: unused over the reservation service).
  const raw = new grpc.Client(message.address, grpc.credentials.createInsecure());
  if (!contract) {
    app.get(message.path, (req, res) => {
      raw.makeUnaryRequest(message.method, bytes, bytes, Buffer.from(req.params.id as string), (err: grpc.ServiceError | null, body?: Buffer) =>
        answer(res, body, err),
      );
    });
  } else {
    const pepper = createSecretKey(Buffer.from('bench-pepper-000000000000000000000000', 'utf8'));
    const hash = (key: string) => createHmac('sha256', pepper).update(key, 'utf8').digest();
    const stored = hash(contract.apiKey);
    const service = contract.services && new pb.ReservationServiceClient(contract.services.reservationAddress, grpc.credentials.createInsecure());
    const limiter = new RateLimiterMemory({ points: 1_000_000, duration: 1 });
    // The upstream's breaker, under the call's deadline: a failure the upstream answered (not found,
    // invalid) is the request's, not the upstream's, and does not count against it.
    const breaker = new CircuitBreaker(
      (call: (done: (err: grpc.ServiceError | null) => void) => void) => new Promise<void>((resolve, reject) => call((err) => (err ? reject(err) : resolve()))),
      {
        timeout: DEADLINE_MS,
        errorFilter: (err: grpc.ServiceError) => err.code === grpc.status.NOT_FOUND || err.code === grpc.status.INVALID_ARGUMENT,
      },
    );
    /** One call through the breaker: the call answers its own reply or error; an open breaker or a lapsed deadline is a 503. */
    const guarded = (res: express.Response, call: (done: (err: grpc.ServiceError | null) => void) => void) =>
      void breaker.fire(call).catch((err: { code?: string }) => {
        if (!res.headersSent && (err.code === 'EOPENBREAKER' || err.code === 'ETIMEDOUT')) res.status(503).end();
      });
    // Batched as the services' stdout destination is (packages/platform/src/logging.ts).
    const log = pino({ level: 'info' }, pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 100 }));
    const quota = (res: express.Response, r: RateLimiterRes) => {
      res.setHeader('RateLimit-Limit', '1000000');
      res.setHeader('RateLimit-Remaining', String(r.remainingPoints));
      res.setHeader('RateLimit-Reset', String(Math.ceil(r.msBeforeNext / 1000)));
    };
    app.get(message.path, (req, res) => {
      const started = process.hrtime.bigint();
      const presented = req.get('x-request-id');
      const requestId = presented && REQUEST_ID.test(presented) ? presented : randomUUID();
      res.on('finish', () =>
        log.info({ requestId, method: req.method, path: req.path, status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6 }, 'request'),
      );
      const refuse = (status: number, code: string) => {
        res.setHeader('x-request-id', requestId);
        res.status(status).json({ error: { code, message: code, request_id: requestId } });
      };
      const auth = /^Bearer (sk_(?:test|live)_[A-Za-z0-9]{16,64})$/.exec(req.get('authorization') ?? '');
      if (!auth || !timingSafeEqual(hash(auth[1]!), stored)) return refuse(401, 'unauthorized');
      const id = req.params.id as string;
      if (!RESOURCE_ID.test(id)) return refuse(400, 'validation_error');
      limiter.consume(auth[1]!).then(
        (r) => {
          const own = () => {
            quota(res, r);
            res.setHeader('x-request-id', requestId);
          };
          const metadata = new grpc.Metadata();
          metadata.set('x-request-id', requestId);
          const deadline = { deadline: Date.now() + DEADLINE_MS };
          if (!service) {
            guarded(res, (done) =>
              raw.makeUnaryRequest(message.method, bytes, bytes, Buffer.from(id), metadata, deadline, (err: grpc.ServiceError | null, body?: Buffer) => {
                done(err);
                answer(res, body, err, own);
              }),
            );
            return;
          }
          guarded(res, (done) =>
            service.getReservation({ workspaceId: contract.services!.workspaceId, id }, metadata, deadline, (err, reply) => {
              done(err);
              const body = reply?.reservation ? Buffer.from(JSON.stringify({ data: toApiReservation(reply.reservation) })) : undefined;
              answer(res, body, err, own);
            }),
          );
        },
        (r: RateLimiterRes) => {
          quota(res, r);
          refuse(429, 'rate_limited');
        },
      );
    });
  }
  const server = http.createServer(app);
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.on('disconnect', () => process.exit(0));
});
