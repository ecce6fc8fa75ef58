// The operational HTTP endpoints every service process exposes for Kubernetes and Prometheus:
// /healthz (the process is alive), /readyz (its engines answer and it takes traffic),
// /metrics (prom-client text format).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, registry } from '../metrics';

export type ReadinessCheck = () => Promise<boolean>;

export interface OpsServerHandle {
  port: number;
  /** Readiness goes false at once (drain before shutdown). */
  setDraining(): void;
  close(): Promise<void>;
}

export async function readinessOf(checks: Record<string, ReadinessCheck>): Promise<{ ready: boolean; checks: Record<string, boolean> }> {
  const results: Record<string, boolean> = {};
  await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      results[name] = await check().catch(() => false);
    }),
  );
  return { ready: Object.values(results).every(Boolean), checks: results };
}

export function handleOpsRequest(path: string, checks: Record<string, ReadinessCheck>, draining: () => boolean, res: http.ServerResponse): boolean {
  if (path === '/healthz') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    return true;
  }
  if (path === '/readyz') {
    void readinessOf(checks).then(({ ready, checks: results }) => {
      const ok = ready && !draining();
      res
        .writeHead(ok ? 200 : 503, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: ok ? 'ready' : 'not_ready', draining: draining(), checks: results }));
    });
    return true;
  }
  if (path === '/metrics') {
    void registry.metrics().then((text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text));
    return true;
  }
  return false;
}

export async function startOpsServer(opts: { port: number; host?: string; checks: Record<string, ReadinessCheck> }): Promise<OpsServerHandle> {
  collectDefaultMetrics();
  let draining = false;
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (!handleOpsRequest(path, opts.checks, () => draining, res)) res.writeHead(404, { 'content-type': 'application/json' }).end('{"status":"not_found"}');
  });
  // A port that is taken rejects (EADDRINUSE) instead of leaving the start hanging.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    setDraining() {
      draining = true;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
