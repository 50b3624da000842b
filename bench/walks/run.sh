#!/usr/bin/env bash
# Walk benchmark: Sluice's walk engine against ThunderRW (VLDB'21), 2
# threads, 80-vertex walks, one walker per vertex: weighted DeepWalk (alias
# tables), unweighted DeepWalk (ThunderRW's uniform execution mode) and
# node2vec (p = 2, q = 0.5); then every workload under the cost model and
# each forced sampler. See bench/RESULTS.md ("Walks").
#
#   bench/walks/run.sh THUNDERRW_BUILD_DIR [SLUICE_BUILD_DIR] [DATA_DIR] [ROUNDS]
#
# THUNDERRW_BUILD_DIR holds ThunderRW's random_walk/deepwalk.out and
# random_walk/node2vec.out, built outside this repository (how: RESULTS.md).
# Nothing is downloaded or built here. Each (system, graph, workload) runs
# ROUNDS times (default 5), alternating between the systems; the median
# rate of each is reported. GRAPHS (default "soc-Slashdot0902
# luxembourg_osm rmat18") names the graphs: shared ones, or rmatS, an R-MAT
# graph of scale S and edge factor 16 that sluice-bench-walks generates
# (deterministic). MATRIX=0 skips the matrix of every workload and sampler
# (MATRIX_REPEAT runs per case, default 2, best reported). WORKLOADS
# (default "deepwalk udeepwalk node2vec") picks the workloads of the table;
# SLUICE_ARGS adds arguments to every Sluice run of the table (e.g.
# "--no-edge-sets" for node2vec without the hubs' neighbour sets).
set -euo pipefail

TRW=${1:?usage: run.sh THUNDERRW_BUILD_DIR [SLUICE_BUILD_DIR] [DATA_DIR] [ROUNDS]}
BUILD=${2:-build}
DATA=${3:-../shared/data}
ROUNDS=${4:-5}
THREADS=2
LENGTH=80
BENCH="$BUILD/bin/sluice-bench-walks"
GRAPHS=${GRAPHS:-"soc-Slashdot0902 luxembourg_osm rmat18"}
WORKLOADS=${WORKLOADS:-"deepwalk udeepwalk node2vec"}
# Extra sluice-bench-walks arguments of every Sluice run (e.g.
# --no-edge-sets: the engine without the hubs' neighbour sets).
read -r -a SLUICE_ARGS <<<"${SLUICE_ARGS:-}"

for exe in "$TRW/random_walk/deepwalk.out" "$TRW/random_walk/node2vec.out" "$BENCH"; do
  [[ -x $exe ]] || { echo "run.sh: missing $exe" >&2; exit 1; }
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/sluice-walk-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# ThunderRW's "Throughput (steps per second)" of the whole run (walking
# time only, as Sluice's stats.seconds).
trw_rate() {
  "$@" 2>&1 | sed -n 's/.*(func: compute).*Throughput (steps per second): \([0-9.]*\).*/\1/p'
}
# Sluice: Msteps/s column of sluice-bench-walks' table, in steps/s.
sluice_rate() {
  "$BENCH" --data="$DATA" --graph-cache="$WORK" --threads=$THREADS --length=$LENGTH --repeat=1 "${SLUICE_ARGS[@]}" "$@" |
    awk -F'|' 'NR > 2 { gsub(/ /, "", $7); printf "%.0f\n", $7 * 1e6 }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "## ThunderRW vs Sluice ($THREADS threads, $LENGTH-vertex walks, median of $ROUNDS)"
echo
echo "| graph | workload | ThunderRW steps/s | Sluice auto steps/s | Sluice forced steps/s | auto / ThunderRW |"
echo "|---|---|---:|---:|---:|---:|"
for g in $GRAPHS; do
  mkdir -p "$WORK/$g"
  "$BENCH" --data="$DATA" --graph-cache="$WORK" --graphs="$g" --export-thunderrw="$WORK/$g" >/dev/null
  for w in $WORKLOADS; do
    case $w in
      deepwalk) forced=alias; trw=("$TRW/random_walk/deepwalk.out" -ew) ;;
      # ThunderRW's uniform execution mode on the unweighted graph.
      udeepwalk) forced=alias; trw=("$TRW/random_walk/deepwalk.out" -em 0) ;;
      node2vec) forced=rejection; trw=("$TRW/random_walk/node2vec.out" -ew) ;;
    esac
    : >"$WORK/trw" ; : >"$WORK/auto" ; : >"$WORK/forced"
    for ((i = 0; i < ROUNDS; ++i)); do
      trw_rate "${trw[@]}" -f "$WORK/$g" -n $THREADS -l $LENGTH >>"$WORK/trw"
      sluice_rate --graphs="$g" --workloads=$w --samplers=auto >>"$WORK/auto"
      sluice_rate --graphs="$g" --workloads=$w --samplers=$forced >>"$WORK/forced"
    done
    t=$(median <"$WORK/trw"); a=$(median <"$WORK/auto"); f=$(median <"$WORK/forced")
    awk -v g="$g" -v w="$w" -v t="$t" -v a="$a" -v f="$f" -v s="$forced" 'BEGIN {
      printf "| %s | %s | %.2fM | %.2fM | %.2fM (%s) | %.2f |\n", g, w, t / 1e6, a / 1e6, f / 1e6, s, a / t }'
  done
done

[[ ${MATRIX:-1} == 0 ]] && exit 0
echo
MATRIX_REPEAT=${MATRIX_REPEAT:-2}
echo "## Every workload, cost model vs forced samplers (best of $MATRIX_REPEAT)"
echo
"$BENCH" --data="$DATA" --threads=$THREADS --length=$LENGTH --repeat=$MATRIX_REPEAT \
  --graphs=soc-Slashdot0902,luxembourg_osm,email-Eu-core
