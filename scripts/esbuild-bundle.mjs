// How this repository bundles a program for a container image, written once for
// scripts/bundle.mjs (the services) and deploy/docker/bundle-entry.mjs (programs outside
// services/, such as the PMS simulator): the workspace packages it imports, which ship as
// TypeScript sources, are inlined; third-party packages stay external and are installed as
// production dependencies in the image.
import { build } from 'esbuild';

// Every bare import that is not one of ours stays external.
const externalThirdParty = {
  name: 'external-third-party',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@vrp/') ? undefined : { path: args.path, external: true }));
  },
};

/** Bundles `entry` (a .ts entry point) into `outfile` (CommonJS for Node 20, with a source map). */
export function bundleEntry(entry, outfile) {
  return build({
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
}
