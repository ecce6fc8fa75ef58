// The commit-msg check as a developer meets it: `pnpm install`'s prepare step
// (scripts/install-git-hooks.mjs) points a fresh repository at .githooks/, and `git commit` then
// refuses a subject over 72 characters and accepts one of 72. Each case runs in a repository of its
// own holding a copy of the hook and the scripts, as a clone does.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const CHECK = join(ROOT, 'scripts', 'check-commit-msg.mjs');

function check(message: string): { status: number | null; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), 'vrp-commit-msg-'));
  try {
    const file = join(dir, 'COMMIT_EDITMSG');
    writeFileSync(file, message);
    const result = spawnSync(process.execPath, [CHECK, file], { encoding: 'utf8' });
    return { status: result.status, stderr: result.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('scripts/check-commit-msg.mjs', () => {
  it('accepts a subject of exactly 72 characters with a body after a blank line', () => {
    expect(check(`${'a'.repeat(72)}\n\nThe detail, in lines as long as they need to be ${'x'.repeat(100)}\n`)).toEqual({ status: 0, stderr: '' });
  });

  it('refuses a subject of 73 characters, naming its length and the limit', () => {
    const { status, stderr } = check(`${'a'.repeat(73)}\n`);
    expect(status).toBe(1);
    expect(stderr).toContain('The subject has 73 characters; at most 72 are allowed.');
  });

  it('counts characters, not bytes, and ignores git comment lines', () => {
    expect(check(`# Please enter the commit message\n${'é'.repeat(72)}\n# ${'c'.repeat(200)}\n`).status).toBe(0);
  });

  it('refuses an empty message and a body glued to the subject', () => {
    expect(check('# only comments\n\n').stderr).toContain('The commit message is empty');
    expect(check('Fix the relay\nwith no blank line\n').stderr).toContain('Leave a blank line between the subject and the body.');
  });
});

describe('the commit-msg hook installed by pnpm install', () => {
  const repo = mkdtempSync(join(tmpdir(), 'vrp-hook-repo-'));
  const git = (...args: string[]) => spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo, encoding: 'utf8' });

  beforeAll(() => {
    execFileSync('git', ['init', '-q'], { cwd: repo });
    mkdirSync(join(repo, 'scripts'));
    cpSync(join(ROOT, '.githooks'), join(repo, '.githooks'), { recursive: true });
    for (const f of ['check-commit-msg.mjs', 'install-git-hooks.mjs']) cpSync(join(ROOT, 'scripts', f), join(repo, 'scripts', f));
    const env = { ...process.env };
    delete env.CI;
    execFileSync(process.execPath, ['scripts/install-git-hooks.mjs'], { cwd: repo, env });
    writeFileSync(join(repo, 'file.txt'), 'x\n');
    git('add', '.');
  });
  afterAll(() => rmSync(repo, { recursive: true, force: true }));

  it('points git at .githooks', () => {
    expect(git('config', 'core.hooksPath').stdout.trim()).toBe('.githooks');
  });

  it('refuses a commit whose subject is too long and keeps nothing', () => {
    const refused = git('commit', '-q', '-m', `Describe the change in far more words than any subject line should ever hold`);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('at most 72 are allowed');
    expect(git('rev-parse', '--verify', '-q', 'HEAD').status).not.toBe(0);
  });

  it('accepts a commit with a short subject', () => {
    expect(git('commit', '-q', '-m', 'Add the file', '-m', 'Why it is added.').status).toBe(0);
    expect(git('log', '--format=%s').stdout.trim()).toBe('Add the file');
  });

  it('is skipped, successfully, in CI and where there is no .git', () => {
    const inCi = spawnSync(process.execPath, [join(ROOT, 'scripts', 'install-git-hooks.mjs')], {
      cwd: repo,
      env: { ...process.env, CI: 'true' },
      encoding: 'utf8',
    });
    expect([inCi.status, inCi.stdout.trim()]).toEqual([0, 'git hooks not installed: CI is set']);
    const bare = mkdtempSync(join(tmpdir(), 'vrp-no-git-'));
    const env = { ...process.env };
    delete env.CI;
    const noGit = spawnSync(process.execPath, [join(ROOT, 'scripts', 'install-git-hooks.mjs')], { cwd: bare, env, encoding: 'utf8' });
    rmSync(bare, { recursive: true, force: true });
    expect([noGit.status, noGit.stdout.trim()]).toEqual([0, 'git hooks not installed: no .git here']);
  });
});
