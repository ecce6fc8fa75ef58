// `pnpm bench`: runs every bench/*.bench.ts in its own process, one after the other, and
// prints their reports. Each benchmark is bounded in time and stops by itself.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const only = process.argv.slice(2);
const files = readdirSync(__dirname)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

let failed = 0;
for (const file of files) {
  console.log(`\n=== ${file} ===`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, file)], { stdio: 'inherit', timeout: 10 * 60_000 });
  if (result.status !== 0) {
    failed += 1;
    console.log(`${file} failed (exit ${result.status ?? result.signal})`);
  }
}
process.exit(failed ? 1 : 0);
