#!/usr/bin/env bash
# Issue 13's peer: NVIDIA Blast's stress solver (blast-stress-solver 0.4.1,
# C++ built by its build script) on the stress bench's structures, timed and
# with residuals in our metric. Not part of the test suite or CI.
# Arguments (optional): structures to run (validate wall12x6 wall24x12x2
# wall48x24x2 tower bridge).
set -euo pipefail
cd "$(dirname "$0")/../tools/peer-stress"
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-../../target/peer-stress}" cargo run --release -- "$@"
