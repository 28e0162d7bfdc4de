#!/bin/sh
# Training time of the coreference demo for architectures the Model panel offers beyond the grid
# (C <= 128), before and after a change, in one run: `train coref` to 99% held-out, wall seconds of
# the whole process, each architecture with every binary in turn (so load drifts hit both alike).
# Includes the heaviest the panel allows at C 128: 4 layers, FFN 256, "general" and additive scores.
# usage: bench/coref_train_speed.sh LABEL=CLI [LABEL=CLI ...]
#   e.g. bench/coref_train_speed.sh before=/tmp/before/app/attnviz-cli after=build/app/attnviz-cli
set -eu
[ $# -ge 1 ] || { echo "usage: $0 LABEL=CLI [LABEL=CLI ...]" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "load before: $(uptime)"
printf '%-46s %-8s %6s %8s %8s\n' arch binary steps acc seconds
for flags in "--layers 1" "--layers 3" "--ffn 64" "--ffn 128" "--score dot" "--score general" "--norm post" \
             "--positions sinusoidal" "--heads 2 --d-model 128 --layers 1" "--heads 1 --d-model 128 --layers 1" \
             "--heads 8 --d-model 128 --layers 3" "--heads 8 --d-model 128 --layers 4" \
             "--heads 8 --d-model 128 --layers 4 --score general" "--heads 8 --d-model 128 --layers 4 --score additive" \
             "--heads 4 --d-model 128 --ffn 256" "--heads 4 --d-model 128 --layers 4 --ffn 256"; do
  for pair in "$@"; do
    label=${pair%%=*} cli=${pair#*=}
    t0=$(date +%s%N)
    # shellcheck disable=SC2086 # the flags are words
    line=$("$cli" train coref --out "$out/m" $flags | tail -1)
    t1=$(date +%s%N)
    acc=$(echo "$line" | sed -n 's/^held-out accuracy \([0-9.]*\)% after \([0-9]*\) steps.*/\1/p')
    steps=$(echo "$line" | sed -n 's/^held-out accuracy \([0-9.]*\)% after \([0-9]*\) steps.*/\2/p')
    printf '%-46s %-8s %6s %8s %8.2f\n' "$flags" "$label" "$steps" "$acc" "$(awk "BEGIN { print ($t1 - $t0) / 1e9 }")"
  done
done
echo "load after: $(uptime)"
