// Unary calls between a gRPC client and a server of the same process, without the network: the
// port a transport implements. The embedded stack installs one (@vrp/engines/grpc-in-process)
// in its composition root; with none installed, or for an address no local server registered,
// every call goes over the network. Only a server started with `inProcess: true` registers.
import type * as grpc from '@grpc/grpc-js';

/** One method of a server, as a local transport calls it. */
export interface LocalMethod {
  definition: grpc.MethodDefinition<unknown, unknown>;
  handle: grpc.handleUnaryCall<unknown, unknown>;
}

export interface LocalCallTransport {
  /** Registers a server's methods (by path) under its port; unregister with the same map. */
  register(port: number, maxReceiveBytes: number, methods: Map<string, LocalMethod>): void;
  unregister(port: number, methods: Map<string, LocalMethod>): void;
  /**
   * Runs a unary call in process when a server of this process registered for `address` has
   * `path`; returns false when none did (the caller goes over the network).
   */
  call(
    address: string,
    path: string,
    request: unknown,
    metadata: grpc.Metadata,
    deadline: number,
    callback: (err: grpc.ServiceError | null, response?: unknown) => void,
  ): boolean;
}

let installed: LocalCallTransport | undefined;

/** Installs the transport of this process's local calls (undefined: none, every call on the network). */
export function installLocalCalls(transport: LocalCallTransport | undefined): void {
  installed = transport;
}

/** The installed transport, if any. */
export function localCalls(): LocalCallTransport | undefined {
  return installed;
}
