#!/bin/sh
# What a sandbox toggle costs in the app: the compute time the status bar shows (random weights
# made or reused, then the forward) and the frame that first shows the result, for toggles at the
# default size and at 12 layers x d_model 768 (85 M weights). Runs the app under Xvfb + Mesa with
# --report-results. Not a test: it prints one line per result. Several build directories (before
# and after) run one after the other in the same run, each with the load average around it.
# usage: bench/sandbox_toggles.sh [BUILD_DIR...]
set -eu
[ $# -gt 0 ] || set -- build
script=$(mktemp)
trap 'rm -f "$script"' EXIT
cat > "$script" <<'ACTIONS'
model sandbox
sentence The animal didn't cross the street because it was too tired.
heads 4
layers 2
norm pre
seed 2
heads 8
layers 1
norm post
seed 1
d_model 768
heads 12
ffn 3072
layers 12
layers 11
layers 12
norm pre
heads 8
heads 12
score dot
score scaled_dot
seed 2
seed 1
quit
ACTIONS
for build in "$@"; do
  echo "== $build"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  xvfb-run -a -s '-screen 0 1280x800x24' "$build/app/attnviz" --script "$script" --report-results
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
done
