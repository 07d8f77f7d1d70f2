#!/usr/bin/env bash
# The instruction-count regression guard: runs workloads 1-4, 7, 8, 9 and 12 of
# the release benchmark under callgrind, two at a time (workload 4 with 10
# repetitions of its lookups, not 100), counts the instructions of ModelStore's
# timed part only, and compares them with the committed baseline
# (instruction-baseline.txt beside this script). It fails when a workload
# grows by more than the tolerance; a workload that shrinks by as much is
# reported, so that the commit that earns it can lower the baseline.
#
#   Tools/Benchmarks/instruction-guard.sh [--update] [--binary PATH]
#
#   --update       write the counts measured now as the new baseline (do it
#                  deliberately, in the commit that changes the counts, and
#                  say why in its message)
#   --binary PATH  the benchmark to measure (default: the release build,
#                  Tools/Benchmarks/.build/release/modelstore-benchmark)
#
# Why instructions: callgrind counts the same instructions for the same
# binary and input whatever else the machine is doing, where wall time on a
# shared 2-core machine varies by more than the regressions worth catching.
# Two things would still make counts vary from run to run, and both are
# pinned: Swift's per-process hash seed (SWIFT_DETERMINISTIC_HASHING) and the
# workload's size (N in the baseline). Counts do depend on the compiler and on
# the C library and SQLite the binary links, so a new toolchain or base
# image is a reason to update the baseline, in a commit of its own.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
baseline="$here/instruction-baseline.txt"
binary="$here/.build/release/modelstore-benchmark"
update=false
# More than this much growth (per cent) fails the guard.
tolerance=5
# Workload 4 looks its 1,000 objects up this many times (the full run: 100).
# Each lookup runs the same code, and counting 100 rounds of them under
# callgrind took most of the guard's time; the baseline counts this many.
lookup_repetitions=10

while [ $# -gt 0 ]; do
    case "$1" in
        --update) update=true ;;
        --binary)
            [ $# -ge 2 ] || { echo "error: --binary needs a path" >&2; exit 64; }
            binary="$2"; shift ;;
        -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "error: unknown argument $1 (see --help)" >&2; exit 64 ;;
    esac
    shift
done

command -v valgrind >/dev/null 2>&1 || { echo "error: valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
[ -x "$binary" ] || { echo "error: no benchmark at $binary; build it with: swift build -c release --package-path Tools/Benchmarks --product modelstore-benchmark" >&2; exit 1; }
[ -f "$baseline" ] || { echo "error: no baseline at $baseline" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# One workload's instruction count inside Runner.timedPart (the warm-up, the
# one timed round and the memory round). Prints the count; fails when callgrind collected
# nothing, which means the benchmark failed or timedPart was renamed.
count_instructions() {
    local workload=$1 size=$2
    local out="$work/callgrind-$workload.out" log="$work/run-$workload.log"
    if ! SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --callgrind-out-file="$out" \
        --toggle-collect='*RunnerV9timedPart*' \
        "$binary" --workload "$workload" --n "$size" --lookup-repetitions "$lookup_repetitions" --rounds 1 \
        --contender modelstore \
        --json "$work/results-$workload.json" > "$log" 2>&1; then
        echo "error: workload $workload failed under callgrind; its output:" >&2
        cat "$log" >&2
        return 1
    fi
    local total
    total=$(awk '/^(summary|totals):/ { print $2; exit }' "$out")
    if [ -z "$total" ] || [ "$total" = 0 ]; then
        echo "error: callgrind collected no instructions for workload $workload: was Runner.timedPart renamed?" >&2
        return 1
    fi
    echo "$total"
}

# The workloads run two at a time: callgrind runs a program on one core, CI's
# machine has two, and the counts do not depend on what else runs. Each
# count (and any error) goes to a file of its own; the table below is
# printed in the baseline's order once all are done, and stops at the first
# workload that failed.
parallel_runs=2
running=0
while read -r name size expected; do
    case "$name" in ''|'#'*) continue ;; esac
    if [ "$running" -ge "$parallel_runs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
    ( count_instructions "${name#W}" "$size" > "$work/count-$name" 2> "$work/error-$name" \
        || rm -f "$work/count-$name" ) &
    running=$((running + 1))
done < "$baseline"
wait

failed=0
new_baseline="$work/baseline.txt"
grep '^#' "$baseline" > "$new_baseline" || true
printf '%-9s %7s %15s %15s %9s\n' workload N baseline now change
while read -r name size expected; do
    case "$name" in ''|'#'*) continue ;; esac
    # A missing count: count_instructions said why.
    if [ ! -s "$work/count-$name" ]; then
        cat "$work/error-$name" >&2
        exit 1
    fi
    now=$(cat "$work/count-$name")
    echo "$name $size $now" >> "$new_baseline"
    change=$(awk -v now="$now" -v was="$expected" 'BEGIN { printf "%+.2f%%", (now - was) * 100 / was }')
    verdict=""
    if awk -v now="$now" -v was="$expected" -v tol="$tolerance" 'BEGIN { exit !(now > was * (1 + tol / 100)) }'; then
        verdict="  FAIL: more than ${tolerance}% above the baseline"
        failed=1
    elif awk -v now="$now" -v was="$expected" -v tol="$tolerance" 'BEGIN { exit !(now < was * (1 - tol / 100)) }'; then
        verdict="  lower: update the baseline (--update) in the commit that earned it"
    fi
    printf '%-9s %7s %15s %15s %9s%s\n' "$name" "$size" "$expected" "$now" "$change" "$verdict"
done < "$baseline"

if $update; then
    cp "$new_baseline" "$baseline"
    echo "baseline updated: $baseline"
    exit 0
fi
if [ "$failed" -ne 0 ]; then
    echo "error: instruction counts grew by more than ${tolerance}% (see FAIL above). If the growth is deliberate, update the baseline with Tools/Benchmarks/instruction-guard.sh --update and say why in the commit." >&2
    exit 1
fi
echo "instruction counts within ${tolerance}% of the baseline"
