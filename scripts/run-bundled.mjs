// Runs a TypeScript program the way the images run the services: bundled by esbuild (the
// workspace packages inlined, scripts/esbuild-bundle.mjs), with source maps for stack traces.
// `pnpm start` and `pnpm bench` use it, so what they run and measure is the code as it ships,
// not the sources through a development loader (tsx wraps every cross-module binding in a getter
// and every function in a naming call; the bundle has neither; docs/architecture.md).
//   node scripts/run-bundled.mjs <entry.ts> [args...]
// Bundling takes about half a second; the bundle goes to node_modules/.cache/vrp-bundles.
import { createRequire } from 'node:module';
import { bundleToRunHere } from './esbuild-bundle.mjs';

const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  console.error('usage: node scripts/run-bundled.mjs <entry.ts> [args...]');
  process.exit(2);
}
const outfile = await bundleToRunHere(entry);
process.setSourceMapsEnabled(true);
// The program sees its own arguments, as if it had been started directly.
process.argv = [process.argv[0], outfile, ...args];
createRequire(import.meta.url)(outfile);
