// `pnpm start`: the whole API in one process on embedded engines.
import { z } from 'zod';
import { loadConfigOrExit, port, runMain } from '@vrp/platform';
import { startStack } from './stack';

const configSchema = z.object({
  PORT: port(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('warn'),
  ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  PMS_SIMULATOR_PORT: port(8090),
  PMS_SYNC_INTERVAL_MS: z.coerce.number().int().min(0).default(30_000),
});

runMain(async () => {
  const config = loadConfigOrExit(configSchema);
  const stack = await startStack({
    port: config.PORT,
    host: config.HOST,
    logLevel: config.LOG_LEVEL,
    adminToken: config.ADMIN_TOKEN,
    // The demo workspace is connected to a simulated PMS-A account, synced every 30 s.
    demoPms: true,
    pmsSimulatorPort: config.PMS_SIMULATOR_PORT,
    pmsSyncIntervalMs: config.PMS_SYNC_INTERVAL_MS,
  });
  console.log(`
  API         ${stack.publicBaseUrl}/v1
  Docs        ${stack.publicBaseUrl}/docs
  Demo key    ${stack.demo?.apiKey}   (workspace ${stack.demo?.workspaceId})
  Admin token ${stack.adminToken}
  PMS sim     ${stack.pmsSimulator.url}   (control API: /_control; demo account PMS-A/demo)

  curl -s ${stack.publicBaseUrl}/v1/listings -H "Authorization: Bearer ${stack.demo?.apiKey}"
`);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    stack.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
});
