#!/usr/bin/env bash
# The tiled-aggregation sweep of bench/RESULTS.md ("GNN tiled aggregation"):
# fixed tiles against auto on email-Eu-core, facebook_combined and an R-MAT
# graph of scale 18, each run started only when no compiler runs on the
# (shared) machine. Usage: bench/gnn/tile-sweep.sh [REPEAT] (default 7).
set -euo pipefail
cd "$(dirname "$0")/../.."
repeat=${1:-7}
bench=build/bin/sluice-bench-gnn-tile
quiet() {
  while [ "$(ps aux | grep -c '[c]c1plus')" -ne 0 ]; do sleep 5; done
  echo "# $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)"
}
quiet
$bench --graph=../shared/data/email-Eu-core.txt.gz --fanouts=10,10 \
  --batch=64 --batches=18 --widths=64,512 --repeat="$repeat"
quiet
$bench --graph=examples/data/facebook_combined.txt.gz --fanouts=10,10 \
  --batch=256 --batches=16 --widths=64,512 --repeat="$repeat"
quiet
$bench --rmat=18 --fanouts=10,10 --batch=1024 --batches=16 --widths=128,512 \
  --tiles=16,32,64,128,256,512 --repeat="$repeat"
