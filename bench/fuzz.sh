#!/usr/bin/env bash
# Runs the libFuzzer targets of tests/fuzz/ for SECONDS each, two at a time, printing per target:
# executions, exec/s, corpus size and whether it found a crash. The targets are built by CMake
# (-DATTNVIZ_FUZZ=ON with clang: ASan + UBSan, no recovery) into their own build directory; this
# script only configures that build and runs what it made. Touches no committed corpus: new inputs
# go to build-fuzz/corpus/<target>, findings to build-fuzz/artifacts/<target>/.
#   bench/fuzz.sh SECONDS [TARGET ...]      (default: every target CMake built; BUILD=dir overrides build-fuzz)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build-fuzz}
bin=$build/tests/fuzz

max_len_of() {  # binary formats get room for a real file; text inputs stay small enough to mutate well
  case $1 in safetensors|npy|gguf) echo 1048576 ;; *) echo 65536 ;; esac
}

build_all() {
  # ccache speeds up rebuilds when it is there; nothing needs it (an empty launcher also clears one
  # cached by an earlier run). CCACHE_BASEDIR makes its keys independent of where the tree is.
  local launcher=
  if command -v ccache >/dev/null; then
    export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
    launcher=ccache
  fi
  cmake -S "$root" -B "$build" -DCMAKE_CXX_COMPILER="${CXX_FUZZ:-clang++}" -DCMAKE_C_COMPILER="${CC_FUZZ:-clang}" \
        -DCMAKE_BUILD_TYPE=None -DATTNVIZ_FUZZ=ON -DATTNVIZ_BUILD_APP=OFF \
        -DATTNVIZ_BUILD_TESTS=OFF -DATTNVIZ_BENCH=OFF -DCMAKE_CXX_COMPILER_LAUNCHER="$launcher" >/dev/null
  cmake --build "$build" --target fuzz_targets -j2
}

# One target: libFuzzer's own loop for SECONDS, then a summary line from its final stats.
run_one() {
  local t=$1 seconds=$2
  local corpus="$build/corpus/$t" artifacts="$build/artifacts/$t" log="$build/logs/$t.log"
  mkdir -p "$corpus" "$artifacts" "$build/logs"
  local status=0
  "$bin/fuzz_$t" "$corpus" "$root/tests/fuzz/corpus/$t" -max_total_time="$seconds" -timeout=10 \
    -max_len="$(max_len_of "$t")" -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" > "$log" 2>&1 || status=$?
  local execs rate corp found
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  corp=$(ls "$corpus" | wc -l)
  found=no
  if [[ $status -ne 0 ]] || ls "$artifacts" | grep -q .; then
    found="YES: $(ls "$artifacts" | tr '\n' ' ')(log: $log)"
  fi
  printf '%-15s executions %-10s exec/s %-7s corpus %-6s crash %s\n' "$t" "${execs:-?}" "${rate:-?}" "$corp" "$found"
}

if [[ ${1:-} == --run-one ]]; then
  run_one "$2" "$3"
  exit 0
fi

seconds=${1:?usage: bench/fuzz.sh SECONDS [TARGET ...]}
shift
targets=("$@")
build_all
if [[ ${#targets[@]} -eq 0 ]]; then
  for f in "$bin"/fuzz_*; do [[ -x $f ]] && targets+=("${f##*/fuzz_}"); done
fi
# Two at a time: the machine has two cores, and each run is one CPU-bound process.
printf '%s\n' "${targets[@]}" | xargs -P 2 -I{} "$0" --run-one {} "$seconds"
