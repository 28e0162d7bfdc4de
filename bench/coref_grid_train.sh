#!/usr/bin/env bash
# Training time of every cell of the coreference grid (assets/demo_coref_grid/grid.json): runs
# `attnviz-cli train coref` with each cell's seed and --steps into a temporary folder and prints
# wall seconds, steps and held-out accuracy per cell, with the load average. A benchmark, not a test.
# usage: bench/coref_grid_train.sh [CLI]     (default build/app/attnviz-cli)
set -euo pipefail
cd "$(dirname "$0")/.."
cli=$(realpath "${1:-build/app/attnviz-cli}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "before: $(uptime)"
printf '%5s %7s %5s %6s %11s %9s %8s\n' heads d_model seed steps "steps done" held-out seconds
python3 -c '
import json
for m in json.load(open("assets/demo_coref_grid/grid.json"))["models"]:
    print(m["heads"], m["d_model"], m["seed"], "-" if m["steps"] is None else m["steps"])' |
while read -r nh c seed steps; do
  args=(train coref --heads "$nh" --d-model "$c" --seed "$seed" --out "$tmp/heads${nh}_dmodel${c}")
  [ "$steps" = "-" ] || args+=(--steps "$steps")
  start=$(date +%s.%N)
  line=$("$cli" "${args[@]}" | tail -n 1)
  end=$(date +%s.%N)
  # "held-out accuracy 99.04% after 200 steps — saved ..."
  acc=$(sed -E 's/^held-out accuracy ([0-9.]+%) after ([0-9]+) steps.*/\1/' <<<"$line")
  done_steps=$(sed -E 's/^held-out accuracy ([0-9.]+%) after ([0-9]+) steps.*/\2/' <<<"$line")
  printf '%5s %7s %5s %6s %11s %9s %8.2f\n' "$nh" "$c" "$seed" "$steps" "$done_steps" "$acc" \
    "$(echo "$end - $start" | bc)"
done
echo "after:  $(uptime)"
