#!/usr/bin/env bash
# Fails when the committed generated contracts differ from what proto/ generates.
set -euo pipefail
pnpm exec buf generate
if ! git diff --quiet -- packages/contracts/src/gen || [ -n "$(git status --porcelain -- packages/contracts/src/gen)" ]; then
  echo "packages/contracts/src/gen is out of date: run 'pnpm proto' and commit the result" >&2
  git status --short -- packages/contracts/src/gen >&2
  exit 1
fi
echo "generated contracts are up to date"
