#!/usr/bin/env bash
# Walk benchmark: Sluice's walk engine against ThunderRW (VLDB'21) on the
# shared graphs, DeepWalk and node2vec, 2 threads, 80-vertex walks, one
# walker per vertex; then every workload under the cost model and each
# forced sampler. See bench/RESULTS.md ("Walks").
#
#   bench/walks/run.sh THUNDERRW_BUILD_DIR [SLUICE_BUILD_DIR] [DATA_DIR] [ROUNDS]
#
# THUNDERRW_BUILD_DIR holds ThunderRW's random_walk/deepwalk.out and
# random_walk/node2vec.out, built outside this repository (how: RESULTS.md).
# Nothing is downloaded or built here. Each (system, graph, workload) runs
# ROUNDS times (default 5), alternating between the systems; the best rate
# of each is reported (the machine may be shared). The matrix of every
# workload and sampler runs each case MATRIX_REPEAT times (default 2).
set -euo pipefail

TRW=${1:?usage: run.sh THUNDERRW_BUILD_DIR [SLUICE_BUILD_DIR] [DATA_DIR] [ROUNDS]}
BUILD=${2:-build}
DATA=${3:-../shared/data}
ROUNDS=${4:-5}
THREADS=2
LENGTH=80
BENCH="$BUILD/bin/sluice-bench-walks"
GRAPHS="soc-Slashdot0902 luxembourg_osm"

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
  "$BENCH" --data="$DATA" --threads=$THREADS --length=$LENGTH --repeat=1 "$@" |
    awk -F'|' 'NR > 2 { gsub(/ /, "", $7); printf "%.0f\n", $7 * 1e6 }'
}
best() { sort -g | tail -1; }

echo "## ThunderRW vs Sluice ($THREADS threads, $LENGTH-vertex walks, best of $ROUNDS)"
echo
echo "| graph | workload | ThunderRW steps/s | Sluice auto steps/s | Sluice rejection/alias steps/s | auto / ThunderRW |"
echo "|---|---|---:|---:|---:|---:|"
for g in $GRAPHS; do
  mkdir -p "$WORK/$g"
  "$BENCH" --data="$DATA" --graphs="$g" --export-thunderrw="$WORK/$g" >/dev/null
  for w in deepwalk node2vec; do
    if [[ $w == deepwalk ]]; then forced=alias; else forced=rejection; fi
    : >"$WORK/trw" ; : >"$WORK/auto" ; : >"$WORK/forced"
    for ((i = 0; i < ROUNDS; ++i)); do
      trw_rate "$TRW/random_walk/$w.out" -f "$WORK/$g" -n $THREADS -l $LENGTH -ew >>"$WORK/trw"
      sluice_rate --graphs="$g" --workloads=$w --samplers=auto >>"$WORK/auto"
      sluice_rate --graphs="$g" --workloads=$w --samplers=$forced >>"$WORK/forced"
    done
    t=$(best <"$WORK/trw"); a=$(best <"$WORK/auto"); f=$(best <"$WORK/forced")
    awk -v g="$g" -v w="$w" -v t="$t" -v a="$a" -v f="$f" -v s="$forced" 'BEGIN {
      printf "| %s | %s | %.2fM | %.2fM | %.2fM (%s) | %.2f |\n", g, w, t / 1e6, a / 1e6, f / 1e6, s, a / t }'
  done
done

echo
MATRIX_REPEAT=${MATRIX_REPEAT:-2}
echo "## Every workload, cost model vs forced samplers (best of $MATRIX_REPEAT)"
echo
"$BENCH" --data="$DATA" --threads=$THREADS --length=$LENGTH --repeat=$MATRIX_REPEAT \
  --graphs=soc-Slashdot0902,luxembourg_osm,email-Eu-core
