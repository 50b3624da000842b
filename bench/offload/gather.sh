#!/usr/bin/env bash
# bench/offload/gather.sh: random row gathers from the tiered feature store
# (4 KiB rows: dim 1024 float32) against fio's random 4 KiB reads of the
# same file at the same queue depth. Rounds alternate the tools; the table
# gives medians. Results: bench/RESULTS.md, "Feature store gathers".
#
#   bench/offload/gather.sh [BUILD_DIR] [DIR]
#
# Environment: SIZE_MIB (1024), QDS ("64"), REPEAT (5), HOST_MIB (64),
# BATCH (1024 rows per ticket), TICKETS (4). The file is written once with
# fio (sequential 1 MiB writes of fio's random buffers) and deleted at the
# end. One extra gather run with --verify checks every row against pread
# before the timed rounds.
set -euo pipefail
BUILD=${1:-build}
DIR=${2:-/tmp}
SIZE_MIB=${SIZE_MIB:-1024}
QDS=${QDS:-"64"}
REPEAT=${REPEAT:-5}
HOST_MIB=${HOST_MIB:-64}
BATCH=${BATCH:-1024}
TICKETS=${TICKETS:-4}
BENCH="$BUILD/bin/sluice-bench-gather"
FILE="$DIR/sluice-bench-gather.f32"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT" "$FILE"' EXIT

command -v fio >/dev/null || { echo "gather.sh: fio is not installed (scripts/install-deps.sh)" >&2; exit 1; }
[ -x "$BENCH" ] || { echo "gather.sh: build sluice-bench-gather first (ninja -C $BUILD sluice-bench-gather)" >&2; exit 1; }
echo "machine: $(nproc) cores, $(uname -r), $(fio --version), dir $DIR ($(findmnt -n -o FSTYPE -T "$DIR"))"
echo "file ${SIZE_MIB} MiB of 4 KiB rows, host cache ${HOST_MIB} MiB, batch $BATCH rows, $TICKETS tickets, queue depths $QDS, $REPEAT rounds"
fio --name=fill --filename="$FILE" --size="${SIZE_MIB}M" --bs=1M --iodepth=32 \
    --ioengine=io_uring --direct=1 --rw=write --numjobs=1 --output-format=json > /dev/null
"$BENCH" --file="$FILE" --dim=1024 --host-cache-mib="$HOST_MIB" --gathers=65536 --verify

for round in $(seq 1 "$REPEAT"); do
  for qd in $QDS; do
    order="fio sluice"
    [ $((round % 2)) -eq 0 ] && order="sluice fio"
    for who in $order; do
      if [ "$who" = fio ]; then
        # The exact fio command line:
        fio --name=randread --filename="$FILE" --size="${SIZE_MIB}M" --bs=4k \
            --iodepth="$qd" --ioengine=io_uring --direct=1 --rw=randread \
            --numjobs=1 --output-format=json > "$OUT/fio-$qd-$round.json"
      else
        "$BENCH" --file="$FILE" --dim=1024 --qd="$qd" --batch="$BATCH" \
            --tickets="$TICKETS" --host-cache-mib="$HOST_MIB" >> "$OUT/gather-$qd.jsonl"
      fi
    done
  done
done

python3 - "$OUT" "$REPEAT" "$QDS" <<'PY'
import json, statistics, sys
out, repeat, qds = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
print("| queue depth | fio randread MiB/s (rows/s) | gather rows/s | gather MiB/s delivered | read from the file MiB/s | file / fio | blocked in wait |")
print("|---|---|---|---|---|---|---|")
for qd in qds:
    fio = [json.load(open(f"{out}/fio-{qd}-{r}.json"))["jobs"][0]["read"]["bw_bytes"] / 2**20
           for r in range(1, repeat + 1)]
    runs = [json.loads(l) for l in open(f"{out}/gather-{qd}.jsonl")]
    f = statistics.median(fio)
    rows = statistics.median(r["rows_per_s"] for r in runs)
    mib = statistics.median(r["MiBps"] for r in runs)
    fmib = statistics.median(r["file_MiBps"] for r in runs)
    wait = statistics.median(r["wait_ms"] / 1000 / r["seconds"] for r in runs)
    print(f"| {qd} | {f:.1f} ({f * 256:.0f}) | {rows:.0f} | {mib:.1f} | {fmib:.1f} | {fmib / f:.2f} | {wait:.0%} |")
    print(f"  rounds: fio {[round(x) for x in fio]}; gather MiB/s {[round(r['MiBps']) for r in runs]}; "
          f"file MiB/s {[round(r['file_MiBps']) for r in runs]}", file=sys.stderr)
PY
