// Bundles each service's main.ts (with the workspace packages it imports, which ship as
// TypeScript sources) into services/<name>/dist/main.js for the container images. Third-party
// packages stay external and are installed as production dependencies in the image.
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { bundleEntry } from './esbuild-bundle.mjs';

const services = readdirSync('services').filter((s) => existsSync(join('services', s, 'src', 'main.ts')));
const extra = [{ name: 'stack', entry: 'packages/stack/src/main.ts', out: 'packages/stack/dist/main.js' }];
const targets = [
  ...services.map((s) => ({ name: s, entry: `services/${s}/src/main.ts`, out: `services/${s}/dist/main.js` })),
  ...extra.filter((t) => existsSync(t.entry)),
];

await Promise.all(targets.map((t) => bundleEntry(t.entry, t.out).then(() => console.log(`bundled ${t.name} -> ${t.out}`))));
