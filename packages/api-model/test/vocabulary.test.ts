// Each API enum, pattern and limit is defined once, in packages/api-model/src/vocabulary.ts: this
// test scans the hand-written sources of packages/ and services/ (not tests, not the test kit
// packages/testkit, not generated code)
// for a second definition of any of them. A hit names the file and line; import the constant
// from @vrp/api-model instead. tools/ is not scanned: the PMS simulator stands for outside
// systems and speaks their vocabulary, not the API's.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as vocabulary from '../src/vocabulary';

const ROOT = join(__dirname, '..', '..', '..');
const VOCABULARY_FILE = join(ROOT, 'packages', 'api-model', 'src', 'vocabulary.ts');
/** Test code, like *.test.ts: it speaks the simulator's (outside systems') vocabulary on purpose. */
const TESTKIT = join(ROOT, 'packages', 'testkit');

function sourceFiles(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'gen' ? [] : sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

/**
 * Where a definition the vocabulary re-exports lives: packages below api-model (it builds on
 * them, so they cannot import it).
 */
const HOMES: Record<string, string[]> = {
  [join('packages', 'platform', 'src', 'paging.ts')]: ['DEFAULT_PAGE_LIMIT', 'MAX_PAGE_LIMIT', 'MAX_PAGE_OFFSET'],
  [join('packages', 'platform', 'src', 'sandbox.ts')]: ['MODES'],
  [join('packages', 'platform', 'src', 'consumer', 'dead-letter-store.ts')]: ['DEAD_LETTER_REASONS', 'DEAD_LETTER_STATUS_FILTERS'],
  [join('packages', 'contracts', 'src', 'pms-sync.ts')]: ['WRITABLE_RESERVATION_STATUSES', 'MESSAGE_DIRECTIONS', 'REQUEST_STATUSES'],
};
const isHome = (path: string, name: string) => HOMES[path]?.includes(name) ?? false;

/** Every hand-written source file of packages/ and services/ except the vocabulary itself. */
const FILES = ['packages', 'services']
  .flatMap((top) =>
    readdirSync(join(ROOT, top), { withFileTypes: true })
      .filter((d) => d.isDirectory() && join(ROOT, top, d.name) !== TESTKIT)
      .map((d) => join(ROOT, top, d.name, 'src')),
  )
  .flatMap(sourceFiles)
  .filter((f) => f !== VOCABULARY_FILE)
  .map((path) => ({ path: relative(ROOT, path), text: readFileSync(path, 'utf8') }));

const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;

const ENTRIES: [string, unknown][] = Object.entries(vocabulary);
const SETS = ENTRIES.filter(
  (e): e is [string, readonly string[]] => Array.isArray(e[1]) && e[1].length >= 2 && e[1].every((v: unknown) => typeof v === 'string'),
);
const PATTERNS = ENTRIES.filter((e): e is [string, RegExp] => e[1] instanceof RegExp);
const LIMITS = ENTRIES.filter((e): e is [string, number] => typeof e[1] === 'number');

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && new Set([...a, ...b]).size === a.length;

/** String-literal sets written in a file: array literals (`['a', 'b']`) and literal unions (`'a' | 'b'`). */
function literalSets(text: string): { at: number; values: string[] }[] {
  const str = `(?:'[^'\\n]*'|"[^"\\n]*")`;
  const arrays = new RegExp(`\\[\\s*${str}(?:\\s*,\\s*${str})+\\s*,?\\s*\\]`, 'g');
  const unions = new RegExp(`${str}(?:\\s*\\|\\s*${str})+`, 'g');
  const found: { at: number; values: string[] }[] = [];
  for (const re of [arrays, unions]) {
    for (const m of text.matchAll(re)) found.push({ at: m.index, values: [...m[0].matchAll(new RegExp(str, 'g'))].map((s) => s[0].slice(1, -1)) });
  }
  return found;
}

describe('the API vocabulary is defined once', () => {
  it('finds the sources it scans (the scan itself works)', () => {
    expect(FILES.length).toBeGreaterThan(100);
    expect(FILES.some((f) => f.path === join('services', 'reservation', 'src', 'domain', 'writes.ts'))).toBe(true);
    expect(SETS.map(([name]) => name)).toEqual(expect.arrayContaining(['RESERVATION_STATUSES', 'REQUEST_STATUSES', 'DELIVERY_STATUSES', 'MODES']));
    expect(literalSets(`const s = ['b', "a"]; type T = 'a' | 'b';`).map((s) => s.values)).toEqual([
      ['b', 'a'],
      ['a', 'b'],
    ]);
  });

  it('writes no enum literal set a second time (as an array or a union of literals)', () => {
    const again: string[] = [];
    for (const file of FILES) {
      for (const set of literalSets(file.text)) {
        const same = SETS.find(([, values]) => sameSet(values, set.values));
        if (same && !isHome(file.path, same[0])) again.push(`${file.path}:${lineOf(file.text, set.at)} repeats ${same[0]}`);
      }
    }
    expect(again).toEqual([]);
  });

  it('writes no pattern a second time', () => {
    const again: string[] = [];
    for (const file of FILES) {
      for (const [name, re] of PATTERNS) {
        const at = file.text.indexOf(`/${re.source}/`);
        if (at >= 0) again.push(`${file.path}:${lineOf(file.text, at)} repeats ${name}`);
      }
    }
    expect(again).toEqual([]);
  });

  it('defines no limit a second time under its name or as a literal bound of a check', () => {
    const again: string[] = [];
    // Limits of the API's input: the schemas and the services (not the processes' env config).
    const checked = FILES.filter((f) => /^(packages\/api-model|services)\//.test(f.path) && !f.path.endsWith('config.ts'));
    for (const file of FILES) {
      // 10_000 and 10000 are the same literal.
      const text = file.text.replace(/(\d)_(?=\d)/g, '$1');
      for (const [name, value] of LIMITS) {
        const redefined = new RegExp(`\\bconst ${name}\\s*(?::[^=]+)?=\\s*\\d`).exec(text);
        if (redefined && !isHome(file.path, name)) again.push(`${file.path}:${lineOf(text, redefined.index)} redefines ${name}`);
        // Small numbers (1, 10, 50, 100) bound many unrelated things; distinctive ones do not.
        if (value < 200 || !checked.includes(file)) continue;
        const bound = new RegExp(
          `(?:\\.max\\(\\s*${value}\\b|length\\s*>=?\\s*${value}\\b|\\bmax[lL]ength:\\s*${value}\\b|\\bMAX_[A-Z_]*\\s*=\\s*${value}\\b)`,
        ).exec(text);
        if (bound) again.push(`${file.path}:${lineOf(text, bound.index)} writes ${value} (${name}) as a literal`);
      }
    }
    expect(again).toEqual([]);
  });
});
