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

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

program() { # $1: name, $2: the loop's schedule
  cat > "$WORK/$1.sluice" <<EOF2
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
schedule pagerank { target: cpu, @gather { $2 }, @apply { parallel: static } }
job run = run pagerank on workstation { output: "$1.txt" }
EOF2
}

CONFIGS="pull atomics"
program pull "direction: pull, parallel: dynamic(64)"
program atomics "direction: push, parallel: dynamic(64)"
for t in $TILES; do
  CONFIGS="$CONFIGS b$t"
  program "b$t" "direction: push, parallel: dynamic(64), tile: $t"
done
CONFIGS="$CONFIGS auto"
program auto "direction: push, parallel: dynamic(64), tile: auto"

# The graph's binary cache, once.
"$SLUICEC" --run --algo-threads="$THREADS" "$WORK/pull.sluice" >/dev/null 2>&1

for ((r = 0; r < ROUNDS; ++r)); do
  for c in $CONFIGS; do
    /usr/bin/time -f 'cpu %U %S' "$SLUICEC" --run --algo-threads="$THREADS" "$WORK/$c.sluice" > "$WORK/$c.$r.log" 2>&1
    grep -o 'time: *[0-9.]* s running' "$WORK/$c.$r.log" | awk '{ print $2 }' >> "$WORK/$c.times"
    grep '^cpu ' "$WORK/$c.$r.log" | awk '{ print $2 + $3 }' >> "$WORK/$c.cpu"
  done
done

base=$(median < "$WORK/pull.times")
echo "| configuration | median (s) | min (s) | median vs pull | process CPU, median (s) |"
echo "|---|---|---|---|---|"
for c in $CONFIGS; do
  m=$(median < "$WORK/$c.times")
  low=$(sort -g "$WORK/$c.times" | head -1)
  cpu=$(median < "$WORK/$c.cpu")
  printf '| %s | %.3f | %.3f | %.2fx | %.2f |\n' "$c" "$m" "$low" "$(awk -v a="$m" -v b="$base" 'BEGIN { print a / b }')" "$cpu"
done
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
