#!/bin/sh
# Time per training step, before and after a change to training's arithmetic, in one run: each
# architecture trains exactly STEPS steps (its only held-out check at the last one, so no run stops
# early and both binaries do the same work however their models learn), every binary in turn; the
# process's wall and CPU seconds divided by STEPS. Architectures: the shipped demos, and the heavy
# ends of the Model panel (C 128, 4 layers, FFN 256, "general" and additive scores).
# usage: bench/train_step_time.sh STEPS LABEL=CLI [LABEL=CLI ...]
#   e.g. bench/train_step_time.sh 200 before=/tmp/base/build/app/attnviz-cli after=build/app/attnviz-cli
set -eu
[ $# -ge 2 ] || { echo "usage: $0 STEPS LABEL=CLI [LABEL=CLI ...]" >&2; exit 2; }
steps=$1
shift
binaries="$*"  # LABEL=CLI words (paths without spaces)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "load before: $(uptime)"
printf '%-58s %-8s %10s %10s\n' arch binary "wall ms" "cpu ms"
for run in "coref" "coref --heads 1" "coref --heads 8 --d-model 64" "coref --ffn 128" "coref --score additive" \
           "coref --heads 8 --d-model 128 --layers 4 --ffn 256" "coref --heads 8 --d-model 128 --layers 4 --score general" \
           "induction" "induction --heads 4 --d-model 64 --layers 3 --ffn 128"; do
  for pair in $binaries; do
    label=${pair%%=*} cli=${pair#*=}
    # shellcheck disable=SC2086 # the run is words: the demo, then its flags
    t=$( { /usr/bin/time -f '%e %U %S' "$cli" train $run --out "$out/m" --steps "$steps" --eval-every 100000 >/dev/null; } 2>&1 | tail -1)
    wall=$(echo "$t" | awk -v s="$steps" '{ printf "%.2f", 1000 * $1 / s }')
    cpu=$(echo "$t" | awk -v s="$steps" '{ printf "%.2f", 1000 * ($2 + $3) / s }')
    printf '%-58s %-8s %10s %10s\n' "$run" "$label" "$wall" "$cpu"
  done
done
echo "load after: $(uptime)"
