#!/usr/bin/env bash
# ABFT on the offload trainer's GEMMs (runtime/src/train/Abft.h): overhead
# and detection rate. See bench/RESULTS.md ("Offload trainer: ABFT").
#
#   bench/offload/abft.sh [BUILD_DIR] [ROUNDS]
#   MODEL=transformer bench/offload/abft.sh [BUILD_DIR] [ROUNDS]
#
# MODEL=mlp (default): WIDTHS, BATCH rows. MODEL=transformer: BLOCKS, D,
# HEADS, SEQ, VOCAB, BATCH sequences (the shape of transformer.sh).
# Overhead: the same training (STEPS steps, default 4, the first not
# measured) with --abft=off and --abft=recompute, alternating, ROUNDS
# rounds (default 5); the medians of the training thread's CPU time per
# step (step_cpu_ms: what a busy machine does not stretch), of the wall
# time per step, of each round's recompute/off ratio, and of the checks'
# share of the GEMM time. Detection: a flip in 30%
# of the GEMMs (recomputes included; --fault-ppm=300000) over all 32 bits,
# DSTEPS steps (default 12),
# with checks: injected flips, those above the rounding threshold, and how
# many of those were detected (and recomputed: the run trains to the end).
set -euo pipefail
BUILD=${1:-build}
ROUNDS=${2:-5}
MODEL=${MODEL:-mlp}
STEPS=${STEPS:-4} DSTEPS=${DSTEPS:-12}
BENCH="$BUILD/bin/sluice-bench-io"
[[ -x $BENCH ]] || { echo "abft.sh: missing $BENCH" >&2; exit 1; }
case $MODEL in
mlp)
  WIDTHS=${WIDTHS:-512,512,512,512,512} BATCH=${BATCH:-256}
  SHAPE=(--widths="$WIDTHS" --batch="$BATCH")
  LABEL="MLP $WIDTHS, batch $BATCH" ;;
transformer)
  BLOCKS=${BLOCKS:-4} D=${D:-128} HEADS=${HEADS:-8} SEQ=${SEQ:-64}
  VOCAB=${VOCAB:-1024} BATCH=${BATCH:-4}
  SHAPE=(--model=transformer --blocks="$BLOCKS" --d-model="$D" --heads="$HEADS"
    --seq="$SEQ" --vocab="$VOCAB" --batch="$BATCH")
  LABEL="transformer $BLOCKS blocks, d $D, $HEADS heads, seq $SEQ, vocab $VOCAB, batch $BATCH" ;;
*) echo "abft.sh: MODEL must be mlp or transformer" >&2; exit 2 ;;
esac
run() { "$BENCH" train --dir="${TMPDIR:-/tmp}" "${SHAPE[@]}" --no-durable "$@"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
field() { grep -o "\"$1\":[0-9.]*" | head -1 | cut -d: -f2; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f%%", 100 * (a / b - 1) }'; }
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
soff=(); son=(); coff=(); con=(); share=(); ratio=(); cratio=()
for ((r = 0; r < ROUNDS; r++)); do
  out=$(run --steps="$STEPS" --abft=off)
  soff+=("$(field step_ms <<<"$out")"); coff+=("$(field step_cpu_ms <<<"$out")")
  out=$(run --steps="$STEPS" --abft=recompute)
  son+=("$(field step_ms <<<"$out")"); con+=("$(field step_cpu_ms <<<"$out")")
  share+=("$(field check_over_gemm <<<"$out")")
  ratio+=("$(awk -v a="${son[r]}" -v b="${soff[r]}" 'BEGIN { print a / b }')")
  cratio+=("$(awk -v a="${con[r]}" -v b="${coff[r]}" 'BEGIN { print a / b }')")
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
m() { printf '%s\n' "$@" | median; }
echo "per round, step ms off: ${soff[*]}; recompute: ${son[*]}"
echo "per round, step CPU ms off: ${coff[*]}; recompute: ${con[*]}"
echo "| model | step CPU ms off | step CPU ms recompute | CPU overhead (median of round ratios) | step ms off | step ms recompute | wall overhead (median of round ratios) | checks / GEMM time |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
printf "| %s | %.1f | %.1f | %s | %.1f | %.1f | %s | %.1f%% |\n" "$LABEL" \
  "$(m "${coff[@]}")" "$(m "${con[@]}")" "$(pct "$(m "${cratio[@]}")" 1)" \
  "$(m "${soff[@]}")" "$(m "${son[@]}")" "$(pct "$(m "${ratio[@]}")" 1)" \
  "$(awk -v s="$(m "${share[@]}")" 'BEGIN { print 100 * s }')"
echo
det=$(run --abft=recompute --abft-retries=50 --fault-ppm=300000 --steps="$DSTEPS" | grep sluice-train-abft)
echo "detection, a flip in 30% of the GEMMs, bits 0..31: $det"
