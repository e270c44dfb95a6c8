#!/usr/bin/env bash
# Durability soaks of the journal (issue 16 item 8; not in CI: minutes each).
# A child process commits in a loop and acknowledges each durable commit;
# the parent SIGKILLs it at seeded random moments 500 and then 1,000 times,
# reopens the journal after each kill and checks that every acknowledged
# commit is there, at most the one in-flight commit beyond it, and that the
# recovered state equals a reference replay (any loss fails the test).
# Prints one summary line per soak.
set -euo pipefail
cd "$(dirname "$0")/.."
for soak in sigkill_soak_500_kills sigkill_soak_1000_kills; do
  start=$(date +%s)
  cargo test --release -q -p smithereens-journal --test crash -- \
    --ignored --exact "$soak" --nocapture 2>&1 | grep -E '^soak:|test result|panicked'
  echo "$soak: $(( $(date +%s) - start )) s"
done
