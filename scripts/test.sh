#!/usr/bin/env bash
# The whole test suite: every Rust test, then the viewer's browser test
# (headless Chromium through playwright-core; see viewer/test/).
#
# Needs Debian's `chromium` (apt-get install chromium) and Node 20+; the
# viewer's npm packages are installed here on first use (npm ci).
set -euo pipefail
cd "$(dirname "$0")/.."

# Tests write only under target/ and temporary folders: the work tree must
# look the same afterwards (checked at the end).
tree_before="$(git status --porcelain 2>/dev/null || true)"

cargo test --workspace

# The binary the browser test drives. `cargo test --workspace` has built it
# (the CLI's integration tests run it) with the workspace's unified
# features; `cargo build -p smithereens` would resolve features for that one
# package and build rapier3d and everything above it a second time (a CI
# machine with a small disk ran out of space doing exactly that).
target_dir="${CARGO_TARGET_DIR:-target}"
if [ ! -x "$target_dir/debug/smithereens" ]; then
  cargo build --workspace --bins
fi

chromium_bin="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$chromium_bin" ]; then
  echo "browser test: $chromium_bin not found; install it with: apt-get install chromium" >&2
  exit 1
fi
if [ ! -d viewer/node_modules/playwright-core ] || [ ! -d viewer/node_modules/three ]; then
  (cd viewer && npm ci --no-audit --no-fund)
fi
node --test viewer/test/

tree_after="$(git status --porcelain 2>/dev/null || true)"
if [ "$tree_before" != "$tree_after" ]; then
  echo "the tests changed the work tree (they must write under target/ or a temporary folder):" >&2
  diff <(echo "$tree_before") <(echo "$tree_after") >&2 || true
  exit 1
fi
