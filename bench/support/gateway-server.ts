// Child process of bench/gateway-overhead.bench.ts for the production layout: the gateway alone
// in this process (`startGatewayProcess`: its own in-memory store, logs on at LOG_LEVEL into this
// process's stdout, which the benchmark discards) over the services of a stack-server.ts process,
// whose gRPC addresses the parent sends. It seeds the demo workspace into its own store, creates
// one reservation through its API, reports its URL, the key, that reservation and the workspace
// the services keep the key's data in, then serves
// until the parent disconnects.
import type { ServiceAddresses } from '@vrp/platform/service';
import { startGatewayProcess } from '@vrp/stack';
import { prepareBenchData } from './bench-data';
import { answerLoopDelay } from './loop-delay';

answerLoopDelay();

process.once('message', (message: { addresses: ServiceAddresses }) => {
  void (async () => {
    const gateway = await startGatewayProcess({ port: 0, addresses: message.addresses, logLevel: process.env.LOG_LEVEL ?? 'info' });
    const demo = gateway.demo!;
    const { reservationId } = await prepareBenchData(gateway, gateway.adminToken, demo);
    process.send!({ baseUrl: gateway.baseUrl, apiKey: demo.apiKey, reservationId, dataWorkspaceId: demo.dataWorkspaceId });
    process.on('disconnect', () => {
      void gateway.stop().finally(() => process.exit(0));
    });
  })().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
});
