#!/usr/bin/env bash
# Installs every Debian package Sluice's build and tests need. Idempotent:
# packages already installed are skipped, and apt is not touched at all when
# nothing is missing.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache python3 pkg-config
  flex bison
  lld                                   # links sluicec's static LLVM/MLIR
  llvm-19-dev libmlir-19-dev mlir-19-tools llvm-19-tools
  clang-19 libclang-rt-19-dev          # libFuzzer and sanitizers
  libgtest-dev                          # unit tests
  libboost-graph-dev                    # max-flow / min-cut in analyses
  libglpk-dev                           # LP solver for multi-commodity flows
  graphviz                              # dot -> SVG for topology views
  zlib1g-dev                            # runtime: gzip'd graph inputs
  liburing-dev                          # runtime: io_uring I/O engine
  libzstd-dev                           # runtime: measured block compression (SmartDS)
  liblz4-dev                            # runtime: lz4, its second codec (SmartDS)
  libexpat1-dev                         # sluice-import-topo: hwloc XML
  fio                                   # bench/offload: the I/O baseline
  python3-dev python3-pybind11 pybind11-dev   # the Python package (python/)
  python3-numpy python3-scipy python3-pytest  # its arrays and its tests
  python3-gensim                        # examples/embed-python (Word2Vec)
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
