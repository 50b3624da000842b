#!/usr/bin/env bash
# Binned push loops: PageRank (20 iterations, `rank[src] / degree(src)`
# per edge, examples/algorithms/pagerank.sluice's algorithm) as a pull,
# as a push with atomics, and as a binned push (propagation blocking)
# with fixed bin sizes and `tile: auto`, on one graph. See
# bench/RESULTS.md ("Binned push loops") and docs/algorithms.md.
#
#   bench/algorithms/bins.sh GRAPH.el [SLUICE_BUILD_DIR] [ROUNDS]
#
# GRAPH.el: an edge list (`format: edgelist, directed`), as for tile.sh.
# TILES (default "16384 65536 262144"): the fixed bin sizes. THREADS
# (default 2). Each configuration runs ROUNDS times (default 3), the
# configurations alternating within a round. Prints per configuration the
# median and the minimum of sluicec's "time: X s running" (the kernel,
# including building the bins on the first iteration; not the compile or
# the graph load), the median's ratio to the pull, and the median CPU time
# (user + system) of the whole sluicec process; then the "bins:" notes
# of auto; then the load average. Every configuration's ranks are compared
# with the pull's (binned: the same bits; atomics: within 1e-9 summed).
set -euo pipefail

GRAPH=${1:?usage: bins.sh GRAPH.el [SLUICE_BUILD_DIR] [ROUNDS]}
BUILD=${2:-build}
ROUNDS=${3:-3}
TILES=${TILES:-"16384 65536 262144"}
THREADS=${THREADS:-2}
SLUICEC="$(cd "$BUILD/bin" && pwd)/sluicec"
MACHINE="$(cd "$(dirname "$0")/../../examples/machines" && pwd)/rtx4090-workstation.sluice"
GRAPH="$(cd "$(dirname "$GRAPH")" && pwd)/$(basename "$GRAPH")"
WORK=$(mktemp -d /tmp/sluice-bins.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

source "$(dirname "$0")/pagerank-configs.sh"

CONFIGS="pull atomics"
pagerank_program pull "direction: pull, parallel: dynamic(64)"
pagerank_program atomics "direction: push, parallel: dynamic(64)"
for t in $TILES; do
  CONFIGS="$CONFIGS b$t"
  pagerank_program "b$t" "direction: push, parallel: dynamic(64), tile: $t"
done
CONFIGS="$CONFIGS auto"
pagerank_program auto "direction: push, parallel: dynamic(64), tile: auto"

run_configs

config_table pull
echo
echo "auto's notes (one per round):"
grep -h 'bins:' "$WORK"/auto.*.log | sed 's/^ *//'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for c in $CONFIGS; do
  [[ $c == pull ]] && continue
  if [[ $c == atomics ]]; then
    paste "$WORK/pull.txt" "$WORK/$c.txt" | awk '{ d = $2 - $4; s += (d < 0 ? -d : d) } END { if (s > 1e-9) print "ATOMICS DIFFER: " s; else print "atomics: L1 distance to pull " s }'
  else
    cmp -s "$WORK/pull.txt" "$WORK/$c.txt" && echo "$c: same bits as pull" || echo "DIFFERENT OUTPUT: $c"
  fi
done
