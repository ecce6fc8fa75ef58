// Prometheus metrics shared by every process (prom-client default registry).
import client from 'prom-client';

let defaultsCollected = false;

/** Starts the default Node process metrics once per process. */
export function collectDefaultMetrics(): void {
  if (defaultsCollected) return;
  defaultsCollected = true;
  client.collectDefaultMetrics();
}

export const registry = client.register;

export const grpcRequests = new client.Histogram({
  name: 'vrp_grpc_server_handled_seconds',
  help: 'gRPC unary calls served, by service, method and result code',
  labelNames: ['service', 'method', 'code'] as const,
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
});

export const grpcClientCalls = new client.Histogram({
  name: 'vrp_grpc_client_call_seconds',
  help: 'gRPC unary calls made, by upstream, method and result code',
  labelNames: ['upstream', 'method', 'code'] as const,
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
});

export const breakerState = new client.Gauge({
  name: 'vrp_circuit_breaker_open',
  help: '1 while the circuit breaker of an upstream is open',
  labelNames: ['upstream'] as const,
});

export const httpRequests = new client.Histogram({
  name: 'vrp_http_request_seconds',
  help: 'HTTP requests served by the gateway, by method, route and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
});
