#!/usr/bin/env bash
# Rebuilds the grid of coreference demo models (assets/demo_coref_grid/heads{NH}_dmodel{C}/) with
# `attnviz-cli train coref`, each cell from the seed and --steps its grid.json entry names, and fails
# when a run does not end at the manifest's held-out accuracy and step count.
# usage: scripts/make_coref_grid.sh path/to/attnviz-cli [OUT_DIR]   (default OUT_DIR: assets/demo_coref_grid)
set -euo pipefail
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 path/to/attnviz-cli [OUT_DIR]" >&2; exit 2; }
cli=$(realpath "$1")
repo=$(cd "$(dirname "$0")/.." && pwd)
out=${2:-$repo/assets/demo_coref_grid}
manifest=$repo/assets/demo_coref_grid/grid.json

# One line per cell: heads d_model seed steps-or-empty steps_trained accuracy-in-percent (2 decimals).
cells=$(python3 - "$manifest" <<'PY'
import json, sys
for m in json.load(open(sys.argv[1]))["models"]:
    steps = "" if m["steps"] is None else str(m["steps"])
    print(m["heads"], m["d_model"], m["seed"], steps or "-", m["steps_trained"], f'{100 * m["heldout_accuracy"]:.2f}')
PY
)

status=0
while read -r nh c seed steps trained percent; do
  dir=$out/heads${nh}_dmodel${c}
  args=(train coref --heads "$nh" --d-model "$c" --seed "$seed" --out "$dir")
  [ "$steps" = "-" ] || args+=(--steps "$steps")
  line=$("$cli" "${args[@]}" | tail -n 1)
  echo "heads $nh d_model $c seed $seed: $line"
  case $line in
    "held-out accuracy $percent% after $trained steps"*) ;;
    *) echo "  expected held-out accuracy $percent% after $trained steps (grid.json)" >&2; status=1 ;;
  esac
done <<<"$cells"
exit $status
