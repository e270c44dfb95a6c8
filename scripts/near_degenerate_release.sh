#!/usr/bin/env bash
# Issue 17, item 2 at 2,000 sites: the must-hold weld test of
# crates/authoring/tests/near_degenerate.rs that is too slow for the debug
# suite (Spot and Bob fractured into 2,000 chunks), in a release build.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release -p smithereens-authoring --test near_degenerate -- --include-ignored
