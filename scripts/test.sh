#!/usr/bin/env bash
# Builds attnviz and runs the whole test suite (core, CLI, GUI under Xvfb) with ctest, built with
# AddressSanitizer + UndefinedBehaviorSanitizer (-fno-sanitize-recover: the first report fails the
# test), for x86-64-v3 (AVX2 and FMA: what most users' CPUs run, whatever this machine has). A
# second, small pass builds the part of core that training runs for another instruction set (this
# CPU's own when it has more than x86-64-v3, such as AVX-512, else x86-64-v2: no AVX at all) and
# the suite checks that both compute the same bits (tests/portability/); the training tests retrain
# every shipped demo to its bytes in the first.
# The sanitizer build uses clang: it compiles the instrumented tree in about 8 CPU-minutes where GCC
# took 28, and its UBSan checks more (null-pointer offsets); the app's own build (scripts/run.sh)
# stays GCC, and the training tests show both compilers make the same bits (bench/README.md,
# "Build and test time: 2026-11-26").
# usage: scripts/test.sh                (build directory: build-sanitize/)
#        scripts/test.sh --no-sanitize  (everything on the Release build in build/, for a quick local run)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh test
jobs="$(nproc)"

# The second pass: attnviz-portability-check alone, for the other instruction set, by clang without
# the sanitizers (58 s here where GCC took 92: the suite must stay within 12 minutes; the bits are the
# same either way, bench/README.md). A build-portable/ configured for GCC is started afresh.
other_march=x86-64-v2
if clang++ -march=native -dM -E -x c++ /dev/null | grep -q '__AVX512F__'; then other_march=native; fi
echo "attnviz: training's part of core for -march=$other_march (the portability check's second build)"
if [ -f build-portable/CMakeCache.txt ] && ! grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang++' build-portable/CMakeCache.txt; then
  rm -rf build-portable
fi
cmake -S . -B build-portable -DCMAKE_BUILD_TYPE=Release -DATTNVIZ_PORTABILITY_ONLY=ON -DATTNVIZ_BUILD_APP=OFF \
  -DATTNVIZ_MARCH="$other_march" -DCMAKE_UNITY_BUILD=ON -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
cmake --build build-portable -j "$jobs" --target attnviz-portability-check
other_pass="$PWD/build-portable/tests/portability/attnviz-portability-check"

if [ "${1:-}" = "--no-sanitize" ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DATTNVIZ_OTHER_PASS="$other_pass" >/dev/null
  cmake --build build -j "$jobs"
  (cd build && ctest --output-on-failure -j "$jobs")
  exit 0
fi

echo "attnviz: the whole suite under AddressSanitizer + UndefinedBehaviorSanitizer"
# The benchmarks are not part of the suite: the sanitizer pass does not build them.
# A build-sanitize/ configured for another compiler (GCC, before 2026-11-26) is started afresh.
if [ -f build-sanitize/CMakeCache.txt ] && ! grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang++' build-sanitize/CMakeCache.txt; then
  rm -rf build-sanitize
fi
# A unity build (CMake compiles each target's sources eight to a file): the headers every file
# includes (Eigen, nlohmann/json, doctest) and their templates are compiled once per eight files, not
# once per file; scripts/run.sh builds the app the same way (bench/README.md, "The suite's time").
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Release -DATTNVIZ_SANITIZE=ON -DATTNVIZ_BENCH=OFF \
  -DATTNVIZ_MARCH=x86-64-v3 -DATTNVIZ_OTHER_PASS="$other_pass" -DCMAKE_UNITY_BUILD=ON \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
cmake --build build-sanitize -j "$jobs"
# Leaks are errors for our code; tests/sanitizer.supp lists the system libraries (Mesa, X11,
# fontconfig) whose one-time allocations LeakSanitizer would otherwise report.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/sanitizer.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
(cd build-sanitize && ctest --output-on-failure -j "$jobs")
