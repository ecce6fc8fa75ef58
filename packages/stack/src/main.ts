// `pnpm start`: the whole API in one process on embedded engines, keeping its data in DATA_DIR
// (default ./.data). `pnpm start --reset` deletes that directory first.
import { resolve } from 'node:path';
import { z } from 'zod';
import { checkEngineConfig, engineConfig, exitOnHelp, loadConfigOrExit, persistenceConfig, port, secret } from '@vrp/platform/config';
import { runMain } from '@vrp/platform/service';
import { resetDataDir } from './data-dir';
import { DEMO_API_KEY } from './demo';
import { startStack } from './stack';

const configSchema = z.object({
  PORT: port(8080),
  // The gateway's private listener: the admin API and /metrics.
  ADMIN_PORT: port(9160),
  HOST: z.string().min(1).default('127.0.0.1'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('warn'),
  ADMIN_TOKEN: secret(z.string().min(16, 'must be at least 16 characters').optional(), 'operator token of the admin API; default: a development token'),
  PMS_SIMULATOR_PORT: port(8090),
  PMS_SYNC_INTERVAL_MS: z.coerce.number().int().min(0).default(30_000),
  // Set and empty (DATA_DIR=): in memory only, nothing kept.
  DATA_DIR: persistenceConfig.DATA_DIR.default('./.data'),
  BUS_RETENTION_HOURS: persistenceConfig.BUS_RETENTION_HOURS,
  // 1: the gateway and the services call each other inside this process; 0: over loopback gRPC.
  GRPC_IN_PROCESS: z.enum(['0', '1']).default('1'),
  // With NODE_ENV=production this single-node deployment needs ALLOW_EMBEDDED_ENGINES=true and a DATA_DIR.
  NODE_ENV: engineConfig.NODE_ENV,
  ALLOW_EMBEDDED_ENGINES: engineConfig.ALLOW_EMBEDDED_ENGINES,
});

const USAGE = `usage: pnpm start [--reset] [--replicas N]
  --reset        delete DATA_DIR before starting
  --replicas N   run N instances of every service and of the gateway (1-8, default 1)`;

exitOnHelp('pnpm start [--reset] [--replicas N]   (the whole stack on the embedded engines)', configSchema);

const args = process.argv.slice(2);
let replicas = 1;
const unknown: string[] = [];
for (let i = 0; i < args.length; i++) {
  const arg = args[i]!;
  if (arg === '--reset') continue;
  const value = arg === '--replicas' ? args[++i] : arg.startsWith('--replicas=') ? arg.slice('--replicas='.length) : undefined;
  if (value === undefined && arg !== '--replicas') unknown.push(arg);
  else if (!/^[1-8]$/.test(value ?? '')) {
    console.error(`--replicas takes a number from 1 to 8, not ${value === undefined ? 'nothing' : `'${value}'`}\n${USAGE}`);
    process.exit(2);
  } else replicas = Number(value);
}
if (unknown.length > 0) {
  console.error(`unknown argument(s): ${unknown.join(' ')}\n${USAGE}`);
  process.exit(2);
}

runMain(async () => {
  const config = loadConfigOrExit(configSchema);
  checkEngineConfig({ STORE: 'memory', BUS: 'memory', ...config });
  const dataDir = config.DATA_DIR ? resolve(config.DATA_DIR) : '';
  if (args.includes('--reset') && dataDir) {
    resetDataDir(dataDir);
    console.log(`  Deleted ${dataDir} (--reset)`);
  }
  const stack = await startStack({
    dataDir,
    busRetentionHours: config.BUS_RETENTION_HOURS,
    port: config.PORT,
    adminPort: config.ADMIN_PORT,
    host: config.HOST,
    logLevel: config.LOG_LEVEL,
    adminToken: config.ADMIN_TOKEN,
    // The demo workspace is connected to a simulated PMS-A account, synced every 30 s.
    demoPms: true,
    pmsSimulatorPort: config.PMS_SIMULATOR_PORT,
    pmsSyncIntervalMs: config.PMS_SYNC_INTERVAL_MS,
    grpcInProcess: config.GRPC_IN_PROCESS === '1',
    replicas,
  });
  console.log(`
  API         ${stack.publicBaseUrl}/v1
  Docs        ${stack.publicBaseUrl}/docs
  Admin API   ${stack.adminBaseUrl}/admin/v1   (private listener, also /metrics; never expose it publicly)
  Demo key    ${stack.demo ? `${stack.demo.apiKey}   (workspace ${stack.demo.workspaceId})` : `${DEMO_API_KEY}   (created on the first start)`}
  Data        ${stack.dataDir ? `${stack.dataDir}   (${stack.demo ? 'new: demo data seeded' : 'loaded from disk'}; pnpm start --reset deletes it)` : 'in memory only (DATA_DIR is empty): gone when the process stops'}
  Admin token ${stack.adminToken}
  PMS sim     ${stack.pmsSimulator.url}   (control API: /_control; demo account PMS-A/demo)
  Replicas    ${stack.replicas === 1 ? '1 of every service (--replicas N for more)' : `${stack.replicas} of every service and of the gateway (${stack.gateways.map((g) => g.port).join(', ')}) behind ${stack.publicBaseUrl}`}

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
