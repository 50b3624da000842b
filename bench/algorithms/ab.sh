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
# Sluice's "time: X s running" and B / A as a markdown table.
set -euo pipefail

A=${1:?usage: ab.sh BUILD_A BUILD_B [WORK_DIR] [ROUNDS]}
B=${2:?usage: ab.sh BUILD_A BUILD_B [WORK_DIR] [ROUNDS]}
WORK=${3:-/tmp/sluice-algbench}
ROUNDS=${4:-5}
GRAPHS=${GRAPHS:-"urand18 soc-Slashdot0902"}
KERNELS=${KERNELS:-"pr"}
THREADS=${THREADS:-2}

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
    [[ -s $prog ]] || { echo "ab.sh: missing $prog (run run.sh first)" >&2; exit 1; }
    seconds "$A" "$prog" >/dev/null
    seconds "$B" "$prog" >/dev/null
    : >"$WORK/a.t"; : >"$WORK/b.t"
    for ((r = 0; r < ROUNDS; r++)); do
      seconds "$A" "$prog" >>"$WORK/a.t"
      seconds "$B" "$prog" >>"$WORK/b.t"
    done
    ta=$(median <"$WORK/a.t")
    tb=$(median <"$WORK/b.t")
    printf "| %s | %s | %.4f | %.4f | %.2fx |\n" "$g" "$k" "$ta" "$tb" \
      "$(awk -v a="$ta" -v b="$tb" 'BEGIN { print b / a }')"
  done
done
