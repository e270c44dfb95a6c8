#!/usr/bin/env bash
# Instructions per stress update on the 100 × 50 × 2 wall (issue 13 item 6),
# counted by valgrind's callgrind: the same binary and inputs give the same
# counts whatever else the machine does, where the wall-clock times of
# `examples/stress_updates.rs` move by ±30 % on a shared machine.
#
#   bash scripts/stress_instructions.sh                       # the weak walls, reduced
#   bash scripts/stress_instructions.sh "gap, concrete, reduced"
#   bash scripts/stress_instructions.sh "solid, weak, reduced" OTHER_BINARY
#
# Builds `examples/stress_updates.rs` in release (unless a binary is given,
# e.g. one built from another commit), runs each scene whose name contains
# the filter under callgrind with a dump before and after every
# `InstanceStress::update_within`, and prints per scene the updates, their
# total, median, p95, p99 and largest instruction counts, and the five
# largest with their update numbers (COUNTS=DIR keeps each scene's
# counts, one line per update, in DIR). Counts exclude the kernel (page
# faults), so a call that grows memory costs more in time than its count
# says; on this project's 2-core machine an update ran 10–12 instructions
# a nanosecond. Needs valgrind (Debian's package). About 30 s a scene.
set -euo pipefail
cd "$(dirname "$0")/.."

filter=${1:-weak, reduced}
bin=${2:-}
if [ -z "$bin" ]; then
    cargo build --release -q -p smithereens-core --example stress_updates
    bin=target/release/examples/stress_updates
fi
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 1; }

fn=smithereens_core::stress::instance_stress::InstanceStress::update_within
for scene in "solid, concrete" "solid, weak" "gap, concrete" "gap, weak"; do
    for mode in reduced full; do
        name="$scene, $mode"
        case "$name" in *"$filter"*) ;; *) continue ;; esac
        dir=$(mktemp -d)
        (cd "$dir" && valgrind --tool=callgrind --dump-instr=no --collect-jumps=no \
            --dump-before="$fn" --dump-after="$fn" "$bin" "$name" >/dev/null 2>&1)
        # The dumps after each call hold that call's instructions, in order.
        for f in "$dir"/callgrind.out.*; do
            if grep -q "Trigger: --dump-after" "$f"; then
                echo "${f##*.} $(grep '^summary' "$f" | cut -d' ' -f2)"
            fi
        done | sort -n | awk '{print $2}' > "$dir/counts"
        python3 - "$name" "$dir/counts" <<'PY'
import sys
name, path = sys.argv[1], sys.argv[2]
v = [int(l) for l in open(path)]
s = sorted(v)
n = len(s)
if n == 0:
    print(f"{name}: no updates")
    sys.exit()
q = lambda p: s[min(n - 1, int(n * p))] / 1e6
top = sorted(range(n), key=lambda i: v[i])[-5:]
print(f"{name}: {n} updates, {sum(v) / 1e6:,.0f} M instructions; median {q(0.5):.2f} M, "
      f"p95 {q(0.95):.2f} M, p99 {q(0.99):.2f} M, largest {s[-1] / 1e6:.2f} M "
      f"(updates {', '.join(f'{i}: {v[i] / 1e6:.2f}' for i in reversed(top))})")
PY
        if [ -n "${COUNTS:-}" ]; then
            mkdir -p "$COUNTS" && cp "$dir/counts" "$COUNTS/${name//[ ,]/_}.txt"
        fi
        rm -rf "$dir"
    done
done
