// Bundles one entry point the way scripts/bundle.mjs bundles the services (workspace packages
// inlined, third-party packages external), for images of programs outside services/ such as
// the PMS simulator:  node deploy/docker/bundle-entry.mjs <entry.ts> <out.js>
import { build } from 'esbuild';

const [entry, outfile] = process.argv.slice(2);
if (!entry || !outfile) {
  console.error('usage: node deploy/docker/bundle-entry.mjs <entry.ts> <out.js>');
  process.exit(2);
}

const externalThirdParty = {
  name: 'external-third-party',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@vrp/') ? undefined : { path: args.path, external: true }));
  },
};

await build({
  entryPoints: [entry],
  outfile,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  plugins: [externalThirdParty],
  logLevel: 'warning',
});
process.stdout.write(`bundled ${entry} -> ${outfile}\n`);
