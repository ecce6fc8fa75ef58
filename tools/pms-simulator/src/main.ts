// `pnpm --filter @vrp/pms-simulator start`: the simulator as its own process (development).
import { z } from 'zod';
import { loadConfigOrExit, port } from '@vrp/platform/config';
import { runMain } from '@vrp/platform/service';
import { startPmsSimulator } from './server';

const configSchema = z.object({
  PMS_SIMULATOR_PORT: port(8090),
  PMS_SIMULATOR_HOST: z.string().min(1).default('127.0.0.1'),
});

runMain(async () => {
  const config = loadConfigOrExit(configSchema);
  const sim = await startPmsSimulator({ port: config.PMS_SIMULATOR_PORT, host: config.PMS_SIMULATOR_HOST });
  // The one line a developer starting the simulator needs (the stack's main prints the same way).
  // eslint-disable-next-line no-console
  console.log(`PMS simulator on ${sim.url} (PMS API under /pms-a/v1 .. /pms-g/v1, control API under /_control)`);
  const stop = () => void sim.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
});
