#!/bin/sh
# What a toggle of the coreference demo's architecture costs, measured in one run:
#  1. a shipped or cached architecture: the whole CLI process that opens the model, traces the
#     famous sentence and reads the answer (the app does the same on a toggle, minus process start),
#     against a 16.7 ms frame;
#  2. one that is not cached: `train coref` to 99% held-out, wall seconds, for architectures the
#     Model panel offers beyond the grid (layers, FFN width, scoring, norm, positions; C <= 128);
#  3. the app itself: frames drawn while it retrains on a toggle (median and worst frame time).
# usage: bench/coref_toggles.sh [BUILD_DIR]   (default build)
set -eu
build=${1:-build}
cli=$build/app/attnviz-cli app=$build/app/attnviz
text="The animal didn't cross the street because it was too tired."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "load before: $(uptime)"
echo
echo "1. toggle to a shipped cell: open + trace + answer (whole process, best of 5)"
for cell in assets/demo_coref_grid/*/; do
  best=999999
  for i in 1 2 3 4 5; do
    t0=$(date +%s%N); "$cli" predict --model "$cell" --text "$text" > /dev/null; t1=$(date +%s%N)
    ms=$(( (t1 - t0) / 1000 )); [ "$ms" -lt "$best" ] && best=$ms
  done
  printf '   %-40s %6.1f ms\n' "$cell" "$(awk "BEGIN { print $best / 1000 }")"
done
echo
echo "2. an architecture not cached: train coref to 99% (wall seconds)"
printf '   %-28s %8s %8s %8s\n' arch steps acc seconds
for flags in "--layers 1" "--layers 3" "--ffn 64" "--ffn 128" "--score dot" "--score general" "--norm post" \
             "--positions sinusoidal" "--heads 8 --d-model 128 --layers 3" "--heads 2 --d-model 128 --layers 1"; do
  t0=$(date +%s%N)
  line=$("$cli" train coref --out "$out/m" $flags | tail -1)
  t1=$(date +%s%N)
  acc=$(echo "$line" | sed -n 's/^held-out accuracy \([0-9.]*\)% after \([0-9]*\) steps.*/\1/p')
  steps=$(echo "$line" | sed -n 's/^held-out accuracy \([0-9.]*\)% after \([0-9]*\) steps.*/\2/p')
  printf '   %-28s %8s %8s %8.2f\n' "$flags" "$steps" "$acc" "$(awk "BEGIN { print ($t1 - $t0) / 1e9 }")"
done
echo
echo "3. the app while it retrains (Xvfb, Mesa)"
printf 'model coref\ncoref_arch heads=4 d_model=64 layers=3 ffn=64\nquit\n' > "$out/s.txt"
XDG_CACHE_HOME="$out/cache" xvfb-run -a -s '-screen 0 1280x800x24' "$app" --script "$out/s.txt" 2>&1 | grep "frames drawn" || true
echo
echo "load after: $(uptime)"
