// Bundles each service's main.ts (with the workspace packages it imports, which ship as
// TypeScript sources) into services/<name>/dist/main.js for the container images. Third-party
// packages stay external and are installed as production dependencies in the image.
import { build } from 'esbuild';
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const services = readdirSync('services').filter((s) => existsSync(join('services', s, 'src', 'main.ts')));
const extra = [{ name: 'stack', entry: 'packages/stack/src/main.ts', out: 'packages/stack/dist/main.js' }];
const targets = [
  ...services.map((s) => ({ name: s, entry: `services/${s}/src/main.ts`, out: `services/${s}/dist/main.js` })),
  ...extra.filter((t) => existsSync(t.entry)),
];

// Every bare import that is not one of ours stays external.
const externalThirdParty = {
  name: 'external-third-party',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@vrp/') ? undefined : { path: args.path, external: true }));
  },
};

await Promise.all(
  targets.map((t) =>
    build({
      entryPoints: [t.entry],
      outfile: t.out,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      sourcemap: true,
      plugins: [externalThirdParty],
      logLevel: 'warning',
    }).then(() => console.log(`bundled ${t.name} -> ${t.out}`)),
  ),
);
