// Child process of bench/gateway-overhead.bench.ts and bench/webhooks.bench.ts: the embedded
// stack (every service in this one process, as `pnpm start` runs it) with its ordinary logs
// (LOG_LEVEL, default info) on this process's stdout, which the benchmark discards. It creates
// one reservation through the API and reports the gateway's URL, the demo key, that reservation,
// the demo listings, the admin API's URL and token and the services' gRPC addresses (for a gateway in another process) to the
// parent over IPC, then serves until the parent disconnects. With BENCH_DATA_DIR set, its engines
// keep their data there (durable, as `pnpm start` runs with DATA_DIR); else in memory.
import { startStack } from '@vrp/stack';
import { prepareBenchData } from './bench-data';
import { answerLoopDelay } from './loop-delay';

answerLoopDelay();

async function main(): Promise<void> {
  const stack = await startStack({
    port: 0,
    ephemeralPorts: true,
    logLevel: process.env.LOG_LEVEL ?? 'info',
    dataDir: process.env.BENCH_DATA_DIR || undefined,
  });
  const demo = stack.demo!;
  const { reservationId } = await prepareBenchData(stack, stack.adminToken, demo);
  process.send!({
    baseUrl: stack.baseUrl,
    adminBaseUrl: stack.adminBaseUrl,
    adminToken: stack.adminToken,
    apiKey: demo.apiKey,
    reservationId,
    listingIds: demo.listingIds,
    addresses: stack.addresses,
  });
  process.on('disconnect', () => {
    void stack.stop().finally(() => process.exit(0));
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
