#!/usr/bin/env bash
# The runtime's transformer (runtime/src/train/Transformer.h): time per
# training step with every tensor in memory against the same training under
# offload schedules. See docs/offload-runtime.md ("Transformer") and
# bench/RESULTS.md ("Offload trainer: transformer").
#
#   bench/offload/transformer.sh [BUILD_DIR] [ROUNDS]
#
# Three runs per round, alternating, ROUNDS rounds (default 5), each STEPS
# steps (default 4; the first warms up and is not measured): --in-memory
# (InMemoryTrainer, no disk), swapAll with lookahead 1 (every tensor on
# disk between uses) and the schedule sluice-plan-offload plans for the same
# model on a 64 MiB-GPU machine with parameters homed in host memory
# (--runtime-model=transformer). Prints the medians of the time per step,
# the ratios to the in-memory run, the compute and blocked time per step of
# the offloaded runs, and the load average before and after (the machine is
# shared). Every run prints its last loss: all three must be equal (the
# offloaded training is bit-identical).
set -euo pipefail
BUILD=${1:-build}
ROUNDS=${2:-5}
STEPS=${STEPS:-4}
BLOCKS=${BLOCKS:-4} D=${D:-128} HEADS=${HEADS:-8} SEQ=${SEQ:-64}
VOCAB=${VOCAB:-1024} BATCH=${BATCH:-4}
BENCH="$BUILD/bin/sluice-bench-io"
PLANNER="$BUILD/bin/sluice-plan-offload"
for t in "$BENCH" "$PLANNER"; do
  [[ -x $t ]] || { echo "transformer.sh: missing $t" >&2; exit 1; }
done
DIR=${TMPDIR:-/tmp}
PLAN="$DIR/sluice-transformer-plan.json"
"$PLANNER" --layers="$BLOCKS" --hidden="$D" --heads="$HEADS" --seq="$SEQ" \
  --vocab="$VOCAB" --batch="$BATCH" --gpu-memory-mib=64 --param-home=host \
  --format=schedule --runtime-model=transformer -o "$PLAN"
MODEL=(--model=transformer --blocks="$BLOCKS" --d-model="$D" --heads="$HEADS"
       --seq="$SEQ" --vocab="$VOCAB" --batch="$BATCH" --steps="$STEPS")
run() { "$BENCH" train "${MODEL[@]}" "$@"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
field() { grep -o "\"$1\":[0-9.]*" | head -1 | cut -d: -f2; }
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
mem=(); swap=(); plan=(); swapc=(); swaps=(); planc=(); plans=(); losses=()
for ((r = 0; r < ROUNDS; r++)); do
  out=$(run --in-memory)
  mem+=("$(field step_ms <<<"$out")"); losses+=("$(field loss <<<"$out")")
  out=$(run --dir="$DIR" --lookahead=1)
  swap+=("$(field step_ms <<<"$out")"); losses+=("$(field loss <<<"$out")")
  swapc+=("$(field compute_ms <<<"$out")"); swaps+=("$(field stall_ms <<<"$out")")
  out=$(run --dir="$DIR" --schedule="$PLAN")
  plan+=("$(field step_ms <<<"$out")"); losses+=("$(field loss <<<"$out")")
  planc+=("$(field compute_ms <<<"$out")"); plans+=("$(field stall_ms <<<"$out")")
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -f "$PLAN"
m=$(printf '%s\n' "${mem[@]}" | median)
s=$(printf '%s\n' "${swap[@]}" | median)
p=$(printf '%s\n' "${plan[@]}" | median)
per() { awk -v a="$1" -v n="$STEPS" 'BEGIN { printf "%.1f", a / (n - 1) }'; }
ratio() { awk -v a="$1" -v b="$m" 'BEGIN { printf "%.2f", a / b }'; }
echo "model: $BLOCKS blocks, d $D, $HEADS heads, seq $SEQ, vocab $VOCAB, batch $BATCH; median of $ROUNDS alternating rounds, $((STEPS - 1)) steps each"
echo "| run | step ms | vs in memory | compute ms/step | blocked ms/step |"
echo "|---|---:|---:|---:|---:|"
echo "| in memory | $m | 1.00 | | |"
echo "| swapAll, lookahead 1 | $s | $(ratio "$s") | $(per "$(printf '%s\n' "${swapc[@]}" | median)") | $(per "$(printf '%s\n' "${swaps[@]}" | median)") |"
echo "| planned (param home host, 64 MiB GPU) | $p | $(ratio "$p") | $(per "$(printf '%s\n' "${planc[@]}" | median)") | $(per "$(printf '%s\n' "${plans[@]}" | median)") |"
if [[ $(printf '%s\n' "${losses[@]}" | sort -u | wc -l) -ne 1 ]]; then
  echo "transformer.sh: the runs ended with different losses: ${losses[*]}" >&2
  exit 1
fi
echo "last loss of every run: ${losses[0]}"
