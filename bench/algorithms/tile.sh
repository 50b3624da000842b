#!/usr/bin/env bash
# Tiled pull loops: PageRank (20 pull iterations, `rank[src] / degree(src)`
# per edge, examples/algorithms/pagerank.sluice's algorithm) untiled,
# with fixed tiles and with `tile: auto`, on one graph. See
# bench/RESULTS.md ("Tiled pull loops") and docs/algorithms.md.
#
#   bench/algorithms/tile.sh GRAPH.el [SLUICE_BUILD_DIR] [ROUNDS]
#
# GRAPH.el: an edge list (`format: edgelist, directed`; e.g. GAPBS's
# `converter -g20 -k16 -e kron20.el`, both directions of every edge). The
# graph's binary CSR cache is written next to it on the first run.
# TILES (default "4096 16384 32768 65536 131072 262144"): the fixed sizes.
# THREADS (default 2). Each configuration runs ROUNDS times (default 5),
# the configurations alternating within a round; before each run the
# script waits until no compiler (cc1plus) runs on the machine (WAIT=0
# turns that off). Prints per configuration the median and the minimum of
# sluicec's "time: X s running" (the kernel, including building the tiled
# layout and auto's probe; not the compile or the graph load), the
# median's ratio to untiled, and the median CPU time (user + system) of
# the whole sluicec process (compile and load included: the same for
# every configuration), which a busy machine disturbs less than wall
# time; then auto's "tiles:" notes.
set -euo pipefail

GRAPH=${1:?usage: tile.sh GRAPH.el [SLUICE_BUILD_DIR] [ROUNDS]}
BUILD=${2:-build}
ROUNDS=${3:-5}
TILES=${TILES:-"4096 16384 32768 65536 131072 262144"}
THREADS=${THREADS:-2}
WAIT=${WAIT:-1}
SLUICEC="$(cd "$BUILD/bin" && pwd)/sluicec"
MACHINE="$(cd "$(dirname "$0")/../../examples/machines" && pwd)/rtx4090-workstation.sluice"
GRAPH="$(cd "$(dirname "$GRAPH")" && pwd)/$(basename "$GRAPH")"
WORK=$(mktemp -d /tmp/sluice-tile.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

source "$(dirname "$0")/pagerank-configs.sh"

CONFIGS="untiled"
pagerank_program untiled "direction: pull, parallel: dynamic(64)"
for t in $TILES; do
  CONFIGS="$CONFIGS t$t"
  pagerank_program "t$t" "direction: pull, parallel: dynamic(64), tile: $t"
done
CONFIGS="$CONFIGS auto"
pagerank_program auto "direction: pull, parallel: dynamic(64), tile: auto"

idle() {
  [[ $WAIT == 1 ]] || return 0
  while [[ $(ps aux | grep -c '[c]c1plus') != 0 ]]; do sleep 5; done
}

run_configs

config_table untiled
echo
echo "auto's notes (one per round):"
grep -h 'tiles:' "$WORK"/auto.*.log | sed 's/^ *//'
# Every configuration wrote the same ranks.
for c in $CONFIGS; do
  cmp -s "$WORK/untiled.txt" "$WORK/$c.txt" || echo "DIFFERENT OUTPUT: $c"
done
