// gRPC clients for upstream services: every call has a deadline, carries the request id in
// metadata, and goes through one opossum breaker per upstream. Business errors (AppError
// decoded from the status details) do not count against the breaker; only Unavailable and
// DeadlineExceeded do. ResourceExhausted (rate_limited) is a refusal of one caller's volume,
// not a failing upstream: counting it would let one tenant's flood open the breaker every
// tenant shares. An open breaker fails fast with a
// service_unavailable AppError carrying a retry-after, never a hang.
import * as grpc from '@grpc/grpc-js';
import CircuitBreaker from 'opossum';
import { currentContext, REQUEST_ID_METADATA } from '../context';
import { AppError } from '../errors/app-error';
import { grpcToAppError, isServiceError } from '../errors/grpc';
import { breakerState, grpcClientCalls } from '../metrics';
import { callInProcess, loopbackPort } from './in-process';

type Callback<Res> = (err: grpc.ServiceError | null, res: Res) => void;
type UnaryFn<Req, Res> = (req: Req, md: grpc.Metadata, opts: Partial<grpc.CallOptions>, cb: Callback<Res>) => grpc.ClientUnaryCall;

/** Names of the unary methods of a ts-proto client (the last overload takes all four args). */
export type UnaryMethod<C> = {
  [K in keyof C]: C[K] extends UnaryFn<infer _Req, infer _Res> ? K : never;
}[keyof C] &
  string;
export type RequestOf<C, K extends keyof C> = C[K] extends UnaryFn<infer Req, infer _Res> ? Req : never;
export type ResponseOf<C, K extends keyof C> = C[K] extends UnaryFn<infer _Req, infer Res> ? Res : never;

export interface UpstreamOptions {
  /** Upstream name, used in metrics and errors, e.g. "listing". */
  name: string;
  address: string;
  deadlineMs?: number;
  breaker?: {
    /** Failure percentage over the rolling window that opens the breaker. */
    errorThresholdPercentage?: number;
    /** How long the breaker stays open before letting a trial call through. */
    resetTimeoutMs?: number;
    /** Calls in the window before the breaker may open. */
    volumeThreshold?: number;
    rollingCountTimeoutMs?: number;
  };
}

export interface Upstream<C> {
  readonly name: string;
  readonly client: C;
  call<K extends UnaryMethod<C>>(method: K, request: RequestOf<C, K>, opts?: { deadlineMs?: number }): Promise<ResponseOf<C, K>>;
  readonly breaker: CircuitBreaker;
  close(): void;
}

const BREAKER_CODES = new Set<string>(['service_unavailable', 'upstream_timeout']);

export function createUpstream<C extends grpc.Client>(
  ClientCtor: new (address: string, credentials: grpc.ChannelCredentials, options?: Partial<grpc.ClientOptions>) => C,
  opts: UpstreamOptions,
): Upstream<C> {
  const client = new ClientCtor(opts.address, grpc.credentials.createInsecure(), {
    // Reconnect quickly after an upstream restarts.
    'grpc.initial_reconnect_backoff_ms': 200,
    'grpc.max_reconnect_backoff_ms': 2000,
    // No channelz service is exposed: its per-call bookkeeping (counters, timestamps, trackers
    // on channel, subchannel and transport) would be paid on every call for nothing (issue 17).
    'grpc.enable_channelz': 0,
  });
  const defaultDeadline = opts.deadlineMs ?? 5000;
  const resetTimeout = opts.breaker?.resetTimeoutMs ?? 5000;

  // A server of this process that takes in-process calls answers without the network
  // (grpc/in-process.ts); the method's path is the ts-proto client's service definition's.
  const port = loopbackPort(opts.address);
  const definition = (ClientCtor as { service?: grpc.ServiceDefinition }).service;

  const invoke = (method: string, request: unknown, deadlineMs: number): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const md = new grpc.Metadata();
      const ctx = currentContext();
      if (ctx) md.set(REQUEST_ID_METADATA, ctx.requestId);
      const fn = (client as unknown as Record<string, UnaryFn<unknown, unknown>>)[method];
      if (typeof fn !== 'function') {
        reject(new Error(`${opts.name}: no such method ${method}`));
        return;
      }
      const started = process.hrtime.bigint();
      const done = (err: grpc.ServiceError | null, res: unknown) => {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        if (err) {
          const appErr = isServiceError(err) ? grpcToAppError(err) : new AppError('internal_error');
          grpcClientCalls.observe({ upstream: opts.name, method, code: appErr.code }, seconds);
          reject(appErr);
        } else {
          grpcClientCalls.observe({ upstream: opts.name, method, code: 'OK' }, seconds);
          resolve(res);
        }
      };
      const deadline = Date.now() + deadlineMs;
      const path = definition?.[method]?.path;
      if (path !== undefined && callInProcess(port, path, request, md, deadline, done)) return;
      fn.call(client, request, md, { deadline }, done);
    });

  const breaker = new CircuitBreaker(invoke, {
    name: opts.name,
    timeout: false, // the gRPC deadline bounds every call
    errorThresholdPercentage: opts.breaker?.errorThresholdPercentage ?? 50,
    resetTimeout,
    volumeThreshold: opts.breaker?.volumeThreshold ?? 5,
    rollingCountTimeout: opts.breaker?.rollingCountTimeoutMs ?? 10_000,
    // true = "not a failure": business errors say the upstream is healthy.
    errorFilter: (err: unknown) => err instanceof AppError && !BREAKER_CODES.has(err.code),
  });
  breaker.on('open', () => breakerState.set({ upstream: opts.name }, 1));
  breaker.on('close', () => breakerState.set({ upstream: opts.name }, 0));

  return {
    name: opts.name,
    client,
    breaker,
    async call(method, request, callOpts) {
      try {
        return (await breaker.fire(method, request, callOpts?.deadlineMs ?? defaultDeadline)) as never;
      } catch (err) {
        if (err instanceof AppError) {
          if (err.code === 'service_unavailable' && !err.details.retryAfterSeconds) {
            throw new AppError('service_unavailable', `The ${opts.name} service is unavailable.`, { retryAfterSeconds: 1 });
          }
          throw err;
        }
        if ((err as { code?: unknown }).code === 'EOPENBREAKER') {
          throw new AppError('service_unavailable', `The ${opts.name} service is unavailable; calls to it are paused.`, {
            retryAfterSeconds: Math.max(1, Math.ceil(resetTimeout / 1000)),
          });
        }
        throw err;
      }
    },
    close() {
      breaker.shutdown();
      client.close();
    },
  };
}
