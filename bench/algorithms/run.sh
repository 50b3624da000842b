#!/usr/bin/env bash
# Graph algorithms: sluicec --run against the GAP Benchmark Suite (GAPBS,
# Beamer et al.) on the same graph files, threads and machine. See
# bench/RESULTS.md ("Graph algorithms").
#
#   bench/algorithms/run.sh GAPBS_DIR [SLUICE_BUILD_DIR] [WORK_DIR] [ROUNDS]
#
# GAPBS_DIR holds GAPBS built with `make` (bfs, pr, sssp, cc, tc, bc and
# converter). Graphs (GRAPHS, default "kron18 urand18 soc-Slashdot0902
# luxembourg_osm"): kronN / urandN are GAPBS's generators (`converter -gN` /
# `-uN`, degree 16), the others the shared data set's files; each is
# written once by GAPBS's converter as a symmetric edge list (.el, both
# directions of every edge, no self loops or duplicates) and, for SSSP, a
# weighted one (.wel, GAPBS's random integer weights 1..255) in WORK_DIR
# (default /tmp/sluice-algbench; kept between runs). Both sides read these
# files: Sluice as `format: edgelist, directed` (`weighted: true` for .wel;
# the files hold both directions of every edge), GAPBS with -s (its
# undirected graph of the same edges; tc requires it).
#
# Kernels (KERNELS, default "bfs pr pr-contrib sssp cc cc-sv cc-af tc bc"), each a GAPBS binary and a
# .sluice program written here:
#   bfs   GAPBS bfs (direction optimising) / Sluice hybrid BFS, same source
#   pr    GAPBS pr -i 20 -t 0 (20 pull iterations) / Sluice pull PageRank,
#         20 iterations, `rank[src] / degree(src)` per edge as written
#         (graph-hoist-source-terms computes it once per vertex)
#   pr-f32  the same as pr with f32 ranks and sums (`vertex rank: f32`),
#         the algorithm of examples/algorithms/pagerank-f32.sluice (GAPBS
#         keeps its scores as float too); not in the default KERNELS
#   pr-contrib  the same with a per-vertex `contrib` property computed
#         once per iteration by hand (what GAPBS does, and what the pass
#         makes of `pr`)
#   sssp  GAPBS sssp -d DELTA (delta stepping) / Sluice `frontier:
#         buckets(DELTA)`, same source (DELTA default 32; GAPBS's weights
#         are integers 1..255)
#   cc    GAPBS cc (Afforest) / Sluice min-label propagation
#   cc-sv GAPBS cc (Afforest) / Sluice Shiloach-Vishkin (hooking with
#         `min=` into `comp[comp[u]]`, pointer jumping): the algorithm and
#         schedule of examples/algorithms/cc-sv.sluice
#   cc-af GAPBS cc (Afforest) / Sluice examples/algorithms/
#         cc-afforest.sluice (union-find links with compare_swap: two
#         sampled edges per vertex, then one sweep skipping the largest
#         component)
#   bc    GAPBS bc -i 1 (Brandes from one source, the same source) / Sluice
#         examples/algorithms/bc.sluice (its algorithm and schedule, the
#         source as its default): backward levels over every vertex
#   tc    GAPBS tc (ordered, relabelled by degree when its heuristic says
#         so) / Sluice common_neighbors_below over v < u edges (ordered,
#         `order: auto`: relabelled by degree when the same heuristic says
#         so; the run's `order:` line says which)
# Times: both sides run the kernel 4 times in one process on the loaded
# graph (its build or load not included): the first run (cold: the
# kernel's arrays are new, its code and the graph not yet in cache) and the
# median of the other three (warm). GAPBS's are its "Trial Time" lines
# (-n 4), Sluice's `sluicec --run --algo-trials=4` ("trials: 4 runs: the
# first X s ..., then median Y s"; not the compile, the graph load or the
# output). Two ratios: cold against cold, warm against warm (the figure
# of record: the same measurement on both sides). THREADS (default 2) for both
# (OMP_NUM_THREADS and --algo-threads). Each pair runs ROUNDS times
# (default 5), alternating; the medians and their ratios are printed as a
# markdown table.
set -euo pipefail

GAPBS=${1:?usage: run.sh GAPBS_DIR [SLUICE_BUILD_DIR] [WORK_DIR] [ROUNDS]}
BUILD=${2:-build}
WORK=${3:-/tmp/sluice-algbench}
ROUNDS=${4:-5}
GRAPHS=${GRAPHS:-"kron18 urand18 soc-Slashdot0902 luxembourg_osm"}
KERNELS=${KERNELS:-"bfs pr pr-contrib sssp cc cc-sv cc-af tc bc"}
THREADS=${THREADS:-2}
DELTA=${DELTA:-32}
DATA=${DATA:-$(cd "$(dirname "$0")/../../../shared/data" 2>/dev/null && pwd || echo ../shared/data)}
SLUICEC="$(cd "$BUILD/bin" && pwd)/sluicec"
EXAMPLES="$(cd "$(dirname "$0")/../../examples/algorithms" && pwd)"
MACHINE="$(cd "$(dirname "$0")/../../examples/machines" && pwd)/rtx4090-workstation.sluice"

for exe in bfs pr sssp cc tc bc converter; do
  [[ -x $GAPBS/$exe ]] || { echo "run.sh: missing $GAPBS/$exe (make in GAPBS)" >&2; exit 1; }
done
[[ -x $SLUICEC ]] || { echo "run.sh: missing $SLUICEC" >&2; exit 1; }
mkdir -p "$WORK"
export OMP_NUM_THREADS=$THREADS

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# The graph files of graph $1 (written once).
prepare() {
  local g=$1 el="$WORK/$1.el"
  if [[ ! -s $el ]]; then
    case $g in
      kron*) "$GAPBS/converter" -g"${g#kron}" -k16 -e "$el" >/dev/null ;;
      urand*) "$GAPBS/converter" -u"${g#urand}" -k16 -e "$el" >/dev/null ;;
      *)
        local src
        src=$(ls "$DATA/$g".* | head -1)
        # Comments out, one "u v" per line; the converter symmetrises.
        zcat -f "$src" | grep -v '^[#%]' | awk 'NF >= 2 { print $1, $2 }' >"$WORK/$g.raw.el"
        "$GAPBS/converter" -s -f "$WORK/$g.raw.el" -e "$el" >/dev/null
        rm -f "$WORK/$g.raw.el" ;;
    esac
  fi
  if [[ ! -s $WORK/$g.wel ]]; then
    "$GAPBS/converter" -f "$el" -w -e "$WORK/$g.wel" >/dev/null
  fi
}

# A source vertex both sides use: the first vertex of the edge list.
source_of() { head -1 "$WORK/$1.el" | awk '{ print $1 }'; }

# The Sluice program of kernel $1 on graph $2 (source $3).
program() {
  local k=$1 g=$2 src=$3 file="$WORK/$2.el" flags="format: edgelist, directed"
  [[ $k == sssp ]] && { file="$WORK/$2.wel"; flags="$flags, weighted: true"; }
  echo "import \"$MACHINE\""
  echo "graph g = load(\"$file\", $flags)"
  case $k in
    bfs) cat <<SL
algorithm bfs(source: i64 = $src) on g {
  vertex depth: i64 = -1
  depth[source] = 0
  frontier active = [source]
  while size(active) > 0 {
    @expand active = edges(src, dst) from active where depth[dst] == -1 {
      depth[dst] = depth[src] + 1
    }
  }
  output depth
}
schedule bfs { target: cpu, @expand { direction: hybrid, frontier: auto, parallel: dynamic(64) } }
SL
    ;;
    pr) cat <<SL
algorithm pr(damping: f64 = 0.85, iterations: i64 = 20) on g {
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
schedule pr { target: cpu, @gather { direction: pull, parallel: dynamic(64) }, @apply { parallel: static } }
SL
    ;;
    pr-f32)
      sed -n '/^algorithm /,/^schedule /p' "$EXAMPLES/pagerank-f32.sluice" | sed '$d' |
        sed -e 's/^algorithm pagerank(\(.*\)) on [A-Za-z0-9_]* {$/algorithm pr(\1) on g {/'
      echo "schedule pr { target: cpu, @gather { direction: pull, parallel: dynamic(64) }, @apply { parallel: static } }"
    ;;
    pr-contrib) cat <<SL
algorithm pr(damping: f64 = 0.85, iterations: i64 = 20) on g {
  let n = num_vertices()
  vertex rank: f64 = 1.0 / n
  vertex incoming: f64 = 0.0
  vertex contrib: f64 = 0.0
  repeat iterations {
    @share vertices(v) {
      contrib[v] = rank[v] / degree(v)
    }
    @gather edges(src, dst) {
      incoming[dst] += contrib[src]
    }
    @apply vertices(v) {
      rank[v] = (1.0 - damping) / n + damping * incoming[v]
      incoming[v] = 0.0
    }
  }
  output rank
}
schedule pr { target: cpu, @share { parallel: static }, @gather { direction: pull, parallel: dynamic(64) }, @apply { parallel: static } }
SL
    ;;
    sssp) cat <<SL
algorithm sssp(source: i64 = $src) on g {
  vertex dist: f64 = 1.0e300
  dist[source] = 0.0
  frontier changed = [source]
  while size(changed) > 0 {
    @relax changed = edges(u, v, w) from changed {
      dist[v] min= dist[u] + w
    }
  }
  output dist
}
schedule sssp { target: cpu, @relax { direction: push, frontier: buckets($DELTA.0), parallel: dynamic(64) } }
SL
    ;;
    cc) cat <<SL
algorithm cc() on g {
  vertex comp: i64 = 0
  @init vertices(v) {
    comp[v] = id(v)
  }
  frontier changed = all
  while size(changed) > 0 {
    @spread changed = edges(u, v) from changed {
      comp[v] min= comp[u]
    }
  }
  output comp
}
schedule cc { target: cpu, @init { parallel: static }, @spread { direction: push, frontier: auto, parallel: dynamic(64) } }
SL
    ;;
    cc-sv|cc-af)
      # The example's algorithm and schedule, on this graph.
      local example=cc-sv.sluice
      [[ $k == cc-af ]] && example=cc-afforest.sluice
      sed -n '/^algorithm /,/^job /p' "$EXAMPLES/$example" | sed '$d' |
        sed 's/^\(algorithm .*\) on [A-Za-z0-9_]* {$/\1 on g {/'
    ;;
    bc)
      sed -n '/^algorithm /,/^job /p' "$EXAMPLES/bc.sluice" | sed '$d' |
        sed -e 's/^\(algorithm .*\) on [A-Za-z0-9_]* {$/\1 on g {/' \
          -e "s/source: i64 = 0/source: i64 = $src/"
    ;;
    tc) cat <<SL
algorithm tc() on g {
  vertex triangles: i64 = 0
  @count edges(u, v) where v < u {
    triangles[u] += common_neighbors_below(u, v)
  }
  output triangles
}
schedule tc { target: cpu, @count { direction: push, parallel: dynamic(64), order: auto } }
SL
    ;;
  esac
  echo "job run = run $(gapbs_kernel "$k") on workstation { }"
}

# The GAPBS binary (and Sluice algorithm name) of kernel $1.
gapbs_kernel() {
  case $1 in
    pr-contrib|pr-f32) echo pr ;;
    cc-sv|cc-af) echo cc ;;
    *) echo "$1" ;;
  esac
}

gapbs_time() {
  local k=$1 g=$2 src=$3 args=()
  case $k in
    bfs) args=(-f "$WORK/$g.el" -s -r "$src") ;;
    bc) args=(-f "$WORK/$g.el" -s -r "$src" -i 1) ;;
    pr|pr-contrib|pr-f32) args=(-f "$WORK/$g.el" -s -i 20 -t 0) ;;
    sssp) args=(-f "$WORK/$g.wel" -s -r "$src" -d "$DELTA") ;;
    cc|cc-sv|cc-af|tc) args=(-f "$WORK/$g.el" -s) ;;
  esac
  # 4 trials in one process: the first (cold: the kernel's arrays are new,
  # as in every sluicec run) and the median of the other three (warm).
  "$GAPBS/$(gapbs_kernel "$k")" "${args[@]}" -n 4 | awk '/Trial Time:/ { t[++n] = $3 }
    END { a = t[2]; b = t[3]; c = t[4]; lo = a; hi = a
          if (b < lo) lo = b; if (c < lo) lo = c; if (b > hi) hi = b; if (c > hi) hi = c
          print t[1], a + b + c - lo - hi }'
}

sluice_time() {
  "$SLUICEC" --run --algo-threads="$THREADS" --algo-trials=4 "$WORK/$1-$2.sluice" 2>&1 |
    sed -n 's/.*trials:.* the first \([0-9.]*\) s .* median \([0-9.]*\) s .*/\1 \2/p'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { print a / b }'; }

echo "## Graph algorithms: sluicec --run vs GAPBS ($THREADS threads, median of $ROUNDS)"
echo
echo "| graph | kernel | GAPBS cold s | GAPBS warm s | Sluice cold s | Sluice warm s | Sluice compile s | Sluice / GAPBS cold | Sluice / GAPBS warm |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
for g in $GRAPHS; do
  prepare "$g"
  src=$(source_of "$g")
  for k in $KERNELS; do
    program "$k" "$g" "$src" >"$WORK/$g-$k.sluice"
    # Once untimed: checks the program and writes the binary graph cache.
    out=$("$SLUICEC" --run --algo-threads="$THREADS" "$WORK/$g-$k.sluice" 2>&1) || {
      echo "$out" >&2; exit 1; }
    compile=$(awk '/time:/ { print $5 }' <<<"$out")
    : >"$WORK/gapbs.t"; : >"$WORK/sluice.t"
    for ((r = 0; r < ROUNDS; r++)); do
      gapbs_time "$k" "$g" "$src" >>"$WORK/gapbs.t"
      sluice_time "$g" "$k" >>"$WORK/sluice.t"
    done
    gc=$(awk '{ print $1 }' "$WORK/gapbs.t" | median)
    gw=$(awk '{ print $2 }' "$WORK/gapbs.t" | median)
    sc=$(awk '{ print $1 }' "$WORK/sluice.t" | median)
    sw=$(awk '{ print $2 }' "$WORK/sluice.t" | median)
    printf "| %s | %s | %.4f | %.4f | %.4f | %.4f | %.3f | %.2fx | %.2fx |\n" "$g" "$k" \
      "$gc" "$gw" "$sc" "$sw" "$compile" "$(ratio "$sc" "$gc")" "$(ratio "$sw" "$gw")"
  done
done
