// gRPC for services: the server (handlers in the caller's request context, errors mapped in one
// place), the client of an upstream (deadlines, breaker, request id), and the port of calls that
// stay inside the process.
export * from './server';
export * from './client';
export { installLocalCalls, type LocalCallTransport, type LocalMethod } from './local-calls';
