#!/usr/bin/env bash
# Coverage-guided fuzzing of every reader of outside bytes (issue 16 item 5).
#
#   bash scripts/fuzz.sh                 # every target, 30 min each
#   bash scripts/fuzz.sh 600 snapshot    # one target, 10 min
#   bash scripts/fuzz.sh --smoke         # every target, 10,000 runs, seed 1 (CI)
#
# Needs the nightly toolchain (cargo fuzz builds with sanitizers); installs
# cargo-fuzz from crates.io when it is missing. Without nightly it says so
# and exits 0, so CI on a machine without nightly skips rather than fails.
# Each target starts from fuzz/seeds/TARGET (valid inputs) plus its corpus
# in fuzz/corpus/TARGET (kept between runs, not committed); a crash leaves
# its input in fuzz/artifacts/TARGET and fails the run. Prints executions
# per target.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

seconds=1800
# The smoke is deterministic (fixed seed and run count), so CI does not
# pass or fail by the luck of a timed run; long runs are timed.
limit=()
if [ "${1:-}" = "--smoke" ]; then
  seconds=0
  limit=(-seed=1 -runs=10000)
  shift
elif [ -n "${1:-}" ]; then
  seconds=$1
  shift
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(asset_file run_record snapshot commit_record replication replay_log
    scenario_toml obj_import gltf_import journal_open net_datagram)
fi

if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  echo "fuzz: no nightly toolchain on this machine; skipping (rustup toolchain install nightly to run it)"
  exit 0
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "fuzz: installing cargo-fuzz"
  cargo install cargo-fuzz --locked --quiet
fi

cargo +nightly fuzz build
summary=()
status=0
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t"
  if [ -d "seeds/$t" ]; then
    cp -n seeds/"$t"/* "corpus/$t/" 2>/dev/null || true
  fi
  log=$(mktemp)
  if [ ${#limit[@]} -eq 0 ]; then
    limit=(-max_total_time="$seconds")
  fi
  if cargo +nightly fuzz run "$t" "corpus/$t" -- \
      "${limit[@]}" -rss_limit_mb=2048 -max_len=65536 >"$log" 2>&1; then
    line=$(grep -oE 'Done [0-9]+ runs in [0-9]+ second' "$log" | tail -1 || true)
    summary+=("$t: ${line#Done } (s), no crash")
  else
    status=1
    summary+=("$t: CRASH (input in fuzz/artifacts/$t)")
    tail -40 "$log"
  fi
  rm -f "$log"
done
printf '%s\n' "${summary[@]}"
exit $status
