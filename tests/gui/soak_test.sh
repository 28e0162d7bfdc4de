#!/bin/sh
# The soak test: a seeded random script of COUNT actions (soak_actions.cpp: edits with random Unicode,
# pastes, every toggle with values the engine refuses, model switches mid-computation, mid-load and
# mid-training, all ten views, ablations, exports, sessions) drives the app under Xvfb. It passes
# when the app exits 0 (no crash; under the sanitizer build no ASan/UBSan report), is idle within 5 s
# of the last action (`expect idle 5`: nothing in flight, no view left "computing…"), and its peak
# resident memory (`report memory`: VmHWM) stays under LIMIT_MB. A failure names the seed and the
# script line; `soak_actions --seed SEED --count COUNT --dir D --fixtures F` writes the same script.
# With KEEP_LOADED (the sanitizer build's keep_libraries_loaded.so) LeakSanitizer runs too: the GL
# driver stays mapped, so tests/sanitizer.supp can name its allocations, and a leak of ours fails.
# usage: soak_test.sh ATTNVIZ SOAK_ACTIONS FIXTURES SEED COUNT LIMIT_MB [KEEP_LOADED]
set -eu
app=$1 gen=$2 fixtures=$3 seed=$4 count=$5 limit_mb=$6 keep=${7:-}
preload=
if [ -n "$keep" ]; then  # the ASan runtime must come first among preloaded libraries
  asan=$(ldd "$app" | sed -n 's/^[[:space:]]*libasan[^ ]* => \([^ ]*\).*/\1/p')
  preload="$asan:$keep"
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export XDG_CONFIG_HOME="$out/config" XDG_STATE_HOME="$out/state" XDG_CACHE_HOME="$out/cache"
"$gen" --seed "$seed" --count "$count" --dir "$out" --fixtures "$fixtures" > "$out/actions.txt"
replay="soak_actions --seed $seed --count $count --dir DIR --fixtures $fixtures > DIR/actions.txt; attnviz --size 400x250 --script DIR/actions.txt"
start=$(date +%s)
# A small window (near --size's least): the frames between actions cost less; the actions are the same.
if ! xvfb-run -a -s '-screen 0 1280x800x24' env ${preload:+LD_PRELOAD=$preload} "$app" --size 400x250 --script "$out/actions.txt" > "$out/stdout" 2> "$out/stderr"; then
  tail -n 60 "$out/stderr"
  echo "soak test: seed $seed failed after $(($(date +%s) - start)) s; the last lines started:"
  grep 'script line' "$out/stdout" | tail -n 5
  echo "replay: $replay"
  exit 1
fi
seconds=$(($(date +%s) - start))
peak_kb=$(sed -n 's/^attnviz: memory: peak \([0-9]*\) kB.*/\1/p' "$out/stdout")
settled=$(sed -n 's/^attnviz: script line [0-9]*: passed after \(.*\) s$/\1/p' "$out/stdout" | tail -n 1)
actions=$(grep -cv '^#' "$out/actions.txt")
[ -n "$peak_kb" ] || { echo "soak test: no memory report (seed $seed)"; cat "$out/stdout"; exit 1; }
echo "soak test: seed $seed, $actions script lines in $seconds s; peak memory $((peak_kb / 1024)) MB (limit $limit_mb MB); idle ${settled:-?} s after the last action"
if [ $((peak_kb / 1024)) -gt "$limit_mb" ]; then
  echo "soak test: seed $seed: peak memory $((peak_kb / 1024)) MB is over $limit_mb MB"
  echo "replay: $replay"
  exit 1
fi
