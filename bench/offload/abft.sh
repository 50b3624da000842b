#!/usr/bin/env bash
# ABFT on the offload trainer's GEMMs (runtime/src/train/Abft.h): overhead
# and detection rate. See bench/RESULTS.md ("Offload trainer: ABFT").
#
#   bench/offload/abft.sh [BUILD_DIR] [ROUNDS]
#
# Overhead: the same training (WIDTHS, BATCH, 4 steps, the first not
# measured) with --abft=off and --abft=recompute, alternating ROUNDS times
# (default 5); the medians of the compute time and of the checks' share
# of the GEMM time. Detection: a flip in 30% of the GEMMs (recomputes
# included; --fault-ppm=300000) over all 32 bits, with checks: injected
# flips, those above the rounding threshold, and how many of those were
# detected (and recomputed: the run trains to the end).
set -euo pipefail
BUILD=${1:-build}
ROUNDS=${2:-5}
WIDTHS=${WIDTHS:-512,512,512,512,512}
BATCH=${BATCH:-256}
BENCH="$BUILD/bin/sluice-bench-io"
[[ -x $BENCH ]] || { echo "abft.sh: missing $BENCH" >&2; exit 1; }
run() { "$BENCH" train --dir="${TMPDIR:-/tmp}" --widths="$WIDTHS" --batch="$BATCH" --no-durable "$@"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
field() { grep -o "\"$1\":[0-9.]*" | head -1 | cut -d: -f2; }
off=(); on=(); share=()
for ((r = 0; r < ROUNDS; r++)); do
  off+=("$(run --steps=4 --abft=off | field compute_ms)")
  out=$(run --steps=4 --abft=recompute)
  on+=("$(field compute_ms <<<"$out")")
  share+=("$(field check_over_gemm <<<"$out")")
done
mo=$(printf '%s\n' "${off[@]}" | median)
mr=$(printf '%s\n' "${on[@]}" | median)
ms=$(printf '%s\n' "${share[@]}" | median)
echo "| widths | batch | compute off ms | compute recompute ms | overhead | checks / GEMM time |"
echo "|---|---:|---:|---:|---:|---:|"
printf "| %s | %s | %.1f | %.1f | %+.1f%% | %.1f%% |\n" "$WIDTHS" "$BATCH" "$mo" "$mr" \
  "$(awk -v a="$mr" -v b="$mo" 'BEGIN { print 100 * (a / b - 1) }')" \
  "$(awk -v s="$ms" 'BEGIN { print 100 * s }')"
echo
det=$(run --abft=recompute --abft-retries=50 --fault-ppm=300000 --steps=12 | grep sluice-train-abft)
echo "detection, a flip in 30% of the GEMMs, bits 0..31: $det"
