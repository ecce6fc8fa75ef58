// How this repository bundles a program, written once for scripts/bundle.mjs (the services, for
// their images), deploy/docker/bundle-entry.mjs (programs outside services/, such as the PMS
// simulator) and scripts/run-bundled.mjs (`pnpm start`, `pnpm bench`: the same kind of bundle,
// run on this machine): the workspace packages it imports, which ship as TypeScript sources, are
// inlined; third-party packages stay external.
import { createRequire, isBuiltin } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

// Every bare import that is not one of ours stays external: an image installs them as production
// dependencies next to the bundle.
const externalThirdParty = {
  name: 'external-third-party',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@vrp/') ? undefined : { path: args.path, external: true }));
  },
};

// On this machine the bundle is not next to node_modules: each third-party import is resolved
// where its importer lives (pnpm gives every package its own dependencies) and stays external
// by that absolute path, so it loads exactly the module the TypeScript sources would.
const externalThirdPartyHere = {
  name: 'external-third-party-here',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('@vrp/')) return undefined;
      if (isBuiltin(args.path)) return { path: args.path, external: true };
      return { path: createRequire(join(args.resolveDir, 'index.js')).resolve(args.path), external: true };
    });
  },
};

/** This repository's root (scripts/..): the bundles of `bundleToRunHere` go under its node_modules. */
const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

const common = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', sourcemap: true, logLevel: 'warning' };

/** Bundles `entry` (a .ts entry point) into `outfile` (CommonJS for Node 20, with a source map). */
export function bundleEntry(entry, outfile) {
  return build({ ...common, entryPoints: [entry], outfile, plugins: [externalThirdParty] });
}

/**
 * Bundles `entry` to run on this machine; resolves with the bundle's path, under
 * node_modules/.cache/vrp-bundles. `__dirname` and `__filename` keep the entry's own values, so a
 * script that finds files next to itself still does.
 */
export async function bundleToRunHere(entry) {
  const source = resolve(entry);
  // Named after the entry's place in this repository, whatever the caller's working directory.
  const outfile = join(REPO_ROOT, 'node_modules/.cache/vrp-bundles', `${relative(REPO_ROOT, source).replace(/[\\/]/g, '__').replace(/\.ts$/, '')}.js`);
  await bundleToRunAt(entry, outfile);
  return outfile;
}

/** Bundles `entry` into `outfile` to run on this machine, from where it is (see bundleToRunHere). */
export async function bundleToRunAt(entry, outfile) {
  const source = resolve(entry);
  await build({
    ...common,
    entryPoints: [source],
    outfile,
    plugins: [externalThirdPartyHere],
    define: { __dirname: JSON.stringify(dirname(source)), __filename: JSON.stringify(source) },
  });
}
