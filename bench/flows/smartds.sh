#!/usr/bin/env bash
# The SmartDS figures of bench/RESULTS.md ("SmartDS"): the host codec's
# measured rates per core (zstd and lz4 through sluice-flow-exec
# --measure-compression, the figures sluicec --measure-compression feeds
# plan-middle-tier) over block sizes and compressibilities, then the
# example's plan with that measurement.
#
#   bench/flows/smartds.sh BUILD_DIR [SECONDS]
#
# BUILD_DIR holds bin/sluice-flow-exec and bin/sluicec; SECONDS (default 2)
# is how long each measurement compresses. Prints a markdown table and the
# plan's remarks.
set -euo pipefail
build=${1:?usage: bench/flows/smartds.sh BUILD_DIR [SECONDS]}
seconds=${2:-2}
here=$(cd "$(dirname "$0")/../.." && pwd)
exec_bin="$build/bin/sluice-flow-exec"

echo "load before: $(uptime)"
echo
echo "| codec | block | compressibility | level | compress MB/s per core | decompress MB/s per core | ratio |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for codec in zstd lz4; do
  # zstd: levels 1 and 3; lz4: 1 (LZ4) and 9 (LZ4HC).
  levels="1 3"
  [ "$codec" = lz4 ] && levels="1 9"
  for level in $levels; do
    for block in 4096 65536; do
      for c in 0.25 0.5 0.75; do
        "$exec_bin" --measure-compression --json --codec="$codec" \
            --block-bytes="$block" --compressibility="$c" --level="$level" \
            --seconds="$seconds" |
          python3 -c '
import json, sys
d = json.load(sys.stdin)
print("| %s | %d | %s | %d | %.0f | %.0f | %.3f |" % (d["codec"].split()[0],
      d["block_bytes"], d["compressibility"], d["level"],
      d["compress_bytes_per_s"] / 1e6, d["decompress_bytes_per_s"] / 1e6,
      d["ratio"]))'
      done
    done
  done
done
echo
"$build/bin/sluicec" --emit=plan --remarks --measure-compression \
    "$here/examples/flows/smartds-middle-tier.sluice" 2>&1 >/dev/null |
  grep 'remark: middle tier'
echo "load after: $(uptime)"
