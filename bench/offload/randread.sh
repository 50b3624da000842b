#!/usr/bin/env bash
# bench/offload/randread.sh: small random reads, the engine against fio on
# the same written file (io_uring, O_DIRECT, same block size and queue
# depth). Rounds alternate the tools; the table gives medians. Results:
# bench/RESULTS.md, "Offload I/O", "Small random reads".
#
#   bench/offload/randread.sh [BUILD_DIR] [DIR]
#
# Environment: SIZE_MIB (1024), BS_KIB (4), QDS ("32 64 128"), REPEAT (5),
# VARIANTS (engine --uring-flags values, space-separated; default
# "none fixed-files,fixed-buffers"). CPU us/block: user + system time of
# the engine's process per 4 KiB read (the SQPOLL kernel thread included). The file is written once with fio
# (sequential 1 MiB writes, so that reads hit real blocks, not unwritten
# extents) and deleted at the end.
set -euo pipefail
BUILD=${1:-build}
DIR=${2:-/tmp}
SIZE_MIB=${SIZE_MIB:-1024}
BS_KIB=${BS_KIB:-4}
QDS=${QDS:-"32 64 128"}
REPEAT=${REPEAT:-5}
VARIANTS=${VARIANTS:-"none fixed-files,fixed-buffers"}
BENCH="$BUILD/bin/sluice-bench-io"
FILE="$DIR/sluice-bench-randread.dat"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT" "$FILE"' EXIT

command -v fio >/dev/null || { echo "randread.sh: fio is not installed (scripts/install-deps.sh)" >&2; exit 1; }
[ -x "$BENCH" ] || { echo "randread.sh: build sluice-bench-io first (ninja -C $BUILD sluice-bench-io)" >&2; exit 1; }
echo "machine: $(nproc) cores, $(uname -r), $(fio --version), dir $DIR ($(findmnt -n -o FSTYPE -T "$DIR"))"
echo "file ${SIZE_MIB} MiB, block ${BS_KIB} KiB, queue depths $QDS, O_DIRECT, $REPEAT rounds"
fio --name=fill --filename="$FILE" --size="${SIZE_MIB}M" --bs=1M --iodepth=32 \
    --ioengine=io_uring --direct=1 --rw=write --numjobs=1 --output-format=json > /dev/null

for round in $(seq 1 "$REPEAT"); do
  for qd in $QDS; do
    # Alternate which tool goes first from round to round.
    order="fio $VARIANTS"
    [ $((round % 2)) -eq 0 ] && order="$VARIANTS fio"
    for who in $order; do
      if [ "$who" = fio ]; then
        # The exact fio command line:
        fio --name=randread --filename="$FILE" --size="${SIZE_MIB}M" \
            --bs="${BS_KIB}k" --iodepth="$qd" --ioengine=io_uring --direct=1 \
            --rw=randread --numjobs=1 --output-format=json \
            > "$OUT/fio-$qd-$round.json"
      else
        "$BENCH" io --file="$FILE" --bs-kib="$BS_KIB" --qd="$qd" \
            --backend=uring --patterns=randread --uring-flags="$who" \
            >> "$OUT/sluice-$qd.jsonl"
      fi
    done
  done
done

python3 - "$OUT" "$REPEAT" "$QDS" "$VARIANTS" <<'PY'
import json, statistics, sys
out, repeat, qds, variants = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4].split()
print("| queue depth | fio MiB/s | " + " | ".join(f"engine {v} MiB/s | ratio | CPU us/block" for v in variants) + " |")
print("|---" * (2 + 3 * len(variants)) + "|")
for qd in qds:
    fio = [json.load(open(f"{out}/fio-{qd}-{r}.json"))["jobs"][0]["read"]["bw_bytes"] / 2**20
           for r in range(1, repeat + 1)]
    rows, cpu = {}, {}
    for line in open(f"{out}/sluice-{qd}.jsonl"):
        d = json.loads(line)
        rows.setdefault(d["uring_flags"], []).append(d["MiBps"])
        cpu.setdefault(d["uring_flags"], []).append(d["cpu_us_per_block"])
    f = statistics.median(fio)
    cells = []
    for v in variants:
        m = statistics.median(rows[v])
        cells.append(f"{m:.1f} | {m / f:.2f} | {statistics.median(cpu[v]):.2f}")
    print(f"| {qd} | {f:.1f} | " + " | ".join(cells) + " |")
    print(f"  rounds: fio {[round(x) for x in fio]}; " +
          "; ".join(f"{v} {[round(x) for x in rows[v]]}" for v in variants), file=sys.stderr)
PY
