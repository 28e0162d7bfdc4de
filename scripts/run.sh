#!/usr/bin/env bash
# Installs what is missing, builds attnviz and launches the desktop app. Arguments go to the app.
# usage: scripts/run.sh [app options]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh app
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"
exec ./build/app/attnviz "$@"
