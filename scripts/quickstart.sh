#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds Sluice and runs the main job on a
# bundled example: node2vec (p = 2, q = 0.5, 80-vertex walks) on SNAP's
# ego-Facebook graph (examples/data/), JIT-compiled by sluicec; it prints
# walks/s and where the walks were written.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
BUILD_DIR=${BUILD_DIR:-build}
echo
echo "== sluicec --run examples/walks/node2vec-facebook.sluice --walks-out $BUILD_DIR/node2vec-facebook.walks"
"$BUILD_DIR/bin/sluicec" --run examples/walks/node2vec-facebook.sluice \
  --walks-out "$BUILD_DIR/node2vec-facebook.walks"
