// The repository stands alone: every relative link of README.md and docs/*.md resolves inside a
// clone (the file exists; a #fragment names a heading of the target page, as GitHub renders
// anchors), nothing links outside the repository, and the files a clone needs are there (LICENSE,
// .nvmrc agreeing with the Dockerfiles and package.json, the documented Node version policy).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = join(__dirname, '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The text of a page without fenced code blocks and inline code (links there are not links). */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** Link targets of a markdown page: inline links and images, reference definitions. */
export function linkTargets(markdown: string): string[] {
  const text = prose(markdown);
  const inline = [...text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
  const references = [...text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map((m) => m[1]!);
  return [...inline, ...references];
}

/** Heading anchors as GitHub generates them: lower case, punctuation dropped, spaces to hyphens, -1, -2 for repeats. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = m[1]!
      .replace(/`/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target); // http:, https:, mailto:

describe('links in README.md and docs/*.md', () => {
  it('finds the pages and their links', () => {
    expect(PAGES).toEqual(expect.arrayContaining(['README.md', 'docs/api.md', 'docs/operations.md', 'docs/architecture.md']));
    expect(linkTargets(read('README.md')).length).toBeGreaterThan(5);
  });

  it.each(PAGES)('%s: every relative link resolves inside the repository', (page) => {
    const problems: string[] = [];
    for (const target of linkTargets(read(page))) {
      if (isExternal(target)) continue;
      const [pathPart = '', fragment] = target.split('#') as [string, string | undefined];
      const file = pathPart ? resolve(ROOT, dirname(page), decodeURI(pathPart)) : join(ROOT, page);
      const inside = relative(ROOT, file);
      if (inside.startsWith('..') || inside.startsWith('/')) {
        problems.push(`${target}: outside the repository`);
        continue;
      }
      if (!existsSync(file)) {
        problems.push(`${target}: no such file`);
        continue;
      }
      if (fragment && statSync(file).isFile() && file.endsWith('.md') && !anchors(readFileSync(file, 'utf8')).has(fragment))
        problems.push(`${target}: no heading #${fragment}`);
    }
    expect(problems).toEqual([]);
  });

  it('the checker catches a broken file link, a broken anchor and a link out of the clone', () => {
    const page = '# Top\n\n## Node versions\n\n[a](docs/none.md) [b](#node-versions) [c](#missing) [d](../shared/spec/interface.md) `[e](nope.md)`';
    expect(linkTargets(page)).toEqual(['docs/none.md', '#node-versions', '#missing', '../shared/spec/interface.md']);
    expect([...anchors(page)]).toEqual(['top', 'node-versions']);
  });

  it('no page cites the workspace outside the repository (shared/...)', () => {
    for (const page of PAGES)
      expect({ page, cites: /(^|[\s(`])\.{0,2}\/?shared\/(spec|design|conventions)/m.test(read(page)) }).toEqual({ page, cites: false });
  });
});

describe('what a clone needs', () => {
  it('has an MIT LICENSE held by the VRP maintainers', () => {
    const license = read('LICENSE');
    expect(license).toMatch(/^MIT License/);
    expect(license).toMatch(/Copyright \(c\) \d{4} VRP maintainers/);
    expect(license).toContain('THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND');
  });

  it('pins Node 20 the same way in .nvmrc, package.json, the Dockerfiles and the README', () => {
    const nvmrc = read('.nvmrc').trim();
    expect(nvmrc).toMatch(/^20(\.\d+)*$/);
    const pkg = JSON.parse(read('package.json')) as { engines: { node: string } };
    expect(pkg.engines.node).toBe('>=20');
    for (const file of ['deploy/docker/Dockerfile.service', 'deploy/docker/Dockerfile.pms-simulator'])
      expect(read(file)).toMatch(/^ARG NODE_VERSION=20\.\d+$/m);
    expect(read('README.md')).toMatch(/## Node versions/);
  });
});
