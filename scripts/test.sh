#!/usr/bin/env bash
# Builds attnviz and runs the whole test suite (core, CLI, GUI under Xvfb) with ctest.
# usage: scripts/test.sh            (build directory: build/)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh test
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"
cd build
ctest --output-on-failure -j "$(nproc)"
