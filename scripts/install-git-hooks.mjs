// `pnpm install` runs this (the root's `prepare` script): it points git at the hooks kept in
// .githooks/ (core.hooksPath), so every clone checks its commit messages with the hooks of its
// own checkout and nothing is copied into .git. Skipped, successfully, where there is nothing to
// install into: in CI (CI is set), in a container build or an unpacked tarball (no .git), or
// without git.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

function skip(reason) {
  console.log(`git hooks not installed: ${reason}`);
  process.exit(0);
}

if (process.env.CI) skip('CI is set');
if (!existsSync('.git')) skip('no .git here');
try {
  execFileSync('git', ['config', 'core.hooksPath', '.githooks'], { stdio: 'ignore' });
} catch {
  skip('git is not available');
}
console.log('git hooks installed: .githooks (core.hooksPath)');
