#!/usr/bin/env bash
# Two Sluice builds on the same algorithm programs, alternating: what a
# change to the compiler or runtime does to the kernel's time. See
# bench/RESULTS.md ("Graph algorithms").
#
#   bench/algorithms/ab.sh BUILD_A BUILD_B [WORK_DIR] [ROUNDS]
#
# The programs are the ones bench/algorithms/run.sh writes into WORK_DIR
# (default /tmp/sluice-algbench), WORK_DIR/GRAPH-KERNEL.sluice for each of
# GRAPHS and KERNELS (defaults "urand18 soc-Slashdot0902" and "pr"); run
# run.sh once first. Each round runs A then B on every program (after one
# untimed run of each, which also writes the graph cache), ROUNDS times
# (default 5), on THREADS threads (default 2). Prints the medians of
# Sluice's "time: X s running" and B / A as a markdown table. With
# WORK_B set, B runs WORK_B/GRAPH-KERNEL.sluice instead (a rewritten
# example that A's compiler cannot read; the same graphs).
set -euo pipefail

A=${1:?usage: ab.sh BUILD_A BUILD_B [WORK_DIR] [ROUNDS]}
B=${2:?usage: ab.sh BUILD_A BUILD_B [WORK_DIR] [ROUNDS]}
WORK=${3:-/tmp/sluice-algbench}
ROUNDS=${4:-5}
GRAPHS=${GRAPHS:-"urand18 soc-Slashdot0902"}
KERNELS=${KERNELS:-"pr"}
THREADS=${THREADS:-2}
WORK_B=${WORK_B:-$WORK}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
seconds() {
  "$1/bin/sluicec" --run --algo-threads="$THREADS" "$2" 2>&1 |
    awk '/time:/ { print $2 }'
}

echo "## A: $A, B: $B ($THREADS threads, median of $ROUNDS, alternating)"
echo
echo "| graph | kernel | A s | B s | B / A |"
echo "|---|---|---:|---:|---:|"
for g in $GRAPHS; do
  for k in $KERNELS; do
    prog="$WORK/$g-$k.sluice"
    progb="$WORK_B/$g-$k.sluice"
    for p in "$prog" "$progb"; do
      [[ -s $p ]] || { echo "ab.sh: missing $p (run run.sh first)" >&2; exit 1; }
    done
    seconds "$A" "$prog" >/dev/null
    seconds "$B" "$progb" >/dev/null
    : >"$WORK_B/a.t"; : >"$WORK_B/b.t"
    for ((r = 0; r < ROUNDS; r++)); do
      seconds "$A" "$prog" >>"$WORK_B/a.t"
      seconds "$B" "$progb" >>"$WORK_B/b.t"
    done
    ta=$(median <"$WORK_B/a.t")
    tb=$(median <"$WORK_B/b.t")
    printf "| %s | %s | %.4f | %.4f | %.2fx |\n" "$g" "$k" "$ta" "$tb" \
      "$(awk -v a="$ta" -v b="$tb" 'BEGIN { print b / a }')"
  done
done
