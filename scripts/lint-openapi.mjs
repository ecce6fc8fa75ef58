// Reads `redocly lint --format=json` (recommended rules, redocly.yaml) of the served OpenAPI
// document's snapshot from stdin and fails on any problem, warnings included (redocly itself
// fails on errors only). Run by `pnpm lint:openapi`.
import { readFileSync } from 'node:fs';

const input = readFileSync(0, 'utf8');
let problems;
try {
  problems = JSON.parse(input).problems;
} catch {
  console.error(`redocly lint gave no report:\n${input}`);
  process.exit(1);
}
for (const p of problems) console.error(`${p.severity} ${p.ruleId} ${p.location?.[0]?.pointer ?? ''}: ${p.message}`);
if (problems.length > 0) {
  console.error(`redocly lint: ${problems.length} problem(s) in sdk/typescript/openapi.json`);
  process.exit(1);
}
console.error('redocly lint: sdk/typescript/openapi.json has no errors and no warnings');
