// gRPC clients for upstream services: every call has a deadline, carries the request id in
// metadata, and goes through one opossum breaker per upstream. Business errors (AppError
// decoded from the status details) do not count against the breaker; only Unavailable and
// DeadlineExceeded do. ResourceExhausted (rate_limited) is a refusal of one caller's volume,
// not a failing upstream: counting it would let one tenant's flood open the breaker every
// tenant shares. An open breaker fails fast with a
// service_unavailable AppError carrying a retry-after, never a hang.
import * as grpc from '@grpc/grpc-js';
import CircuitBreaker from 'opossum';
import { currentContext, DRY_RUN_METADATA, REQUEST_ID_METADATA } from '../context';
import { AppError } from '../errors/app-error';
import { grpcToAppError, isServiceError } from '../errors/grpc';
import { breakerState, grpcClientCalls } from '../metrics';
import { localCalls } from './local-calls';

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

/**
 * Methods that only read: safe to send again to another instance when the first could not take
 * them (UNAVAILABLE: the instance stopped or its connection broke). Every other method writes
 * and is never retried by the channel: a write that may have run is the caller's to retry, with
 * its idempotency key.
 */
export const READ_METHOD = /^(Get|List|Resolve|Find|Quote)[A-Z]/;

/** The longest wait of a client between two attempts to reach an instance that went away. */
export const RECONNECT_BACKOFF_MAX_MS = 1000;

/** How many times a read is attempted in all (the first try included) when an instance is unavailable. */
const READ_ATTEMPTS = 3;

/**
 * The channel of an upstream. `address` is a gRPC target: `host:port` or `dns:///host:port` (a
 * Kubernetes headless Service: one address per ready pod) or `ipv4:a:p,b:p` (the embedded stack's
 * instances). Calls are balanced per call over every address (`round_robin`), not pinned to the
 * first connection; reads are retried on another instance when one is unavailable; keepalive
 * pings find a dead connection before a call does. The server ages its connections out
 * (grpc/server.ts), so the client resolves the name again and a new instance gets traffic.
 */
export function channelOptions(definition: grpc.ServiceDefinition | undefined): Partial<grpc.ClientOptions> {
  const reads = Object.values(definition ?? {})
    .map((method) => /^\/([^/]+)\/([^/]+)$/.exec(method.path))
    .filter((match): match is RegExpExecArray => match !== null && READ_METHOD.test(match[2]!))
    .map((match) => ({ service: match[1]!, method: match[2]! }));
  const serviceConfig = {
    loadBalancingConfig: [{ round_robin: {} }],
    methodConfig: reads.length
      ? [
          {
            name: reads,
            retryPolicy: {
              maxAttempts: READ_ATTEMPTS,
              initialBackoff: '0.02s',
              maxBackoff: '0.2s',
              backoffMultiplier: 2,
              retryableStatusCodes: ['UNAVAILABLE'],
            },
          },
        ]
      : [],
  };
  return {
    'grpc.service_config': JSON.stringify(serviceConfig),
    // Reconnect quickly after an upstream restarts: within RECONNECT_BACKOFF_MAX_MS of its return,
    // whatever the backoff reached while it was away (a rolling restart waits at least that long
    // between two instances of a service, so a client always has one connected).
    'grpc.initial_reconnect_backoff_ms': 100,
    'grpc.max_reconnect_backoff_ms': RECONNECT_BACKOFF_MAX_MS,
    // A connection silent for 30 s is pinged; no answer in 10 s closes it (a vanished pod).
    'grpc.keepalive_time_ms': 30_000,
    'grpc.keepalive_timeout_ms': 10_000,
    'grpc.keepalive_permit_without_calls': 1,
    // No channelz service is exposed: its per-call bookkeeping (counters, timestamps, trackers
    // on channel, subchannel and transport) would be paid on every call for nothing.
    'grpc.enable_channelz': 0,
  };
}

const BREAKER_CODES = new Set<string>(['service_unavailable', 'upstream_timeout']);

export function createUpstream<C extends grpc.Client>(
  ClientCtor: new (address: string, credentials: grpc.ChannelCredentials, options?: Partial<grpc.ClientOptions>) => C,
  opts: UpstreamOptions,
): Upstream<C> {
  const definition = (ClientCtor as { service?: grpc.ServiceDefinition }).service;
  const client = new ClientCtor(opts.address, grpc.credentials.createInsecure(), channelOptions(definition));
  const defaultDeadline = opts.deadlineMs ?? 5000;
  const resetTimeout = opts.breaker?.resetTimeoutMs ?? 5000;

  const invoke = (method: string, request: unknown, deadlineMs: number): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const md = new grpc.Metadata();
      const ctx = currentContext();
      if (ctx) md.set(REQUEST_ID_METADATA, ctx.requestId);
      if (ctx?.dryRun) md.set(DRY_RUN_METADATA, '1');
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
      // The request's deadline bounds every call made for it: a request that makes several
      // calls answers by its deadline, not by the sum of theirs.
      const deadline = Math.min(Date.now() + deadlineMs, ctx?.deadline ?? Infinity);
      const path = definition?.[method]?.path;
      // A server of this process that takes local calls answers without the network
      // (grpc/local-calls.ts); the method's path is the ts-proto client's service definition's.
      if (path !== undefined && localCalls()?.call(opts.address, path, request, md, deadline, done)) return;
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
