#!/usr/bin/env bash
# Builds the Debian package into build-package/: a Release build without -march=native (the .deb
# must run on other x86-64 machines than this one), without the tests and benchmarks, then
# cpack -G DEB. Install it with: sudo apt install ./build-package/attnviz_*.deb
# usage: scripts/package.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh package
cmake -S . -B build-package -DCMAKE_BUILD_TYPE=Release -DATTNVIZ_MARCH= -DATTNVIZ_BUILD_TESTS=OFF \
      -DATTNVIZ_BENCH=OFF >/dev/null
cmake --build build-package -j "$(nproc)"
(cd build-package && cpack -G DEB)
