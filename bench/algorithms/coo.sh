#!/usr/bin/env bash
# Push loops over edge coordinates (`format: coo`): PageRank (20
# iterations, `rank[src] / degree(src)` per edge, examples/algorithms/
# pagerank.sluice's algorithm) as a pull, as a push over the CSR (static
# shares and dynamic chunks of sources) and as a push over the edges
# (`format: coo`, static shares and dynamic chunks of edges), on one graph.
# See bench/RESULTS.md ("format: coo") and docs/algorithms.md ("Edges as
# coordinates").
#
#   bench/algorithms/coo.sh GRAPH.el [SLUICE_BUILD_DIR] [ROUNDS]
#
# GRAPH.el: an edge list (`format: edgelist, directed`), as for tile.sh.
# THREADS (default 2). Each configuration runs ROUNDS times (default 3),
# alternating within a round. Prints per configuration the median and the
# minimum of sluicec's "time: X s running" (the kernel; not the compile or
# the graph load), the median's ratio to the pull, and the median CPU time
# of the whole sluicec process; then the load average; then every push's
# L1 distance to the pull's ranks (atomics add in another order).
set -euo pipefail

GRAPH=${1:?usage: coo.sh GRAPH.el [SLUICE_BUILD_DIR] [ROUNDS]}
BUILD=${2:-build}
ROUNDS=${3:-3}
THREADS=${THREADS:-2}
SLUICEC="$(cd "$BUILD/bin" && pwd)/sluicec"
MACHINE="$(cd "$(dirname "$0")/../../examples/machines" && pwd)/rtx4090-workstation.sluice"
GRAPH="$(cd "$(dirname "$GRAPH")" && pwd)/$(basename "$GRAPH")"
WORK=$(mktemp -d /tmp/sluice-coo.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

source "$(dirname "$0")/pagerank-configs.sh"

CONFIGS="pull csr-static csr-dynamic coo-static coo-dynamic"
pagerank_program pull "direction: pull, parallel: dynamic(64)"
pagerank_program csr-static "direction: push, parallel: static"
pagerank_program csr-dynamic "direction: push, parallel: dynamic(64)"
pagerank_program coo-static "direction: push, parallel: static, format: coo"
pagerank_program coo-dynamic "direction: push, parallel: dynamic(64), format: coo"

run_configs

config_table pull
echo
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for c in $CONFIGS; do
  [[ $c == pull ]] && continue
  paste "$WORK/pull.txt" "$WORK/$c.txt" | awk -v c="$c" '{ d = $2 - $4; s += (d < 0 ? -d : d) } END { if (s > 1e-9) print "DIFFERS: " c " " s; else print c ": L1 distance to pull " s }'
done
