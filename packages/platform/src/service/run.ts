// The process shape every service shares: a gRPC server with health checking, the ops HTTP
// server (/healthz, /readyz, /metrics), and an ordered, bounded shutdown.
import type { Logger } from '../logging';
import type { DocumentStore } from '../store/port';
import { startGrpcServer, type ServiceRegistration } from '../grpc/server';
import { startOpsServer, type OpsServerHandle, type ReadinessCheck } from '../http/ops-server';

export interface RunningService {
  name: string;
  grpcPort: number;
  opsPort: number;
  /** Stops taking work, drains in-flight calls, then runs `onStop` (consumers, engines). */
  stop(): Promise<void>;
  /** The consumers of this service that no longer run, with the reason (none while it stops). */
  stoppedConsumers(): Array<{ groupId: string; reason: string }>;
}

export async function startService(opts: {
  name: string;
  grpcPort: number;
  opsPort: number;
  host?: string;
  /** The gRPC server also takes calls from clients of this process without the network. */
  inProcess?: boolean;
  /** Age of a client connection before the server asks it to go away (grpc/server.ts). */
  maxConnectionAgeMs?: number;
  services: ServiceRegistration[];
  checks: Record<string, ReadinessCheck>;
  logger: Logger;
  onStop?: () => Promise<void>;
  /** The consumers that no longer run (bus/health.ts); a failed one makes a deployed process exit. */
  stoppedConsumers?: () => Array<{ groupId: string; reason: string }>;
  shutdownGraceMs?: number;
  /**
   * The service's database: its collections and indexes (registered while the service was built)
   * are created before the gRPC server takes calls and before /readyz can answer ready.
   */
  store?: DocumentStore;
}): Promise<RunningService> {
  // A server that cannot start (a taken port) leaves nothing behind: what the service started
  // before calling this (consumers, outbox relay: onStop) and the gRPC server are stopped.
  let grpcServer: Awaited<ReturnType<typeof startGrpcServer>> | undefined;
  let ops: OpsServerHandle;
  try {
    await opts.store?.init();
    grpcServer = await startGrpcServer({
      name: opts.name,
      port: opts.grpcPort,
      host: opts.host,
      services: opts.services,
      logger: opts.logger,
      inProcess: opts.inProcess ?? false,
      ...(opts.maxConnectionAgeMs ? { maxConnectionAgeMs: opts.maxConnectionAgeMs } : {}),
    });
    ops = await startOpsServer({ port: opts.opsPort, host: opts.host, checks: opts.checks });
  } catch (error) {
    await grpcServer?.stop(0).catch(() => undefined);
    await opts.onStop?.().catch((stopError: unknown) => opts.logger.error({ err: stopError }, `${opts.name}: stopping after a failed start failed`));
    throw error;
  }
  const started = grpcServer;
  let stopping: Promise<void> | null = null;
  return {
    name: opts.name,
    grpcPort: started.port,
    opsPort: ops.port,
    stoppedConsumers: () => (stopping ? [] : (opts.stoppedConsumers?.() ?? [])),
    stop() {
      stopping ??= (async () => {
        ops.setDraining();
        await started.stop(opts.shutdownGraceMs ?? 10_000);
        await opts.onStop?.();
        await ops.close();
        opts.logger.info(`${opts.name} stopped`);
      })();
      return stopping;
    },
  };
}

/** SIGTERM/SIGINT: stop everything once, exit 0, or exit 1 if it takes longer than the bound. */
export function stopOnSignals(stop: () => Promise<void>, logger: Logger, boundMs = 25_000): void {
  let signalled = false;
  const handler = (signal: NodeJS.Signals) => {
    if (signalled) return;
    signalled = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('shutdown exceeded its bound; exiting');
      process.exit(1);
    }, boundMs);
    timer.unref();
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}

/** Entry point of a main.ts: runs `start`, printing a config error plainly and exiting 1. */
export function runMain(start: () => Promise<void>): void {
  start().catch((err: unknown) => {
    console.error(err instanceof Error && err.name === 'ConfigError' ? err.message : err);
    process.exit(1);
  });
}
