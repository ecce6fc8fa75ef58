// `redocly lint` (recommended rules, redocly.yaml) of the served OpenAPI document's snapshot;
// fails on any problem, warnings included (redocly itself fails on errors only).
import { spawnSync } from 'node:child_process';

const run = spawnSync('redocly', ['lint', '--format=json', 'sdk/typescript/openapi.json'], {
  encoding: 'utf8',
  env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  maxBuffer: 64 * 1024 * 1024,
});
let problems;
try {
  problems = JSON.parse(run.stdout).problems;
} catch {
  console.error(run.stdout, run.stderr);
  process.exit(1);
}
for (const p of problems) console.error(`${p.severity} ${p.ruleId} ${p.location?.[0]?.pointer ?? ''}: ${p.message}`);
if (problems.length > 0 || run.status !== 0) {
  console.error(`redocly lint: ${problems.length} problem(s) in sdk/typescript/openapi.json`);
  process.exit(1);
}
console.log('redocly lint: sdk/typescript/openapi.json has no errors and no warnings');
