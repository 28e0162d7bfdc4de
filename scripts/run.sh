#!/usr/bin/env bash
# Installs what is missing, builds the desktop app (and the core library it links; not the CLI, the
# tests or the benchmarks: scripts/test.sh builds those) and launches it. Arguments go to the app.
# usage: scripts/run.sh [app options]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh app
# A unity build, as scripts/test.sh builds the suite: eight sources to a file, so the first launch
# compiles the common headers once per eight files (bench/README.md, "The suite's time").
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=ON >/dev/null
cmake --build build -j "$(nproc)" --target attnviz
exec ./build/app/attnviz "$@"
