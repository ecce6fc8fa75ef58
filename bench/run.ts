// `pnpm bench`: runs every bench/*.bench.ts in its own process (bundled like the images' code,
// scripts/run-bundled.mjs), one after the other, and
// prints their reports. Each benchmark is bounded in time and stops by itself. A benchmark's
// `HEADLINE ...` line is repeated at the end; gateway-overhead runs first, its ratio is the
// headline figure.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const FIRST = 'gateway-overhead.bench.ts';
const RUN_BUNDLED = join(__dirname, '..', 'scripts', 'run-bundled.mjs');
const only = process.argv.slice(2);
const files = readdirSync(__dirname)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort((a, b) => Number(b === FIRST) - Number(a === FIRST) || a.localeCompare(b));

function run(file: string): Promise<{ status: number | null; signal: NodeJS.Signals | null; headlines: string[] }> {
  return new Promise((resolve) => {
    // Bundled, as the images run the code (scripts/run-bundled.mjs).
    const child = spawn(process.execPath, [RUN_BUNDLED, join(__dirname, file)], { stdio: ['inherit', 'pipe', 'inherit'] });
    const headlines: string[] = [];
    let pending = '';
    child.stdout.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) if (line.startsWith('HEADLINE ')) headlines.push(line.slice('HEADLINE '.length));
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 10 * 60_000);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      if (pending.startsWith('HEADLINE ')) headlines.push(pending.slice('HEADLINE '.length));
      resolve({ status, signal, headlines });
    });
  });
}

async function main(): Promise<void> {
  let failed = 0;
  const headlines: string[] = [];
  for (const file of files) {
    console.log(`\n=== ${file} ===`);
    const result = await run(file);
    headlines.push(...result.headlines);
    if (result.status !== 0) {
      failed += 1;
      console.log(`${file} failed (exit ${result.status ?? result.signal})`);
    }
  }
  if (headlines.length > 0) console.log(`\n=== headline ===\n${headlines.join('\n')}`);
  process.exit(failed ? 1 : 0);
}

void main();
