#!/usr/bin/env bash
# bench/offload/run.sh: the I/O engine against fio (io_uring, O_DIRECT, same
# block size and queue depth), then the hidden-I/O share of the MLP trained
# under the swap-everything schedule. Results: bench/RESULTS.md, "Offload I/O".
#
#   bench/offload/run.sh [BUILD_DIR] [DIR]
#
# Environment: SIZE_MIB (2048), BS_KIB (1024), QD (32), REPEAT (3),
# TRAIN_STEPS (4). fio comes from Debian (scripts/install-deps.sh). The
# files (SIZE_MIB each) are written to DIR (default /tmp) and deleted.
set -euo pipefail
BUILD=${1:-build}
DIR=${2:-/tmp}
SIZE_MIB=${SIZE_MIB:-2048}
BS_KIB=${BS_KIB:-1024}
QD=${QD:-32}
REPEAT=${REPEAT:-3}
TRAIN_STEPS=${TRAIN_STEPS:-4}
BENCH="$BUILD/bin/sluice-bench-io"
FIOFILE="$DIR/sluice-bench-fio.dat"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT" "$FIOFILE" "$DIR/sluice-bench-io.dat" "$DIR/sluice-bench-train"' EXIT

command -v fio >/dev/null || { echo "run.sh: fio is not installed (scripts/install-deps.sh)" >&2; exit 1; }
[ -x "$BENCH" ] || { echo "run.sh: build sluice-bench-io first (ninja -C $BUILD sluice-bench-io)" >&2; exit 1; }
echo "machine: $(nproc) cores, $(uname -r), $(fio --version), dir $DIR ($(findmnt -n -o FSTYPE -T "$DIR"))"
echo "file ${SIZE_MIB} MiB, block ${BS_KIB} KiB, queue depth $QD, O_DIRECT, $REPEAT rounds"

for round in $(seq 1 "$REPEAT"); do
  # Each round writes a fresh file, as the engine does (fio then creates
  # and fallocates it; the engine's benchmark does the same).
  rm -f "$FIOFILE"
  for rw in write read randread randwrite; do
    # The exact fio command line:
    fio --name="$rw" --filename="$FIOFILE" --size="${SIZE_MIB}M" \
        --bs="${BS_KIB}k" --iodepth="$QD" --ioengine=io_uring --direct=1 \
        --rw="$rw" --numjobs=1 --output-format=json \
        > "$OUT/fio-$rw-$round.json"
  done
  "$BENCH" io --dir="$DIR" --size-mib="$SIZE_MIB" --bs-kib="$BS_KIB" --qd="$QD" \
      --backend=uring >> "$OUT/sluice-uring.jsonl"
  "$BENCH" io --dir="$DIR" --size-mib="$SIZE_MIB" --bs-kib="$BS_KIB" --qd="$QD" \
      --backend=threads >> "$OUT/sluice-threads.jsonl"
done
rm -f "$FIOFILE"

for lookahead in 1 0; do
  "$BENCH" train --dir="$DIR" --steps="$TRAIN_STEPS" --lookahead="$lookahead" \
      --entries | tee -a "$OUT/train.txt"
done

# The planner's schedule executed (docs/offload-runtime.md): a 6-layer
# h1024 job planned on a small emulated machine (256 MiB of GPU memory),
# exported for the 6-layer 1024-wide MLP the runtime trains.
"$BUILD/bin/sluice-plan-offload" --layers=6 --hidden=1024 --heads=16 \
    --seq=512 --vocab=1000 --batch=4 --gpu-memory-mib=256 --format=schedule \
    --mlp-widths=1024,1024,1024,1024,1024,1024,1024 --mlp-batch=256 \
    -o "$OUT/plan6.json"
"$BENCH" train --dir="$DIR" --steps="$TRAIN_STEPS" \
    --widths=1024,1024,1024,1024,1024,1024,1024 --batch=256 \
    --schedule="$OUT/plan6.json" --entries | tee -a "$OUT/train.txt"

python3 - "$OUT" "$REPEAT" <<'PY'
import json, statistics, sys, glob
out, repeat = sys.argv[1], int(sys.argv[2])
def median(xs): return statistics.median(xs)
fio = {}
for rw in ["write", "read", "randread", "randwrite"]:
    bws = []
    for r in range(1, repeat + 1):
        job = json.load(open(f"{out}/fio-{rw}-{r}.json"))["jobs"][0]
        side = "write" if "write" in rw else "read"
        bws.append(job[side]["bw_bytes"] / 2**20)
    fio[rw] = median(bws)
rows = {}
for backend in ["uring", "threads"]:
    for line in open(f"{out}/sluice-{backend}.jsonl"):
        d = json.loads(line)
        rows.setdefault((backend, d["pattern"]), []).append(d["MiBps"])
for rw in ["write", "read", "randread", "randwrite"]:
    print(rw, "rounds (fio, uring, threads):",
          [round(json.load(open(f"{out}/fio-{rw}-{r}.json"))["jobs"][0]["write" if "write" in rw else "read"]["bw_bytes"] / 2**20) for r in range(1, repeat + 1)],
          [round(x) for x in rows[("uring", rw)]], [round(x) for x in rows[("threads", rw)]])
print()
print("| pattern | fio io_uring MiB/s | engine io_uring MiB/s | ratio | engine threads MiB/s | ratio |")
print("|---|---|---|---|---|---|")
for rw in ["write", "read", "randread", "randwrite"]:
    u = median(rows[("uring", rw)]); t = median(rows[("threads", rw)])
    print(f"| {rw} | {fio[rw]:.0f} | {u:.0f} | {u/fio[rw]:.2f} | {t:.0f} | {t/fio[rw]:.2f} |")
PY
