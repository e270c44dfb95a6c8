#!/usr/bin/env bash
# Refreshes the README's picture, docs/viewer.png: builds the binary and runs
# the viewer's browser test with its screenshot aimed at docs/ (the test
# alone writes it under the build folder and leaves the work tree clean).
#
# Needs what scripts/test.sh needs for the browser test: Node 20+ and
# Debian's `chromium`.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build -p smithereens
if [ ! -d viewer/node_modules/playwright-core ] || [ ! -d viewer/node_modules/three ]; then
  (cd viewer && npm ci --no-audit --no-fund)
fi
VIEWER_SCREENSHOT="$PWD/docs/viewer.png" node --test viewer/test/
echo "refreshed docs/viewer.png; review it with git diff --stat docs/ and commit it"
