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

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

program() { # $1: name, $2: tile entry ("" or ", tile: N")
  cat > "$WORK/$1.sluice" <<EOF
import "$MACHINE"
graph g = load("$GRAPH", format: edgelist, directed)
algorithm pagerank(damping: f64 = 0.85, iterations: i64 = 20) on g {
  let n = num_vertices()
  vertex rank: f64 = 1.0 / n
  vertex incoming: f64 = 0.0
  repeat iterations {
    @gather edges(src, dst) {
      incoming[dst] += rank[src] / degree(src)
    }
    @apply vertices(v) {
      rank[v] = (1.0 - damping) / n + damping * incoming[v]
      incoming[v] = 0.0
    }
  }
  output rank
}
schedule pagerank { target: cpu, @gather { direction: pull, parallel: dynamic(64)$2 }, @apply { parallel: static } }
job run = run pagerank on workstation { output: "$1.txt" }
EOF
}

CONFIGS="untiled"
program untiled ""
for t in $TILES; do
  CONFIGS="$CONFIGS t$t"
  program "t$t" ", tile: $t"
done
CONFIGS="$CONFIGS auto"
program auto ", tile: auto"

# The graph's binary cache, once.
"$SLUICEC" --run --algo-threads="$THREADS" "$WORK/untiled.sluice" >/dev/null 2>&1

idle() {
  [[ $WAIT == 1 ]] || return 0
  while [[ $(ps aux | grep -c '[c]c1plus') != 0 ]]; do sleep 5; done
}

for ((r = 0; r < ROUNDS; ++r)); do
  for c in $CONFIGS; do
    idle
    /usr/bin/time -f 'cpu %U %S' "$SLUICEC" --run --algo-threads="$THREADS" "$WORK/$c.sluice" > "$WORK/$c.$r.log" 2>&1
    grep -o 'time: *[0-9.]* s running' "$WORK/$c.$r.log" | awk '{ print $2 }' >> "$WORK/$c.times"
    grep '^cpu ' "$WORK/$c.$r.log" | awk '{ print $2 + $3 }' >> "$WORK/$c.cpu"
  done
done

base=$(median < "$WORK/untiled.times")
echo "| configuration | median (s) | min (s) | median vs untiled | process CPU, median (s) |"
echo "|---|---|---|---|---|"
for c in $CONFIGS; do
  m=$(median < "$WORK/$c.times")
  low=$(sort -g "$WORK/$c.times" | head -1)
  cpu=$(median < "$WORK/$c.cpu")
  printf '| %s | %.3f | %.3f | %.2fx | %.2f |\n' "$c" "$m" "$low" "$(awk -v a="$m" -v b="$base" 'BEGIN { print a / b }')" "$cpu"
done
echo
echo "auto's notes (one per round):"
grep -h 'tiles:' "$WORK"/auto.*.log | sed 's/^ *//'
# Every configuration wrote the same ranks.
for c in $CONFIGS; do
  cmp -s "$WORK/untiled.txt" "$WORK/$c.txt" || echo "DIFFERENT OUTPUT: $c"
done
