// `pnpm build`: bundles each service's main.ts (with the workspace packages it imports, which
// ship as TypeScript sources) twice:
// - services/<name>/dist/main.js runs from where it is, in this checkout: `node
//   services/gateway/dist/main.js --help`. Its third-party imports point into this checkout's
//   node_modules (scripts/esbuild-bundle.mjs, the way `pnpm start` runs), so it needs nothing
//   else and cannot be copied elsewhere on its own.
// - services/<name>/dist/image/main.js is the container images' input: third-party packages
//   stay bare imports and deploy/docker/assemble.sh installs them next to it. The image is the
//   deployable artifact.
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { bundleEntry, bundleToRunAt } from './esbuild-bundle.mjs';

const services = readdirSync('services').filter((s) => existsSync(join('services', s, 'src', 'main.ts')));
const extra = [{ name: 'stack', entry: 'packages/stack/src/main.ts', dir: 'packages/stack/dist' }];
const targets = [
  ...services.map((s) => ({ name: s, entry: `services/${s}/src/main.ts`, dir: `services/${s}/dist` })),
  ...extra.filter((t) => existsSync(t.entry)),
];

await Promise.all(
  targets.map(async (t) => {
    await bundleToRunAt(t.entry, `${t.dir}/main.js`);
    await bundleEntry(t.entry, `${t.dir}/image/main.js`);
    console.log(`bundled ${t.name} -> ${t.dir}/main.js (node ${t.dir}/main.js --help), ${t.dir}/image/main.js (image input)`);
  }),
);
console.log('Deployable artifacts are the container images (deploy/docker, docs/operations.md); dist/main.js runs in this checkout.');
