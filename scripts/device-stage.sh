#!/usr/bin/env bash
# Stages what a GPU machine without LLVM/MLIR can run (docs/gpu-testing.md):
#
#   scripts/device-stage.sh BUILD_DIR OUT_DIR [DATA_DIR]
#
# OUT_DIR/bin        every binary of BUILD_DIR/bin that does not link
#                    libLLVM/libMLIR (runtime-only tests, benches, tools)
# OUT_DIR/lib        the non-system shared libraries they need (liburing,
#                    ...), which an Ubuntu 24.04 CUDA image may lack
# OUT_DIR/artifacts  the PTX + JSON sluicec wrote at build time
#                    (test/Unit/WalkGpu: gpu-walks.ptx, reservoir-walks.ptx,
#                    list-walks.ptx, math-walks.ptx (with libdevice) and
#                    their .json; test/Unit/AlgoGpu: gpu-algos.ptx;
#                    test/Unit/AlignGpu: align-extend.ptx;
#                    test/Unit/GnnGpu: gnn-kernels.ptx and its .json)
# OUT_DIR/data       the graphs: the bundled facebook, and from DATA_DIR
#                    email-Eu-core, soc-Slashdot0902, luxembourg_osm
# OUT_DIR/run.sh     run it on the GPU machine: nvidia-smi, every staged
#                    *Tests binary (timeout each, logs to $OUT or
#                    OUT_DIR/logs), the GPU walk benchmark, the alignment
#                    kernel's device-time benchmark (bench-align-gpu), the
#                    pull kernels' times with a warp and a thread per
#                    destination on Slashdot and luxembourg_osm (the lanes
#                    threshold), a summary
#
# OUT_DIR is created; an existing OUT_DIR is replaced only if it is empty or
# an earlier stage (it has .sluice-stage). The stage must stay under
# SLUICE_STAGE_MAX_MIB (default 60) MiB.
set -euo pipefail

usage() {
  echo "usage: $0 BUILD_DIR OUT_DIR [DATA_DIR]" >&2
  exit 2
}
[ $# -ge 2 ] && [ $# -le 3 ] || usage
BUILD=$(cd "$1" && pwd) || { echo "device-stage: no build dir $1" >&2; exit 2; }
OUT=$2
DATA=${3:-}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MAX_MIB=${SLUICE_STAGE_MAX_MIB:-60}

[ -d "$BUILD/bin" ] || { echo "device-stage: $BUILD/bin does not exist (build first)" >&2; exit 1; }
ARTIFACTS=$BUILD/test/Unit/WalkGpu/artifacts
for f in gpu-walks.ptx gpu-walks.ptx.json reservoir-walks.ptx reservoir-walks.ptx.json; do
  [ -s "$ARTIFACTS/$f" ] || {
    echo "device-stage: $ARTIFACTS/$f is missing: ninja -C $BUILD SluiceGpuWalkArtifacts" >&2
    exit 1
  }
done
ALGO_ARTIFACTS=$BUILD/test/Unit/AlgoGpu/artifacts
for f in gpu-algos.ptx gpu-algos.ptx.json; do
  [ -s "$ALGO_ARTIFACTS/$f" ] || {
    echo "device-stage: $ALGO_ARTIFACTS/$f is missing: ninja -C $BUILD SluiceGpuAlgoArtifacts" >&2
    exit 1
  }
done
ALIGN_ARTIFACTS=$BUILD/test/Unit/AlignGpu/artifacts
[ -s "$ALIGN_ARTIFACTS/align-extend.ptx" ] || {
  echo "device-stage: $ALIGN_ARTIFACTS/align-extend.ptx is missing: ninja -C $BUILD SluiceGpuAlignArtifacts" >&2
  exit 1
}

GNN_ARTIFACTS=$BUILD/test/Unit/GnnGpu/artifacts
for f in gnn-kernels.ptx gnn-kernels.ptx.json; do
  [ -s "$GNN_ARTIFACTS/$f" ] || {
    echo "device-stage: $GNN_ARTIFACTS/$f is missing: ninja -C $BUILD SluiceGpuGnnArtifacts" >&2
    exit 1
  }
done

if [ -e "$OUT" ]; then
  if [ -e "$OUT/.sluice-stage" ] || [ -z "$(ls -A "$OUT")" ]; then
    rm -rf "$OUT"
  else
    echo "device-stage: $OUT exists and is not a stage (no .sluice-stage); not touching it" >&2
    exit 1
  fi
fi
mkdir -p "$OUT/bin" "$OUT/lib" "$OUT/artifacts" "$OUT/data"
touch "$OUT/.sluice-stage"

# The libraries every CUDA image has (glibc, libstdc++, zlib, the driver).
is_system_lib() {
  case "$(basename "$1")" in
    linux-vdso*|ld-linux*|libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|\
    libstdc++.so*|libgcc_s.so*|libz.so*|libcuda.so*|libnvidia*) return 0 ;;
  esac
  return 1
}

staged=() skipped=()
for bin in "$BUILD"/bin/*; do
  [ -f "$bin" ] && [ -x "$bin" ] || continue
  name=$(basename "$bin")
  deps=$(ldd "$bin" 2>&1) || { skipped+=("$name (ldd failed)"); continue; }
  # A sluicec linked statically (SLUICE_STATIC_SLUICEC) has no libLLVM to
  # show, but LLVM's fatal-error text.
  if grep -qE 'libLLVM|libMLIR|libclang' <<<"$deps" ||
    grep -qaF 'LLVM ERROR' "$bin"; then
    skipped+=("$name (links LLVM/MLIR)")
    continue
  fi
  if grep -q 'not found' <<<"$deps"; then
    echo "device-stage: warning: $name has unresolved libraries here:" >&2
    grep 'not found' <<<"$deps" >&2
  fi
  cp "$bin" "$OUT/bin/"
  staged+=("$name")
  # Non-system libraries it needs, and liburing in any case.
  while read -r lib; do
    [ -n "$lib" ] && [ -f "$lib" ] || continue
    is_system_lib "$lib" && continue
    base=$(basename "$lib")
    [ -e "$OUT/lib/$base" ] || cp -L "$lib" "$OUT/lib/$base"
  done < <(awk '/=> \// { print $3 } /^\t\// { print $1 }' <<<"$deps")
done
# liburing: some binaries link it statically, but a tool or a later build
# may link it dynamically; an Ubuntu CUDA image does not have it.
for l in /usr/lib/x86_64-linux-gnu/liburing.so.2 /lib/x86_64-linux-gnu/liburing.so.2; do
  if [ -e "$l" ] && [ ! -e "$OUT/lib/liburing.so.2" ]; then
    cp -L "$l" "$OUT/lib/liburing.so.2"
  fi
done

cp "$ARTIFACTS"/gpu-walks.ptx "$ARTIFACTS"/gpu-walks.ptx.json \
  "$ARTIFACTS"/reservoir-walks.ptx "$ARTIFACTS"/reservoir-walks.ptx.json "$OUT/artifacts/"
cp "$ARTIFACTS"/list-walks.ptx "$ARTIFACTS"/list-walks.ptx.json "$OUT/artifacts/"
# The math built-ins' walks: built only where libdevice was found.
if [ -s "$ARTIFACTS/math-walks.ptx" ]; then
  cp "$ARTIFACTS"/math-walks.ptx "$ARTIFACTS"/math-walks.ptx.json "$OUT/artifacts/"
fi
cp "$ALGO_ARTIFACTS"/gpu-algos.ptx "$ALGO_ARTIFACTS"/gpu-algos.ptx.json "$OUT/artifacts/"
cp "$ALIGN_ARTIFACTS"/align-extend.ptx "$OUT/artifacts/"
cp "$GNN_ARTIFACTS"/gnn-kernels.ptx "$GNN_ARTIFACTS"/gnn-kernels.ptx.json "$OUT/artifacts/"

# Graphs: the bundled one, then the shared ones that are there.
cp "$REPO/examples/data/facebook_combined.txt.gz" "$OUT/data/"
missing_data=()
for g in email-Eu-core.txt.gz soc-Slashdot0902.txt.gz luxembourg_osm.el.gz; do
  if [ -n "$DATA" ] && [ -f "$DATA/$g" ]; then
    cp "$DATA/$g" "$OUT/data/"
  else
    missing_data+=("$g")
  fi
done

# Where the build's compiled-in paths point (tests that read the source tree
# or ../shared/data skip or fail when those are absent on the GPU machine;
# run.sh can link them).
SRC=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$BUILD/CMakeCache.txt" 2>/dev/null || true)
{
  echo "SLUICE_STAGE_SOURCE_DIR='${SRC:-$REPO}'"
  echo "SLUICE_STAGE_DATE='$(date -u +%Y-%m-%dT%H:%M:%SZ)'"
  echo "SLUICE_STAGE_COMMIT='$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo unknown)'"
} > "$OUT/stage.env"

cat > "$OUT/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs the staged Sluice binaries on a GPU machine (written by
# scripts/device-stage.sh; docs/gpu-testing.md). Logs go to $OUT (when set)
# or to logs/ next to this script; summary.txt lists every result.
#   SLUICE_STAGE_TEST_TIMEOUT  seconds per test binary (default 120)
#   SLUICE_STAGE_BENCH_TIMEOUT seconds per benchmark graph (default 240)
#   SLUICE_STAGE_NO_BENCH=1    skip the benchmarks (walks, alignment, lanes)
#   SLUICE_STAGE_NO_LINKS=1    do not link the compiled-in source/data paths
#   SLUICE_STAGE_TESTS="A B"   only these test binaries
#   SLUICE_STAGE_ARCHIVE=FILE  also tar every log into FILE (.tgz)
set -u
STAGE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$STAGE/stage.env"
# A copy may have lost the executable bits.
chmod +x "$STAGE"/bin/* 2> /dev/null || true
LOG=${OUT:-$STAGE/logs}
mkdir -p "$LOG"
SUMMARY=$LOG/summary.txt
: > "$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }

export LD_LIBRARY_PATH="$STAGE/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export SLUICE_GPU_ARTIFACTS="$STAGE/artifacts"
export SLUICE_GPU_DATA="$STAGE/data"
export TMPDIR=${TMPDIR:-/tmp}

say "== Sluice device stage (commit $SLUICE_STAGE_COMMIT, staged $SLUICE_STAGE_DATE), run $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
{
  echo "== nvidia-smi"
  nvidia-smi 2>&1 || echo "nvidia-smi: not available"
  echo "== libcuda"
  ldconfig -p 2>/dev/null | grep -E 'libcuda\.so' || echo "libcuda.so not in the ldconfig cache"
} 2>&1 | tee "$LOG/nvidia-smi.log"

# The tests were built with paths into the source tree and ../shared/data.
# On a GPU machine (nvidia-smi or libcuda present), link those that do not
# exist to this checkout and the staged graphs (nothing is replaced).
on_gpu_machine() {
  command -v nvidia-smi > /dev/null 2>&1 || ldconfig -p 2>/dev/null | grep -q 'libcuda\.so'
}
link_missing() { # PATH TARGET
  [ -e "$1" ] && return 0
  if mkdir -p "$(dirname "$1")" 2>/dev/null && ln -s "$2" "$1" 2>/dev/null; then
    say "linked $1 -> $2"
  else
    say "note: cannot link $1 -> $2 (tests that need it skip or fail)"
  fi
}
if [ -z "${SLUICE_STAGE_NO_LINKS:-}" ] && on_gpu_machine; then
  REPO=$(cd "$STAGE/.." && pwd)
  SRC=$SLUICE_STAGE_SOURCE_DIR
  if [ -d "$REPO/runtime/include/sluice" ]; then
    link_missing "$SRC" "$REPO"
  fi
  link_missing "$(dirname "$SRC")/shared/data" "$STAGE/data"
fi

# The GPU tests first (most worth the device time), then the others.
TIMEOUT=${SLUICE_STAGE_TEST_TIMEOUT:-120}
tests=()
for t in SluiceGpuTests SluiceWalkGpuIntegrationTests SluiceAlgoGpuIntegrationTests SluiceAlignGpuIntegrationTests SluiceGnnGpuIntegrationTests; do
  [ -x "$STAGE/bin/$t" ] && tests+=("$t")
done
for b in "$STAGE"/bin/*Tests; do
  t=$(basename "$b")
  [ -x "$b" ] || continue
  case " ${tests[*]} " in *" $t "*) continue ;; esac
  tests+=("$t")
done
if [ -n "${SLUICE_STAGE_TESTS:-}" ]; then
  tests=($SLUICE_STAGE_TESTS)
fi
failed=0
say ""
say "== tests (timeout ${TIMEOUT}s each; logs in $LOG)"
for t in "${tests[@]}"; do
  start=$(date +%s)
  timeout "$TIMEOUT" "$STAGE/bin/$t" --gtest_brief=1 --gtest_color=no > "$LOG/$t.log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  count() { grep -oE "^\[  $1 +\] [0-9]+" "$LOG/$t.log" | grep -oE '[0-9]+$' | tail -1; }
  passed=$(count PASSED); skippedn=$(count SKIPPED); failedn=$(count FAILED)
  case $rc in
    0) verdict=ok ;;
    124) verdict="TIMEOUT after ${TIMEOUT}s" ;;
    *) verdict="FAILED (exit $rc)" ;;
  esac
  say "$(printf '%-36s %-22s passed %-4s skipped %-4s failed %-4s %4ss' "$t" "$verdict" "${passed:-0}" "${skippedn:-0}" "${failedn:-0}" "$secs")"
  if [ $rc -ne 0 ]; then
    failed=$((failed + 1))
    echo "---- last lines of $t.log" | tee -a "$SUMMARY"
    tail -n 60 "$LOG/$t.log" | tee -a "$SUMMARY"
    echo "----" | tee -a "$SUMMARY"
  fi
  # Why GPU tests skipped (the first reason is enough).
  reason=$(grep -m1 -E 'no GPU|no CUDA|not available' "$LOG/$t.log" || true)
  [ -n "$reason" ] && [ "${skippedn:-0}" != 0 ] && say "    skip reason: $reason"
done

bench_rc=0 bench_state=skipped
if [ -z "${SLUICE_STAGE_NO_BENCH:-}" ] && [ -x "$STAGE/bin/sluice-bench-walks-gpu" ]; then
  BT=${SLUICE_STAGE_BENCH_TIMEOUT:-240}
  bench_state=ok
  say ""
  say "== sluice-bench-walks-gpu (timeout ${BT}s per graph)"
  for g in soc-Slashdot0902.txt.gz luxembourg_osm.el.gz; do
    if [ ! -f "$STAGE/data/$g" ]; then
      say "$g: not staged, skipped"
      continue
    fi
    name=${g%%.*}
    timeout "$BT" "$STAGE/bin/sluice-bench-walks-gpu" --graph="$STAGE/data/$g" \
      --walkers-per-vertex=1,16,64 --repeat=3 --json="$LOG/bench-walks-gpu-$name.json" \
      > "$LOG/bench-walks-gpu-$name.log" 2>&1
    rc=$?
    cat "$LOG/bench-walks-gpu-$name.log" | tee -a "$SUMMARY"
    if [ $rc -ne 0 ]; then
      say "sluice-bench-walks-gpu on $g: exit $rc$([ $rc = 124 ] && echo ' (timeout)')"
      bench_rc=1 bench_state=FAILED
    fi
  done
fi

# The alignment kernel's device time and GCUPS (docs/align.md): every
# round checked against the CPU kernel; it says so and exits 0 without a GPU.
if [ -z "${SLUICE_STAGE_NO_BENCH:-}" ] && [ -x "$STAGE/bin/bench-align-gpu" ] &&
   [ -s "$STAGE/artifacts/align-extend.ptx" ]; then
  BT=${SLUICE_STAGE_BENCH_TIMEOUT:-240}
  [ "$bench_state" = skipped ] && bench_state=ok
  say ""
  say "== bench-align-gpu (timeout ${BT}s)"
  timeout "$BT" "$STAGE/bin/bench-align-gpu" "$STAGE/artifacts/align-extend.ptx" 3 \
    > "$LOG/bench-align-gpu.log" 2>&1
  rc=$?
  cat "$LOG/bench-align-gpu.log" | tee -a "$SUMMARY"
  if [ $rc -ne 0 ]; then
    say "bench-align-gpu: exit $rc$([ $rc = 124 ] && echo ' (timeout)')"
    bench_rc=1 bench_state=FAILED
  fi
fi

# The pull loops' two kernels (a warp or a thread per destination) timed on
# a skewed graph and a road graph: the figures that set
# SLUICE_ALGO_GPU_LANES_MIN_DEGREE (runtime/include/sluice/algo_gpu.h).
if [ -z "${SLUICE_STAGE_NO_BENCH:-}" ] && [ -x "$STAGE/bin/SluiceAlgoGpuIntegrationTests" ]; then
  [ "$bench_state" = skipped ] && bench_state=ok
  say ""
  say "== lanes threshold: pull kernels, a warp vs a thread per destination"
  lanes_filter='SharedGraphs/AlgoGpuLanes.PullWarp*/slashdot:SharedGraphs/AlgoGpuLanes.PullWarp*/luxembourgOsm'
  timeout "${SLUICE_STAGE_BENCH_TIMEOUT:-240}" "$STAGE/bin/SluiceAlgoGpuIntegrationTests" \
    --gtest_filter="$lanes_filter" --gtest_color=no > "$LOG/lanes-threshold.log" 2>&1
  rc=$?
  grep -E '^\[  lanes   \]|^\[ +(OK|FAILED|SKIPPED) +\]' "$LOG/lanes-threshold.log" | tee -a "$SUMMARY"
  if [ $rc -ne 0 ]; then
    say "lanes threshold: exit $rc$([ $rc = 124 ] && echo ' (timeout)')"
    bench_rc=1 bench_state=FAILED
  fi
fi

say ""
say "== summary: ${#tests[@]} test binaries, $failed failed; benchmark $bench_state"
# One archive of every log (the device tool brings back few files).
if [ -n "${SLUICE_STAGE_ARCHIVE:-}" ]; then
  tar czf "$SLUICE_STAGE_ARCHIVE" -C "$(dirname "$LOG")" "$(basename "$LOG")" &&
    echo "logs: $SLUICE_STAGE_ARCHIVE"
fi
[ $failed -eq 0 ] && [ $bench_rc -eq 0 ]
RUN
chmod +x "$OUT/run.sh"

size_kib=$(du -sk "$OUT" | cut -f1)
echo "device-stage: staged ${#staged[@]} binaries into $OUT ($((size_kib / 1024)) MiB):"
printf '  %s\n' "${staged[@]}"
echo "  libs: $(ls "$OUT/lib" | tr '\n' ' ')"
echo "  data: $(ls "$OUT/data" | tr '\n' ' ')"
[ ${#missing_data[@]} -eq 0 ] || echo "  not staged (no DATA_DIR or not in it): ${missing_data[*]}"
echo "left out:"
printf '  %s\n' "${skipped[@]}"
if [ "$size_kib" -gt $((MAX_MIB * 1024)) ]; then
  echo "device-stage: the stage is $((size_kib / 1024)) MiB, over the ${MAX_MIB} MiB limit" >&2
  exit 1
fi
echo "run on the GPU machine: bash $OUT/run.sh   (logs: \$OUT or $OUT/logs)"
