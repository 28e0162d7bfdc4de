#!/usr/bin/env bash
# Builds every libFuzzer target in tests/fuzz/ with clang++ (ASan + UBSan, no recovery) in its own
# build directory and runs each for SECONDS, two at a time, printing per target: executions,
# exec/s, corpus size and whether it found a crash. Touches no CMake file and no committed corpus:
# new inputs go to build-fuzz/corpus/<target>, findings to build-fuzz/artifacts/<target>/.
#   bench/fuzz.sh SECONDS [TARGET ...]      (default: all targets; BUILD=dir overrides build-fuzz)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build-fuzz}
all_targets=(safetensors npy session cli word_tokenizer bpe wordpiece hf_config)

# The core (and CLI) sources the targets reach; an archive lets each target link only what it uses.
lib_sources=(
  core/safetensors.cpp core/file_io.cpp core/json_depth.cpp core/npy.cpp core/session.cpp core/config.cpp
  core/tokenizer.cpp core/utf8.cpp core/unicode_props.cpp core/bpe_tokenizer.cpp core/wordpiece_tokenizer.cpp
  core/hf_checkpoint.cpp core/model.cpp core/model_io.cpp core/rng.cpp core/embed.cpp core/layer.cpp
  core/kernels.cpp core/attention.cpp core/mask.cpp core/colormap.cpp app/cli_options.cpp
)

max_len_of() {  # binary formats get room for a real file; text inputs stay small enough to mutate well
  case $1 in safetensors|npy) echo 1048576 ;; *) echo 65536 ;; esac
}

cxx=${CXX_FUZZ:-clang++}
# Eigen's own range asserts stay on (no EIGEN_NO_DEBUG): an out-of-range index is a finding too.
cxxflags=(-std=c++20 -O1 -g -fno-omit-frame-pointer -fopenmp
          -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
          -Wall -Wextra -Wpedantic -I"$root" -isystem /usr/include/eigen3 -isystem /usr/include/stb
          -DATTNVIZ_FUZZ_ENTRY "-DATTNVIZ_FIXTURES=\"$root/tests/fixtures\"")
ldflags=(-fopenmp -fsanitize=fuzzer,address,undefined)

build_all() {
  mkdir -p "$build/obj"
  # A generated Makefile gives incremental, header-aware (-MMD) rebuilds at -j2.
  {
    echo "CXX := $cxx"
    printf 'CXXFLAGS :='; printf ' %q' "${cxxflags[@]}"; echo
    printf 'LDFLAGS :='; printf ' %q' "${ldflags[@]}"; echo
    local objs=()
    for src in "${lib_sources[@]}"; do
      local obj="obj/$(echo "$src" | tr / _).o"
      objs+=("$obj")
      printf '%s: %s\n\t$(CXX) $(CXXFLAGS) -MMD -MP -c $< -o $@\n' "$obj" "$root/$src"
    done
    echo "libattnviz_fuzz.a: ${objs[*]}"
    printf '\trm -f $@ && ar rcs $@ $^\n'
    for t in "${all_targets[@]}"; do
      printf 'obj/fuzz_%s.o: %s\n\t$(CXX) $(CXXFLAGS) -MMD -MP -c $< -o $@\n' "$t" "$root/tests/fuzz/fuzz_$t.cpp"
      printf 'fuzz_%s: obj/fuzz_%s.o libattnviz_fuzz.a\n\t$(CXX) $^ $(LDFLAGS) -o $@\n' "$t" "$t"
    done
    printf 'all:'; for t in "${all_targets[@]}"; do printf ' fuzz_%s' "$t"; done; echo
    echo ".DEFAULT_GOAL := all"
    echo "-include obj/*.d"
  } > "$build/Makefile"
  make -s -C "$build" -j2
}

# One target: libFuzzer's own loop for SECONDS, then a summary line from its final stats.
run_one() {
  local t=$1 seconds=$2
  local corpus="$build/corpus/$t" artifacts="$build/artifacts/$t" log="$build/logs/$t.log"
  mkdir -p "$corpus" "$artifacts" "$build/logs"
  local status=0
  "$build/fuzz_$t" "$corpus" "$root/tests/fuzz/corpus/$t" -max_total_time="$seconds" -timeout=10 \
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
[[ ${#targets[@]} -eq 0 ]] && targets=("${all_targets[@]}")
build_all
# Two at a time: the machine has two cores, and each run is one CPU-bound process.
printf '%s\n' "${targets[@]}" | xargs -P 2 -I{} "$0" --run-one {} "$seconds"
