// In-process gRPC calls. When a client and a server live in one Node process (the
// embedded stack of `pnpm start`: the gateway and the five services on one event loop), a unary
// call need not cross loopback TCP, HTTP/2 and grpc-js's call stack twice: the client hands the
// call to the server's registered handler directly. What the call means is kept exactly:
// - the request and the response are encoded and decoded with the method's own protobuf
//   serializers, so a message that would not survive the wire does not survive here either, and
//   neither side ever shares an object with the other;
// - the size limits are grpc-js's: a request above the server's receive limit and a response
//   above the client's (4 MiB, grpc-js's default) fail with RESOURCE_EXHAUSTED;
// - the deadline is the caller's: past it the caller gets DEADLINE_EXCEEDED while the handler runs
//   on, as a server handler does after its client gave up;
// - metadata is copied, errors come back as grpc-js ServiceErrors (code, details, metadata);
// - the handler runs in the server's own async context, never in the caller's (a store
//   transaction of the caller is not the handler's).
// This is the transport of @vrp/platform's local-calls port: the embedded stack installs it
// (useInProcessCalls) in its composition root. Only a server started with `inProcess: true`
// registers; a stopping server unregisters at once, so later calls go over the network and find
// what a client finds there. The services' own tests run over real gRPC, and
// `GRPC_IN_PROCESS=0` turns this off for a stack.
import { AsyncResource } from 'node:async_hooks';
import * as grpc from '@grpc/grpc-js';
import { installLocalCalls, type LocalCallTransport, type LocalMethod } from '@vrp/platform/grpc';

/** grpc-js's default receive limit of a client (grpc.max_receive_message_length). */
const CLIENT_MAX_RECEIVE_BYTES = 4 * 1024 * 1024;

interface LocalServer {
  methods: Map<string, LocalMethod>;
  maxReceiveBytes: number;
}

/** Servers of this process that take in-process calls, by port (a port is bound once per host). */
const servers = new Map<number, LocalServer>();
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '0.0.0.0', '::1', '[::1]', '::', '[::]']);

/** The async context of this module's load: none. Handlers run in it, not in their caller's. */
const serverScope = new AsyncResource('vrp.grpc.in-process');

/** The in-process transport: servers register by port, clients of a loopback address call them. */
export const inProcessCalls: LocalCallTransport = {
  register(port, maxReceiveBytes, methods) {
    servers.set(port, { methods, maxReceiveBytes });
  },
  unregister(port, methods) {
    if (servers.get(port)?.methods === methods) servers.delete(port);
  },
  call(address, path, request, metadata, deadline, callback) {
    return callInProcess(loopbackPort(address), path, request, metadata, deadline, callback);
  },
};

/** Makes this process's gRPC servers started with `inProcess: true` answer its clients without the network. */
export function useInProcessCalls(): void {
  installLocalCalls(inProcessCalls);
}

/** The ports whose servers take in-process calls now (tests of the wiring). */
export function inProcessPorts(): number[] {
  return [...servers.keys()];
}

/** The port of a loopback `host:port` address, or undefined for any other address. */
function loopbackPort(address: string): number | undefined {
  const colon = address.lastIndexOf(':');
  if (colon <= 0) return undefined;
  const host = address.slice(0, colon);
  const port = Number(address.slice(colon + 1));
  return LOOPBACK.has(host) && Number.isInteger(port) && port > 0 ? port : undefined;
}

function serviceError(code: grpc.status, details: string, metadata = new grpc.Metadata()): grpc.ServiceError {
  // The message grpc-js gives its own ServiceErrors: "<code> <NAME>: <details>".
  return Object.assign(new Error(`${code} ${grpc.status[code]}: ${details}`), { code, details, metadata });
}

/**
 * Runs a unary call in process when a server registered for `port` has `path`; returns false
 * when it does not (the caller goes over the network).
 */
function callInProcess(
  port: number | undefined,
  path: string,
  request: unknown,
  metadata: grpc.Metadata,
  deadline: number,
  callback: (err: grpc.ServiceError | null, response?: unknown) => void,
): boolean {
  if (port === undefined) return false;
  const server = servers.get(port);
  const method = server?.methods.get(path);
  if (!server || !method) return false;
  let settled = false;
  // Each hop is a turn of the event loop, as a network round trip is: the handler starts, and
  // the caller hears back, in a macrotask of its own, so a chain of calls never holds the loop
  // (timers, sockets, other requests) for its whole length in microtasks.
  const settle = (err: grpc.ServiceError | null, response?: unknown) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    setImmediate(callback, err, response);
  };
  const timer = setTimeout(() => settle(serviceError(grpc.status.DEADLINE_EXCEEDED, 'Deadline exceeded')), Math.max(0, deadline - Date.now()));
  let decoded: unknown;
  try {
    const bytes = method.definition.requestSerialize(request);
    if (bytes.length > server.maxReceiveBytes) {
      settle(serviceError(grpc.status.RESOURCE_EXHAUSTED, `Received message larger than max (${bytes.length} vs ${server.maxReceiveBytes})`));
      return true;
    }
    decoded = method.definition.requestDeserialize(bytes);
  } catch (err) {
    settle(serviceError(grpc.status.INTERNAL, `Request message serialization failure: ${(err as Error).message}`));
    return true;
  }
  // What grpc-js's ServerUnaryCall offers a handler, for a call that has no socket.
  const call = {
    request: decoded,
    metadata: metadata.clone(),
    cancelled: false,
    getPeer: () => 'in-process',
    getPath: () => path,
    getDeadline: () => deadline,
    sendMetadata: () => undefined,
  };
  serverScope.runInAsyncScope(() =>
    setImmediate(() =>
      method.handle(call as unknown as grpc.ServerUnaryCall<unknown, unknown>, (err, value) => {
        if (err) {
          const code = typeof err.code === 'number' ? err.code : grpc.status.UNKNOWN;
          settle(
            serviceError(code, err.details ?? ('message' in err ? err.message : ''), err.metadata instanceof grpc.Metadata ? err.metadata.clone() : undefined),
          );
          return;
        }
        try {
          const bytes = method.definition.responseSerialize(value);
          if (bytes.length > CLIENT_MAX_RECEIVE_BYTES) {
            settle(serviceError(grpc.status.RESOURCE_EXHAUSTED, `Received message larger than max (${bytes.length} vs ${CLIENT_MAX_RECEIVE_BYTES})`));
            return;
          }
          settle(null, method.definition.responseDeserialize(bytes));
        } catch (error) {
          settle(serviceError(grpc.status.INTERNAL, `Failed to serialize response: ${(error as Error).message}`));
        }
      }),
    ),
  );
  return true;
}
