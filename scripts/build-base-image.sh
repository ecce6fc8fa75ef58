#!/usr/bin/env bash
# Builds the Dockerfiles' base image (`node:<NODE_VERSION>-bookworm-slim`) locally, for machines
# that reach no image registry: a Debian bookworm root from `debootstrap --variant=minbase`, this
# machine's Node (the `node` binary, npm and corepack, laid out as the official image lays them
# out under /usr/local), and a `node` user with uid/gid 1000. The result is committed under the
# exact name the Dockerfiles' FROM lines use, so `buildah bud --pull=never` finds it locally.
#
#   scripts/build-base-image.sh            # root; needs buildah and debootstrap
#
# Environment:
#   DEBIAN_MIRROR       mirror for debootstrap (default: the first URI of apt's configured
#                       Debian sources, else http://deb.debian.org/debian)
#   VRP_BASE_CACHE      where the debootstrap root is cached as a tarball
#                       (default /var/cache/vrp-base); delete it to bootstrap again
#   STORAGE_DRIVER      containers/storage driver (default vfs: works without overlay support)
#   FORCE=1             rebuild even when the image exists
#
# The image is a stand-in for the official one, built from the same distribution; it is not
# pushed anywhere. Where a registry is reachable (CI), the official image is pulled instead.
set -euo pipefail
cd "$(dirname "$0")/.."

STORAGE_DRIVER="${STORAGE_DRIVER:-vfs}"
CACHE="${VRP_BASE_CACHE:-/var/cache/vrp-base}"
bah=(buildah --storage-driver "$STORAGE_DRIVER")

need() {
  for tool in "$@"; do
    command -v "$tool" >/dev/null 2>&1 || { echo "build-base-image: $tool is not installed (apt-get install -y buildah podman runc debootstrap)" >&2; exit 1; }
  done
}
need buildah
[ "$(id -u)" = 0 ] || { echo "build-base-image: run as root (debootstrap and vfs storage need it)" >&2; exit 1; }

# The base image name and Node version come from the Dockerfiles themselves.
node_arg="$(sed -n 's/^ARG NODE_VERSION=//p' deploy/docker/Dockerfile.service)"
[ -n "$node_arg" ] || { echo "build-base-image: no ARG NODE_VERSION in deploy/docker/Dockerfile.service" >&2; exit 1; }
for f in deploy/docker/Dockerfile.*; do
  other="$(sed -n 's/^ARG NODE_VERSION=//p' "$f")"
  [ "$other" = "$node_arg" ] || { echo "build-base-image: $f has NODE_VERSION=$other, Dockerfile.service $node_arg" >&2; exit 1; }
done
image="docker.io/library/node:${node_arg}-bookworm-slim"

if [ "${FORCE:-0}" != 1 ] && "${bah[@]}" inspect --type image "$image" >/dev/null 2>&1; then
  echo "build-base-image: $image exists (FORCE=1 rebuilds it)"
  exit 0
fi

need debootstrap node
node_bin="$(readlink -f "$(command -v node)")"
node_version="$("$node_bin" -p 'process.versions.node')"
case "$node_version." in
  "$node_arg".*) ;;
  *) echo "build-base-image: this machine has Node $node_version, the Dockerfiles want $node_arg" >&2; exit 1 ;;
esac

mirror="${DEBIAN_MIRROR:-}"
if [ -z "$mirror" ]; then
  mirror="$(grep -hs -E '^(URIs:|deb) ' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null \
    | grep -E 'debian/?( |$)' | grep -v security | head -n1 | sed -E 's/^URIs: //; s/^deb (\[[^]]*\] )?//; s/ .*//' || true)"
fi
mirror="${mirror:-http://deb.debian.org/debian}"

# 1. The Debian root, bootstrapped once and cached (a minute or two on a fast mirror).
mkdir -p "$CACHE"
rootfs_tar="$CACHE/bookworm-minbase.tar"
if [ ! -s "$rootfs_tar" ]; then
  echo "build-base-image: debootstrap bookworm (minbase) from $mirror"
  root="$(mktemp -d "$CACHE/root.XXXXXX")"
  trap 'rm -rf "$root"' EXIT
  debootstrap --variant=minbase bookworm "$root" "$mirror"
  # What the slim image drops: apt lists and caches, logs, the bootstrap's own leftovers.
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
    "$root"/var/log/* "$root"/debootstrap
  tar -C "$root" --numeric-owner -cf "$rootfs_tar.tmp" .
  mv "$rootfs_tar.tmp" "$rootfs_tar"
  rm -rf "$root"
  trap - EXIT
fi

# 2. The image: the root, Node under /usr/local, the node user; committed under $image.
ctr="$("${bah[@]}" from scratch)"
trap '"${bah[@]}" rm "$ctr" >/dev/null 2>&1 || true' EXIT
mnt="$("${bah[@]}" mount "$ctr")"
tar -C "$mnt" --numeric-owner -xf "$rootfs_tar"
install -D -m 0755 "$node_bin" "$mnt/usr/local/bin/node"
node_modules="$(dirname "$(dirname "$node_bin")")/lib/node_modules"
mkdir -p "$mnt/usr/local/lib/node_modules"
for pkg in npm corepack; do
  [ -d "$node_modules/$pkg" ] && cp -a "$node_modules/$pkg" "$mnt/usr/local/lib/node_modules/$pkg"
done
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$mnt/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$mnt/usr/local/bin/npx"
[ -d "$mnt/usr/local/lib/node_modules/corepack" ] && ln -sf ../lib/node_modules/corepack/dist/corepack.js "$mnt/usr/local/bin/corepack"
# Every shared library node links against must be in the root (libstdc++, libgcc_s, libc...).
libs_in_root="$(chroot "$mnt" /sbin/ldconfig -p)"
for lib in $(ldd "$node_bin" | awk '/=>/ { print $1 }'); do
  grep -qF "$lib" <<<"$libs_in_root" || { echo "build-base-image: $lib (needed by node) is missing from the root" >&2; exit 1; }
done
chroot "$mnt" /usr/sbin/groupadd --gid 1000 node
chroot "$mnt" /usr/sbin/useradd --uid 1000 --gid node --shell /bin/bash --create-home node
"${bah[@]}" umount "$ctr" >/dev/null
"${bah[@]}" config \
  --env NODE_VERSION="$node_version" \
  --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --cmd node \
  --label org.opencontainers.image.description="Local stand-in for node:${node_arg}-bookworm-slim: debootstrap bookworm minbase + Node $node_version" \
  "$ctr"
"${bah[@]}" run --isolation chroot "$ctr" -- node -e 'process.stdout.write(`node ${process.version} runs\n`)'
"${bah[@]}" commit --quiet --rm "$ctr" "$image" >/dev/null
trap - EXIT
echo "build-base-image: committed $image (Node $node_version)"
