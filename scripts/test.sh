#!/usr/bin/env bash
# Builds attnviz and runs the whole test suite (core, CLI, GUI under Xvfb) with ctest, built with
# AddressSanitizer + UndefinedBehaviorSanitizer (-fno-sanitize-recover: the first report fails the
# test). The tests whose numbers depend on the optimised build — the shipped demos retrain bit for
# bit only in the Release build they were trained with (label `training`) — run on a Release build
# first, and again under the sanitizers with everything else.
# usage: scripts/test.sh                (build directories: build/ and build-sanitize/)
#        scripts/test.sh --no-sanitize  (everything on the Release build only, for a quick local run)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh test
jobs="$(nproc)"

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
if [ "${1:-}" = "--no-sanitize" ]; then
  cmake --build build -j "$jobs"
  (cd build && ctest --output-on-failure -j "$jobs")
  exit 0
fi
# Only what the Release-only checks need: core/ and the training tests. Building the app, the CLI
# and the other tests a second time without sanitizers, and running them there too, was 40% of the
# suite's time and checked nothing the sanitizer pass does not (bench/README.md, "Build and test time: 2026-11-25, later").
cmake --build build -j "$jobs" --target attnviz_training_tests
(cd build && ctest --output-on-failure -j "$jobs" -L training)

echo "attnviz: the whole suite under AddressSanitizer + UndefinedBehaviorSanitizer"
# The benchmarks are not part of the suite: the sanitizer pass does not build them.
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Release -DATTNVIZ_SANITIZE=ON -DATTNVIZ_BENCH=OFF >/dev/null
cmake --build build-sanitize -j "$jobs"
# Leaks are errors for our code; tests/sanitizer.supp lists the system libraries (Mesa, X11,
# fontconfig) whose one-time allocations LeakSanitizer would otherwise report.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/sanitizer.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
(cd build-sanitize && ctest --output-on-failure -j "$jobs")
