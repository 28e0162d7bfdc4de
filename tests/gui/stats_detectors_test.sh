#!/bin/sh
# Scripted GUI test of the Statistics view's head detectors: the induction demo (English) and the
# coreference demo on the animal sentence (Korean, presentation mode) in the Statistics view; each
# screenshot must be a full, non-blank frame. That the grids show detector_grid's numbers, and
# the demos' heads (induction in layer 2, coreference at layer 2 head 3), is test_detector_report's.
# usage: stats_detectors_test.sh ATTNVIZ CHECK_PNG
set -eu
app=$1 check_png=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cat > "$out/actions.txt" <<ACTIONS
model induction
view stats
screenshot $out/induction.png
model coref
sentence The animal didn't cross the street because it was too tired.
lang ko
presentation on
screenshot $out/coref_ko.png
quit
ACTIONS
xvfb-run -a -s '-screen 0 1280x800x24' "$app" --script "$out/actions.txt"
"$check_png" "$out/induction.png" 1280 800
"$check_png" "$out/coref_ko.png" 1280 800
echo "stats detectors test: induction and coreference demos drawn in the Statistics view"
