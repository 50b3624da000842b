#!/usr/bin/env bash
# bench/gnn/accuracy.sh: test accuracy of GNN training on email-Eu-core's
# department labels over split seeds 0-9, for Sluice and the independent
# numpy baseline (examples/gnn/baseline.py). Results: bench/RESULTS.md,
# "GNN accuracy".
#
#   bench/gnn/accuracy.sh [BUILD_DIR]
#
# Runs, per seed, bench/gnn/email-gcn-full.sluice (the baseline's model and
# setting: full-neighbourhood GCN, full batch) and
# examples/gnn/email-departments.sluice (sampled GraphSAGE, batch 32) and
# examples/gnn/email-departments-gat.sluice (the same with 4-head GAT
# layers), then the baseline; prints mean and standard deviation of the test accuracy at
# the best validation epoch.
set -euo pipefail
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SLUICEC="$BUILD/bin/sluicec"
[ -x "$SLUICEC" ] || { echo "accuracy.sh: build sluicec first" >&2; exit 1; }
OUT=$(mktemp -d)
TMPS=()
trap 'rm -rf "$OUT" "${TMPS[@]}"' EXIT

for program in bench/gnn/email-gcn-full.sluice examples/gnn/email-departments.sluice \
               examples/gnn/email-departments-gat.sluice; do
  src="$ROOT/$program"
  # A copy beside the original (its relative paths stay valid) with the seed.
  for seed in $(seq 0 9); do
    copy="$(dirname "$src")/.accuracy-seed-$seed.sluice"
    TMPS+=("$copy")
    sed -E "s/seed: [0-9]+/seed: $seed/" "$src" > "$copy"
    "$SLUICEC" --run --no-graph-cache "$copy" -o "$OUT/r.json" 2>/dev/null >/dev/null
    python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['test_accuracy'])" "$OUT/r.json" >> "$OUT/$(basename "$program").txt"
    rm -f "$copy"
  done
  python3 - "$OUT/$(basename "$program").txt" "$program" <<'PY'
import statistics, sys
v = [float(x) for x in open(sys.argv[1])]
print(f"sluice {sys.argv[2]}: test accuracy {statistics.mean(v):.4f} +- {statistics.pstdev(v):.4f} over {len(v)} seeds")
PY
done
/usr/bin/python3 "$ROOT/examples/gnn/baseline.py"
