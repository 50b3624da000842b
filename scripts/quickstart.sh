#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds Sluice and runs the main job on a
# bundled example: analyse the DGX A100 topology and show the result.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
echo
echo "== sluicec --emit=report examples/machines/dgx-a100.sluice"
build/bin/sluicec --emit=report examples/machines/dgx-a100.sluice
