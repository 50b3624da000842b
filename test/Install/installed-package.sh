#!/usr/bin/env bash
# The installed runtime package, as a user gets it (docs/build.md,
# "Installing"): `cmake --install BUILD --component runtime` into a
# temporary prefix, then examples/embed-graph built against it twice, with
# find_package(Sluice) and with pkg-config, and run on GRAPH. Fails when a
# header, the library, the CMake package or the .pc file is missing or
# wrong.
#
#   installed-package.sh BUILD_DIR EXAMPLE_DIR GRAPH
set -euo pipefail
BUILD=$1 EXAMPLE=$2 GRAPH=$3
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sluice-install.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
PREFIX=$TMP/prefix

cmake --install "$BUILD" --prefix "$PREFIX" --component runtime >/dev/null
for f in include/sluice/graph.h include/sluice/walk.h lib/libsluicert.so \
         lib/cmake/Sluice/SluiceConfig.cmake lib/pkgconfig/sluice.pc; do
  [[ -e $PREFIX/$f ]] || { echo "missing $PREFIX/$f" >&2; exit 1; }
done
# Nothing of the build tree leaks into the package.
if grep -rq "$(cd "$BUILD" && pwd)" "$PREFIX/lib/cmake" "$PREFIX/lib/pkgconfig"; then
  echo "the installed package refers to the build tree" >&2; exit 1
fi
export LD_LIBRARY_PATH=$PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# 1. CMake: find_package(Sluice) -> Sluice::sluicert.
cmake -S "$EXAMPLE" -B "$TMP/cmake-build" -DCMAKE_PREFIX_PATH="$PREFIX" \
  -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$TMP/cmake-build" >/dev/null
out=$("$TMP/cmake-build/sluice-embed-graph" --simple --quiet "$GRAPH")
echo "$out"
grep -Eq "vertices +4039" <<<"$out"
grep -Eq "edges +176468" <<<"$out"

# 2. pkg-config.
flags=$(PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig pkg-config --cflags --libs sluice)
[[ $(PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig pkg-config --modversion sluice) =~ ^[0-9]+\.[0-9]+$ ]]
cc -std=c11 -o "$TMP/pc-embed" "$EXAMPLE/embed_graph.c" $flags
"$TMP/pc-embed" --simple --quiet "$GRAPH" | grep -Eq "edges +176468"

# 3. The Python package, when the build has it.
if [[ -d $BUILD/python/sluice ]]; then
  cmake --install "$BUILD" --prefix "$PREFIX" --component python >/dev/null
  pyver=$(/usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  (cd "$TMP" && PYTHONPATH=$PREFIX/lib/python$pyver/dist-packages /usr/bin/python3 -c \
    "import sluice; g = sluice.Graph.load('$GRAPH', format='snap', undirected=True); assert g.num_vertices == 4039, g.num_vertices; print('python package:', sluice.__file__)") |
    grep -q "$PREFIX"
fi
echo "installed package: OK"
