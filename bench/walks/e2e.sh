#!/usr/bin/env bash
# End-to-end walk benchmark: `sluicec --run` as a whole process (compile the
# program, load the graph from its binary cache, walk, write the walks as
# text) against ThunderRW's whole process (load its binary CSR folder, walk;
# it writes no walks), 2 threads, 80-vertex walks, one walker per vertex.
# See bench/RESULTS.md ("Walks, end to end").
#
#   bench/walks/e2e.sh THUNDERRW_BUILD_DIR [SLUICE_BUILD_DIR] [DATA_DIR] [ROUNDS]
#
# For each graph of GRAPHS (default "soc-Slashdot0902 luxembourg_osm
# rmat18") the graph is written once as a SNAP edge list and as ThunderRW's
# folder (sluice-bench-walks --export-edgelist / --export-thunderrw, so both
# walk the same simple undirected graph); sluicec runs once to write its
# binary cache, then each pair (unweighted DeepWalk: ThunderRW's uniform
# mode; node2vec p = 2, q = 0.5) runs ROUNDS times (default 5),
# alternating; the median wall time and peak memory (GNU time) of each are
# reported, with sluicec's own phase times from its report. WORKLOADS
# (default "udeepwalk node2vec") picks the rows. OUTPUT=npy writes the
# walks as an int32 .npy file instead of text (default OUTPUT=text).
set -euo pipefail

TRW=${1:?usage: e2e.sh THUNDERRW_BUILD_DIR [SLUICE_BUILD_DIR] [DATA_DIR] [ROUNDS]}
BUILD=${2:-build}
DATA=${3:-../shared/data}
ROUNDS=${4:-5}
GRAPHS=${GRAPHS:-"soc-Slashdot0902 luxembourg_osm rmat18"}
WORKLOADS=${WORKLOADS:-"udeepwalk node2vec"}
OUTPUT=${OUTPUT:-text}
case $OUTPUT in
  text) ext=walks; dtype= ;;
  npy) ext=npy; dtype=", walks_dtype: i32" ;;
  *) echo "e2e.sh: OUTPUT must be text or npy, not '$OUTPUT'" >&2; exit 1 ;;
esac
BENCH="$BUILD/bin/sluice-bench-walks"
SLUICEC="$(cd "$(dirname "$BUILD/bin/sluicec")" && pwd)/sluicec"
MACHINE="$(cd "$(dirname "$0")/../../examples/machines" && pwd)/rtx4090-workstation.sluice"
TIME=/usr/bin/time

for exe in "$TRW/random_walk/deepwalk.out" "$TRW/random_walk/node2vec.out" "$BENCH" "$SLUICEC" "$TIME"; do
  [[ -x $exe ]] || { echo "e2e.sh: missing $exe" >&2; exit 1; }
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/sluice-walk-e2e.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# "seconds peak-KiB" of one whole process.
measure() {
  "$TIME" -f "%e %M" -o "$WORK/time" "$@" >"$WORK/out" 2>&1 || {
    cat "$WORK/out" >&2; exit 1; }
  cat "$WORK/time"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "## End to end: sluicec --run ($OUTPUT output) vs ThunderRW (2 threads, 80-vertex walks, median of $ROUNDS)"
echo
echo "| graph | workload | ThunderRW s | ThunderRW MiB | sluicec s | sluicec MiB | sluicec phases (compile / load / walk) | sluicec / ThunderRW |"
echo "|---|---|---:|---:|---:|---:|---|---:|"
for g in $GRAPHS; do
  mkdir -p "$WORK/$g"
  "$BENCH" --data="$DATA" --graphs="$g" --export-thunderrw="$WORK/$g" \
    --export-edgelist="$WORK/$g.txt" >/dev/null
  for w in $WORKLOADS; do
    prog="$WORK/$g-$w.sluice"
    {
      echo "import \"$MACHINE\""
      echo "graph g = load(\"$WORK/$g.txt\", format: snap, undirected)"
      if [[ $w == udeepwalk ]]; then
        # weight 1: the uniform sampler (no table), as run.sh's udeepwalk
        # and ThunderRW's -em 0; the default weight w is the edge weight,
        # which alias tables sample.
        echo "walk $w on g {"
        echo "  length 80"
        echo "  weight(cur, next, w) = 1.0"
        echo "}"
        trw=("$TRW/random_walk/deepwalk.out" -em 0)
      else
        echo "walk $w(p: f64 = 2.0, q: f64 = 0.5) on g {"
        echo "  length 80"
        echo "  weight(prev, cur, next, w) = if next == prev then w / p else if has_edge(prev, next) then w else w / q"
        echo "}"
        trw=("$TRW/random_walk/node2vec.out" -ew)
      fi
      echo "schedule $w { target: cpu, threads: 2 }"
      echo "job run = walk $w on workstation { seed: 1, output: \"$WORK/$g-$w.$ext\"$dtype }"
    } >"$prog"
    "$SLUICEC" --run "$prog" >/dev/null 2>&1 # writes the graph cache
    : >"$WORK/ts"; : >"$WORK/tm"; : >"$WORK/ss"; : >"$WORK/sm"; : >"$WORK/phases"
    for ((i = 0; i < ROUNDS; ++i)); do
      read -r s m < <(measure "${trw[@]}" -f "$WORK/$g" -n 2 -l 80)
      echo "$s" >>"$WORK/ts"; echo "$m" >>"$WORK/tm"
      read -r s m < <(measure "$SLUICEC" --run "$prog")
      echo "$s" >>"$WORK/ss"; echo "$m" >>"$WORK/sm"
      sed -n 's/^ *time: *\([0-9.]*\) s walking, \([0-9.]*\) s compiling, \([0-9.]*\) s loading.*/\2 \3 \1/p' "$WORK/out" >>"$WORK/phases"
    done
    ts=$(median <"$WORK/ts"); tm=$(median <"$WORK/tm"); ss=$(median <"$WORK/ss"); sm=$(median <"$WORK/sm")
    ph=$(awk '{ c += $1; l += $2; w += $3 } END { printf "%.3f / %.3f / %.3f", c / NR, l / NR, w / NR }' "$WORK/phases")
    awk -v g="$g" -v w="$w" -v ts="$ts" -v tm="$tm" -v ss="$ss" -v sm="$sm" -v ph="$ph" 'BEGIN {
      printf "| %s | %s | %.2f | %.0f | %.2f | %.0f | %s | %.2f |\n", g, w, ts, tm / 1024, ss, sm / 1024, ph, ss / ts }'
  done
done
