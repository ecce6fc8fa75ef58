// The stack under test of the crash test, as a child process: the embedded stack on free ports,
// keeping its data in DATA_DIR. It prints one JSON line with its addresses once it serves, and
// runs until it is killed.
import { startStack } from '@vrp/stack';

void (async () => {
  const dataDir = process.env.DATA_DIR;
  if (!dataDir) throw new Error('crash-child needs DATA_DIR');
  const stack = await startStack({
    port: 0,
    ephemeralPorts: true,
    logLevel: process.env.TEST_LOG_LEVEL ?? 'silent',
    dataDir,
    // Deliveries claimed by a killed process are sent again after this lease (above the 10 s send
    // timeout), instead of the default 60 s, to keep the test short.
    webhookLeaseMs: 12_000,
  });
  process.stdout.write(
    `${JSON.stringify({ ready: true, baseUrl: stack.baseUrl, adminBaseUrl: stack.adminBaseUrl, adminToken: stack.adminToken, pmsSimulatorUrl: stack.pmsSimulator.url, demo: stack.demo })}\n`,
  );
})().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
