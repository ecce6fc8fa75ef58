// Where the engines may be imported from (README.md, "Import rules"): the platform's sources hold
// the ports and never an engine; a service picks its engines in its composition root only.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../..');
const ENGINES_DIR = join(ROOT, 'packages', 'engines');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** The module specifiers a file imports or re-exports from. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+'([^']+)'/gms)].map((m) => m[1] as string);
}

/** True when `spec`, imported by `file`, names the engines package or a file inside it. */
function reachesEngines(file: string, spec: string): boolean {
  if (spec === '@vrp/engines' || spec.startsWith('@vrp/engines/')) return true;
  return spec.startsWith('.') && resolve(file, '..', spec).startsWith(ENGINES_DIR);
}

function offenders(files: string[], allowed: (file: string) => boolean): string[] {
  return files.filter((f) => !allowed(f) && importsOf(f).some((spec) => reachesEngines(f, spec))).map((f) => relative(ROOT, f));
}

describe('imports of the engines', () => {
  it('reads the imports of a file (the check can see an engine import)', () => {
    const stack = join(ROOT, 'packages', 'stack', 'src', 'stack.ts');
    expect(importsOf(stack).filter((spec) => reachesEngines(stack, spec))).toEqual(expect.arrayContaining(['@vrp/engines/store']));
  });

  it('the platform sources import no engine: they hold the ports', () => {
    expect(offenders(sourceFiles(join(ROOT, 'packages', 'platform', 'src')), () => false)).toEqual([]);
  });

  it('a service imports an engine only in its composition root (main.ts, app.ts)', () => {
    const services = readdirSync(join(ROOT, 'services')).map((s) => join(ROOT, 'services', s, 'src'));
    const files = services.flatMap((dir) => sourceFiles(dir));
    expect(files.length).toBeGreaterThan(50);
    const root = (f: string) => services.some((dir) => f === join(dir, 'main.ts') || f === join(dir, 'app.ts'));
    expect(offenders(files, root)).toEqual([]);
  });

  it('no other package but the stack opens an engine', () => {
    const packages = readdirSync(join(ROOT, 'packages')).filter((p) => p !== 'engines' && p !== 'stack');
    const files = packages.flatMap((p) => sourceFiles(join(ROOT, 'packages', p, 'src')));
    expect(offenders(files, () => false)).toEqual([]);
  });
});
