// Bundles one entry point the way scripts/bundle.mjs bundles the services (workspace packages
// inlined, third-party packages external), for images of programs outside services/ such as
// the PMS simulator:  node deploy/docker/bundle-entry.mjs <entry.ts> <out.js>
import { bundleEntry } from '../../scripts/esbuild-bundle.mjs';

const [entry, outfile] = process.argv.slice(2);
if (!entry || !outfile) {
  console.error('usage: node deploy/docker/bundle-entry.mjs <entry.ts> <out.js>');
  process.exit(2);
}

await bundleEntry(entry, outfile);
process.stdout.write(`bundled ${entry} -> ${outfile}\n`);
