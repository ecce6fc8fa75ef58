#!/usr/bin/env bash
# Assembles the runtime tree of one image: <out>/dist/main.js (the bundle, workspace packages
# inlined) and <out>/node_modules (the package's production dependencies only, flat, so that
# `require('kafkajs')` from dist/main.js resolves without the workspace's symlinks).
# The Dockerfiles run it in their build stage, and e2e/image-runtime.test.ts runs it to prove the
# tree boots, so both assemble the image the same way. Run from the repository root:
#
#   deploy/docker/assemble.sh <package> <bundle.js> <out> [pnpm install flags, e.g. --offline]
#
# The dependencies come from a filtered, production-only install of the workspace's manifests
# with the frozen lockfile: exactly the versions CI tested. (`pnpm deploy` cannot do that here:
# its lockfile-based mode needs injected workspace packages, and its legacy mode re-resolves
# versions from the registry.)
set -euo pipefail
package="$1"
bundle="$2"
out="$3"
shift 3
test -f "$bundle" || { echo "assemble: no bundle at $bundle (run node scripts/bundle.mjs first)" >&2; exit 1; }
staging="$(mktemp -d)"
trap 'rm -rf "$staging"' EXIT
# The install reads only manifests: the root's, the lockfile, and every workspace project's.
cp package.json pnpm-workspace.yaml pnpm-lock.yaml "$staging/"
find packages services tools e2e bench sdk -name package.json -not -path '*/node_modules/*' -exec cp --parents {} "$staging/" \;
(cd "$staging" && pnpm install --prod --frozen-lockfile --filter "${package}..." --config.node-linker=hoisted --reporter=silent "$@")
# Workspace packages are inlined in the bundle; bins are not run in the image.
rm -rf "$staging/node_modules/@vrp" "$staging/node_modules/.bin" "$staging/node_modules/.pnpm" "$staging/node_modules/.modules.yaml" "$staging/node_modules/.pnpm-workspace-state-v1.json"
mkdir -p "$out/dist"
rm -rf "$out/node_modules"
mv "$staging/node_modules" "$out/node_modules"
cp "$bundle" "$out/dist/main.js"
if [ -f "$bundle.map" ]; then cp "$bundle.map" "$out/dist/main.js.map"; fi
echo "assembled $package -> $out"
