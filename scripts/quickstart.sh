#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds Sluice, installs it (tools,
# runtime and the Python package) under SLUICE_PREFIX (default /usr/local,
# where Debian's python3 finds the package: `import sluice` just works) and
# runs the main job on a bundled example: node2vec (p = 2, q = 0.5,
# 80-vertex walks) on SNAP's ego-Facebook graph (examples/data/),
# JIT-compiled by sluicec; it prints walks/s and where the walks were
# written. SLUICE_PREFIX= (empty) skips the install.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
BUILD_DIR=${BUILD_DIR:-build}
PREFIX=${SLUICE_PREFIX-/usr/local}
if [ -n "$PREFIX" ]; then
  SUDO=""
  if [ ! -w "$PREFIX" ] && [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo
  echo "== cmake --install $BUILD_DIR --prefix $PREFIX"
  $SUDO cmake --install "$BUILD_DIR" --prefix "$PREFIX" >/dev/null
  if [ -n "$SUDO" ] || [ "$(id -u)" -eq 0 ]; then $SUDO ldconfig || true; fi
  (cd / && /usr/bin/python3 -c "import sluice; print('python3: import sluice ->', sluice.__file__, '(runtime', sluice.runtime_version + ')')") ||
    echo "note: python3 does not find $PREFIX's package; use PYTHONPATH=$PREFIX/lib/python3.*/dist-packages"
fi
echo
echo "== sluicec --run examples/walks/node2vec-facebook.sluice --walks-out $BUILD_DIR/node2vec-facebook.walks"
"$BUILD_DIR/bin/sluicec" --run examples/walks/node2vec-facebook.sluice \
  --walks-out "$BUILD_DIR/node2vec-facebook.walks"
