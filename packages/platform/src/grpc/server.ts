// gRPC server bootstrap: binds a port (0 in tests), registers the service implementations and
// the standard health service, runs every unary handler inside the caller's request context,
// and maps thrown errors to gRPC statuses in exactly one place.
import * as grpc from '@grpc/grpc-js';
import { z } from 'zod';
import { health } from '@vrp/contracts';
import { acceptOrCreateRequestId, DRY_RUN_METADATA, REQUEST_ID_METADATA, runWithContext } from '../context';
import { AppError } from '../errors/app-error';
import { appErrorToGrpc } from '../errors/grpc';
import { storeFailureToAppError } from '../errors/store-failures';
import type { Logger } from '../logging';
import { grpcRequests } from '../metrics';
import { localCalls, type LocalMethod } from './local-calls';

/** A unary handler: the request in, the response out (or a thrown AppError). */
export type UnaryHandler<Req, Res> = (request: Req, call: grpc.ServerUnaryCall<Req, Res>) => Promise<Res>;

/** One async handler per method of a ts-proto service definition, typed from it. */
export type Handlers<D> = {
  [K in keyof D]: D[K] extends grpc.MethodDefinition<infer Req, infer Res> ? UnaryHandler<Req, Res> : never;
};

export interface ServiceRegistration {
  definition: grpc.ServiceDefinition;
  handlers: Record<string, UnaryHandler<never, unknown>>;
}

/** Pairs a ts-proto service definition with async handlers (type-checked per method). */
export function service<D extends grpc.ServiceDefinition>(definition: D, handlers: Handlers<D>): ServiceRegistration {
  return { definition, handlers: handlers as unknown as ServiceRegistration['handlers'] };
}

/** The server's receive limit (grpc.max_receive_message_length), over the network or in process. */
const MAX_RECEIVE_BYTES = 8 * 1024 * 1024;

/**
 * Connection ageing: a client connection lives at most `maxAgeMs` (GRPC_MAX_CONNECTION_AGE_MS),
 * then its calls in flight get `graceMs`, more than the longest deadline of a call (the gateway's
 * 3 s, a PMS relay's 10 s), to finish.
 */
export const CONNECTION_AGE = { maxAgeMs: 30_000, graceMs: 15_000 };

/** The setting of a service's connection ageing (ServiceDeps.grpcMaxConnectionAgeMs). */
export const instanceConfig = {
  GRPC_MAX_CONNECTION_AGE_MS: z.coerce.number().int().min(1000).default(30_000),
};

export interface GrpcServerHandle {
  port: number;
  server: grpc.Server;
  /** Marks the health status NOT_SERVING, drains in-flight calls (bounded), then stops. */
  stop(graceMs?: number): Promise<void>;
  setServing(serving: boolean): void;
}

function wrapUnary(serviceName: string, method: string, handler: UnaryHandler<never, unknown>, logger: Logger): grpc.handleUnaryCall<unknown, unknown> {
  return (call, callback) => {
    const requestId = acceptOrCreateRequestId(call.metadata.get(REQUEST_ID_METADATA)[0]?.toString());
    const workspaceId = (call.request as { workspaceId?: unknown } | null)?.workspaceId;
    const dryRun = call.metadata.get(DRY_RUN_METADATA)[0]?.toString() === '1';
    const scope = { ...(typeof workspaceId === 'string' && workspaceId ? { workspaceId } : {}), ...(dryRun ? { dryRun } : {}) };
    runWithContext({ requestId, ...scope }, () => {
      const started = process.hrtime.bigint();
      handler(call.request as never, call as never).then(
        (response) => {
          grpcRequests.observe({ service: serviceName, method, code: 'OK' }, Number(process.hrtime.bigint() - started) / 1e9);
          callback(null, response);
        },
        (err: unknown) => {
          if (err instanceof AppError) {
            grpcRequests.observe({ service: serviceName, method, code: err.code }, Number(process.hrtime.bigint() - started) / 1e9);
            callback(appErrorToGrpc(err));
            return;
          }
          // The store unavailable (timeout, unreachable, frozen) or contended past its retries: 503.
          const storeFailure = storeFailureToAppError(err);
          if (storeFailure) {
            logger.warn({ err, method: `${serviceName}/${method}` }, 'store failure in gRPC handler');
            grpcRequests.observe({ service: serviceName, method, code: storeFailure.code }, Number(process.hrtime.bigint() - started) / 1e9);
            callback(appErrorToGrpc(storeFailure));
            return;
          }
          // Never hand a raw error to grpc-js: it would send any numeric `code` as the status.
          logger.error({ err, method: `${serviceName}/${method}` }, 'unhandled error in gRPC handler');
          grpcRequests.observe({ service: serviceName, method, code: 'internal_error' }, Number(process.hrtime.bigint() - started) / 1e9);
          callback(appErrorToGrpc(new AppError('internal_error')));
        },
      );
    });
  };
}

export async function startGrpcServer(opts: {
  name: string;
  port: number;
  host?: string;
  services: ServiceRegistration[];
  logger: Logger;
  /** Also take calls from clients of this process without the network, through the installed local transport (grpc/local-calls.ts). */
  inProcess?: boolean;
  /** Age after which a client connection is asked to go away (default CONNECTION_AGE.maxAgeMs). */
  maxConnectionAgeMs?: number;
}): Promise<GrpcServerHandle> {
  const server = new grpc.Server({
    'grpc.max_receive_message_length': MAX_RECEIVE_BYTES,
    // No channelz service is exposed: its per-call bookkeeping is off (see grpc/client.ts).
    'grpc.enable_channelz': 0,
    // Connections are long-lived HTTP/2: a client balances its calls over the connections it has,
    // so an instance added by a scale-up gets no call until clients reconnect. Aging connections
    // out (GOAWAY, then the calls in flight finish within the grace) makes every client resolve
    // the name again and spread over the instances it finds.
    'grpc.max_connection_age_ms': opts.maxConnectionAgeMs ?? CONNECTION_AGE.maxAgeMs,
    'grpc.max_connection_age_grace_ms': CONNECTION_AGE.graceMs,
    // Pings of idle connections find a vanished client; clients ping too (grpc/client.ts).
    'grpc.keepalive_time_ms': 60_000,
    'grpc.keepalive_timeout_ms': 10_000,
  });
  const local = new Map<string, LocalMethod>();
  const transport = opts.inProcess ? localCalls() : undefined;
  for (const svc of opts.services) {
    const impl: grpc.UntypedServiceImplementation = {};
    for (const [method, handler] of Object.entries(svc.handlers)) {
      if (!svc.definition[method]) throw new Error(`${opts.name}: handler ${method} is not in the service definition`);
      impl[method] = wrapUnary(opts.name, method, handler, opts.logger);
      const definition = svc.definition[method] as grpc.MethodDefinition<unknown, unknown>;
      local.set(definition.path, { definition, handle: impl[method] as grpc.handleUnaryCall<unknown, unknown> });
    }
    for (const method of Object.keys(svc.definition)) {
      if (!impl[method]) throw new Error(`${opts.name}: service method ${method} has no handler`);
    }
    server.addService(svc.definition, impl);
  }

  // Standard grpc.health.v1 service: "" is the overall status of this process.
  let serving = true;
  const healthImpl: health.HealthServer = {
    check: (_call, callback) => {
      callback(null, { status: serving ? health.HealthCheckResponse_ServingStatus.SERVING : health.HealthCheckResponse_ServingStatus.NOT_SERVING });
    },
    watch: (call) => {
      call.write({ status: serving ? health.HealthCheckResponse_ServingStatus.SERVING : health.HealthCheckResponse_ServingStatus.NOT_SERVING });
      call.end();
    },
  };
  server.addService(health.HealthService, healthImpl);

  const host = opts.host ?? '0.0.0.0';
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${host}:${opts.port}`, grpc.ServerCredentials.createInsecure(), (err, bound) => {
      if (!err) return resolve(bound);
      server.forceShutdown(); // nothing bound: release what the server holds
      reject(err);
    });
  });
  opts.logger.info({ port }, `${opts.name} gRPC server listening`);
  transport?.register(port, MAX_RECEIVE_BYTES, local);

  return {
    port,
    server,
    setServing(value) {
      serving = value;
    },
    stop(graceMs = 10_000) {
      serving = false;
      // Like the server's own: no new call once stopping (later ones go over the network and
      // find the server gone); the calls in flight finish.
      transport?.unregister(port, local);
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        timer.unref();
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}
