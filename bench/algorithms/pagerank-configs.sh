# Sourced by tile.sh and bins.sh: PageRank on one graph under several
# schedules of its gather loop, each run ROUNDS times alternating, timed by
# sluicec's "time: X s running" and the process's CPU time.
#
# The caller sets SLUICEC, MACHINE, GRAPH (absolute), WORK, THREADS, ROUNDS
# and CONFIGS (the names written by pagerank_program, in running order),
# and may define idle() to wait before each run.

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# $WORK/$1.sluice: 20 iterations of PageRank, `rank[src] / degree(src)`
# per edge (examples/algorithms/pagerank.sluice's algorithm), its gather
# loop scheduled `$2`, ranks written to $1.txt.
pagerank_program() {
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
schedule pagerank { target: cpu, @gather { $2 }, @apply { parallel: static } }
job run = run pagerank on workstation { output: "$1.txt" }
EOF
}

# Writes the graph's binary cache once, then runs every configuration
# ROUNDS times, alternating within a round.
run_configs() {
  "$SLUICEC" --run --algo-threads="$THREADS" "$WORK/${CONFIGS%% *}.sluice" >/dev/null 2>&1
  for ((r = 0; r < ROUNDS; ++r)); do
    for c in $CONFIGS; do
      if declare -F idle >/dev/null; then idle; fi
      /usr/bin/time -f 'cpu %U %S' "$SLUICEC" --run --algo-threads="$THREADS" "$WORK/$c.sluice" > "$WORK/$c.$r.log" 2>&1
      grep -o 'time: *[0-9.]* s running' "$WORK/$c.$r.log" | awk '{ print $2 }' >> "$WORK/$c.times"
      grep '^cpu ' "$WORK/$c.$r.log" | awk '{ print $2 + $3 }' >> "$WORK/$c.cpu"
    done
  done
}

# The markdown table: per configuration the median and minimum kernel time,
# the median's ratio to configuration $1's, the median process CPU time.
config_table() {
  local base m low cpu
  base=$(median < "$WORK/$1.times")
  echo "| configuration | median (s) | min (s) | median vs $1 | process CPU, median (s) |"
  echo "|---|---|---|---|---|"
  for c in $CONFIGS; do
    m=$(median < "$WORK/$c.times")
    low=$(sort -g "$WORK/$c.times" | head -1)
    cpu=$(median < "$WORK/$c.cpu")
    printf '| %s | %.3f | %.3f | %.2fx | %.2f |\n' "$c" "$m" "$low" "$(awk -v a="$m" -v b="$base" 'BEGIN { print a / b }')" "$cpu"
  done
}
