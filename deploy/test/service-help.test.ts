// What `pnpm build` writes runs from where it is: every service's dist/main.js answers --help
// with its configuration (each variable of the schema that parses it), and started as
// production starts it, refuses the embedded engines and a secret given twice, naming the
// variables to set.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describeConfig, type ConfigVariable } from '@vrp/platform/config';
import { ROOT, serviceProcesses } from './support/env-catalog';

const run = promisify(execFile);
const processes = serviceProcesses();

/** Runs a built service; resolves with its exit code and output (never rejects on a non-zero exit). */
async function runBuilt(name: string, args: string[], env: Record<string, string>): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [join(ROOT, 'services', name, 'dist', 'main.js'), ...args], {
      cwd: tmpdir(), // from anywhere: nothing is resolved from the working directory
      env: { PATH: process.env.PATH ?? '', ...env },
      timeout: 30_000,
    });
    return { code: 0, output: stdout + stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

describe('the built services (pnpm build)', () => {
  jest.setTimeout(120_000);

  beforeAll(async () => {
    await run(process.execPath, ['scripts/bundle.mjs'], { cwd: ROOT });
  });

  it.each(processes.map((p) => [p.name, p] as const))(
    '%s answers --help with every variable, its type, default, and whether required and secret',
    async (name, proc) => {
      const { code, output } = await runBuilt(name, ['--help'], {});
      expect(code).toBe(0);
      const vars: ConfigVariable[] = proc.schemas.flatMap((s) => describeConfig(s as never));
      expect(vars.length).toBeGreaterThan(10);
      for (const v of vars) {
        const line = output.split('\n').find((l) => l.startsWith(`  ${v.name} `));
        expect({ name: v.name, line }).toEqual({ name: v.name, line: expect.stringContaining(v.type) });
        if (v.required) expect(line).toContain('required');
        else expect(line).toContain(`default ${v.defaultValue === undefined ? '(unset)' : JSON.stringify(v.defaultValue)}`);
        if (v.secret) expect(line).toContain(`secret, or ${v.name}_FILE`);
      }
    },
  );

  // The gateway's main and serviceMain (the same code for the five domain services): one of each.
  it.each([['gateway'], ['listing']] as const)('%s refuses the memory engines with NODE_ENV=production, naming what to set', async (name) => {
    const env = { NODE_ENV: 'production', ADMIN_TOKEN: 'a'.repeat(24), API_KEY_PEPPER: 'p'.repeat(40), GATEWAY_PORT: '0', GATEWAY_ADMIN_PORT: '0' };
    const { code, output } = await runBuilt(name, [], env);
    expect(code).toBe(1);
    expect(output).toMatch(/STORE=memory.*refused with NODE_ENV=production/);
    for (const hint of ['STORE=mongo and MONGO_URL', 'ALLOW_EMBEDDED_ENGINES=true and DATA_DIR']) expect(output).toContain(hint);
  });

  it('the gateway refuses a secret given as a variable and as a file, naming both', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vrp-secret-'));
    writeFileSync(join(dir, 'admin-token'), `${'b'.repeat(24)}\n`);
    const { code, output } = await runBuilt('gateway', [], {
      ADMIN_TOKEN: 'a'.repeat(24),
      ADMIN_TOKEN_FILE: join(dir, 'admin-token'),
      API_KEY_PEPPER: 'p'.repeat(40),
    });
    expect(code).toBe(1);
    expect(output).toContain('ADMIN_TOKEN and ADMIN_TOKEN_FILE: both are set');
  });
});
