// The env vars each deployable process reads, derived from the code (never listed by hand), so
// that a variable added to a service fails the deployment consistency test until
// docker-compose.yml, the Helm chart and docs/operations.md wire it.
//
// Sources, per process:
// - the shared service config: serviceSchema(definition), the ServiceDefinition its config.ts
//   exports (name, prefix, defaults, own settings) and its main.ts passes to serviceMain;
// - the gateway's gatewayConfigSchema (its config.ts, below);
// - every zod object exported by a `config.ts` of the process, and the upper-case keys of
//   `z.object({...})` literals in any of its source files that read the environment
//   (process.env, loadConfigOrExit, parseConfig);
// - `process.env.X` reads in its sources and in the workspace packages every process bundles
//   (e.g. LOG_LEVEL in packages/platform/src/logging.ts).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { serviceSchema, type ServiceDefinition } from '@vrp/platform/service';

export const ROOT = join(__dirname, '..', '..', '..');

/** One env var: its name and its default as the code applies it (undefined = none/required). */
export interface EnvVar {
  name: string;
  /** The default the code applies when unset, as a string; undefined when there is none. */
  defaultValue: string | undefined;
  required: boolean;
  /** Marked secret() in its schema: also read from <NAME>_FILE. */
  secret?: boolean;
  /** Where it was found, for failure messages. */
  source: string;
}

export interface ProcessEnv {
  /** Process name: the compose service name and the Helm `services.<x>.name`. */
  name: string;
  kind: 'gateway' | 'grpc' | 'tool';
  /** Env prefix of a gRPC service (LISTING); undefined for the gateway and tools. */
  prefix?: string;
  defaults?: { grpc: number; ops: number; db: string };
  vars: Map<string, EnvVar>;
  /** zod objects that parse this process's environment (shape-checked in the test). */
  schemas: ZodObjectLike[];
}

export interface ZodObjectLike {
  shape: Record<string, ZodLike>;
  safeParse(input: unknown): { success: boolean; data?: unknown; error?: { issues: { path: PropertyKey[]; message: string }[] } };
}
interface ZodLike {
  safeParse(input: unknown): { success: boolean; data?: unknown };
  meta?(): Record<string, unknown> | undefined;
}

function isZodObject(value: unknown): value is ZodObjectLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    'shape' in value &&
    typeof (value as { safeParse?: unknown }).safeParse === 'function' &&
    typeof (value as { shape: unknown }).shape === 'object'
  );
}

/** The default a schema field applies to an unset variable (as a string), or undefined. */
function defaultOf(field: ZodLike): { defaultValue: string | undefined; required: boolean } {
  const parsed = field.safeParse(undefined);
  if (!parsed.success) return { defaultValue: undefined, required: true };
  return { defaultValue: parsed.data === undefined ? undefined : String(parsed.data), required: false };
}

function addSchema(env: ProcessEnv, schema: ZodObjectLike, source: string): void {
  env.schemas.push(schema);
  for (const [name, field] of Object.entries(schema.shape)) {
    const known = env.vars.get(name);
    const { defaultValue, required } = defaultOf(field);
    // The first schema wins (the shared config), later ones may only add what it lacks.
    if (!known) env.vars.set(name, { name, defaultValue, required, secret: field.meta?.()?.secret === true, source });
    else if (known.defaultValue === undefined && defaultValue !== undefined) known.defaultValue = defaultValue;
  }
}

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (path.endsWith('.ts') && !path.endsWith('.test.ts') && !path.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** `process.env.X` or `process.env['X']`, with its `?? 'default'` when there is one. */
const ENV_READ = /process\.env(?:\.([A-Z][A-Z0-9_]*)|\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\])(?:\s*(?:\?\?|\|\|)\s*(['"])([^'"]*)\3)?/g;
const READS_ENV = /process\.env|loadConfigOrExit\(|parseConfig\(/;
const SCHEMA_KEY = /^\s*([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\s*:(.*)$/gm;

/**
 * The default of a schema field not reachable by import (a schema local to a main.ts), read
 * from its source line: `.default(<literal>)` or the platform's `port(<n>)`.
 */
function literalDefault(definition: string): { defaultValue: string | undefined; required: boolean } {
  const m = /\.default\(\s*([^)]*?)\s*\)|\bport\(\s*([\d_]+)\s*\)/.exec(definition);
  const literal = m?.[1] ?? m?.[2];
  if (literal === undefined) return { defaultValue: undefined, required: !/\.optional\(\)/.test(definition) };
  const unquoted = /^(['"`])(.*)\1$/.exec(literal)?.[2];
  return { defaultValue: unquoted ?? literal.replace(/_/g, ''), required: false };
}

/** `process.env.X` reads, and upper-case keys of zod objects in files that read the env. */
function scanSources(env: ProcessEnv, files: string[]): void {
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const source = relative(ROOT, file);
    for (const m of text.matchAll(ENV_READ)) {
      const name = (m[1] ?? m[2])!;
      if (!env.vars.has(name)) env.vars.set(name, { name, defaultValue: m[4], required: false, source });
    }
    if (READS_ENV.test(text) && text.includes('z.object(')) {
      for (const m of text.matchAll(SCHEMA_KEY)) {
        const name = m[1]!;
        if (!env.vars.has(name)) env.vars.set(name, { name, ...literalDefault(m[2] ?? ''), source });
      }
    }
  }
}

/** Exported zod objects of `<dir>/src/config.ts`, when it exists. */
function configModuleSchemas(dir: string): { schema: ZodObjectLike; source: string }[] {
  const path = join(dir, 'src', 'config.ts');
  if (!existsSync(path)) return [];
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require(path) as Record<string, unknown>;
  return Object.values(mod)
    .filter(isZodObject)
    .map((schema) => ({ schema, source: relative(ROOT, path) }));
}

/** Workspace packages bundled into every process (their env reads apply to all). */
function sharedPackageFiles(): string[] {
  const dir = join(ROOT, 'packages');
  return readdirSync(dir)
    .filter((p) => p !== 'stack') // the embedded stack is not deployed
    .flatMap((p) => sourceFiles(join(dir, p, 'src')));
}

/** The ServiceDefinition a service's config.ts exports (what its main.ts gives serviceMain). */
function serviceDefinition(dir: string): ServiceDefinition | undefined {
  const path = join(dir, 'src', 'config.ts');
  if (!existsSync(path)) return undefined;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require(path) as Record<string, unknown>;
  return Object.values(mod).find((v): v is ServiceDefinition => typeof v === 'object' && v !== null && 'prefix' in v && 'defaults' in v && 'name' in v);
}

/** Every deployable process of services/ with the env vars it reads. */
export function serviceProcesses(): ProcessEnv[] {
  const shared = sharedPackageFiles();
  const dir = join(ROOT, 'services');
  return readdirSync(dir)
    .filter((name) => existsSync(join(dir, name, 'src', 'main.ts')))
    .sort()
    .map((dirName) => {
      const serviceDir = join(dir, dirName);
      let env: ProcessEnv;
      if (dirName === 'gateway') {
        // Its schema is the one its config.ts exports (read with every config.ts below).
        env = { name: 'gateway', kind: 'gateway', vars: new Map(), schemas: [] };
      } else {
        const def = serviceDefinition(serviceDir);
        if (!def)
          throw new Error(
            `services/${dirName}/src/config.ts exports no ServiceDefinition ({ name, prefix, defaults }); teach deploy/test/support/env-catalog.ts how it is configured`,
          );
        env = { name: def.name, kind: 'grpc', prefix: def.prefix, defaults: def.defaults, vars: new Map(), schemas: [] };
        addSchema(env, serviceSchema(def) as unknown as ZodObjectLike, 'packages/platform/src/service/main.ts');
      }
      for (const { schema, source } of configModuleSchemas(serviceDir)) addSchema(env, schema, source);
      scanSources(env, [...sourceFiles(join(serviceDir, 'src')), ...shared]);
      return env;
    });
}

/** Deployable programs of tools/ (the PMS simulator): env vars from their sources. */
export function toolProcesses(): ProcessEnv[] {
  const dir = join(ROOT, 'tools');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => existsSync(join(dir, name, 'src', 'main.ts')))
    .sort()
    .map((name) => {
      const env: ProcessEnv = { name, kind: 'tool', vars: new Map(), schemas: [] };
      for (const { schema, source } of configModuleSchemas(join(dir, name))) addSchema(env, schema, source);
      scanSources(env, sourceFiles(join(dir, name, 'src')));
      return env;
    });
}
