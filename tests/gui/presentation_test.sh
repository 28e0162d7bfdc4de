#!/bin/sh
# GUI test of presentation mode on a projector's screen: the coreference demo at 1280 x 800 and at
# 1024 x 768 with the side panels folded away (F6, the script's `panels`, brings them back). The
# layout reports hold the Heads view of layer 2 to four heatmaps with cells of at least 28 px at
# 1280 x 800 (22 px at 1024 x 768), each with its values, and every token label drawn; Compare
# likewise with 22 px; in Korean too. Keeps the screenshots when ATTNVIZ_KEEP_SCREENSHOTS is set.
# usage: presentation_test.sh ATTNVIZ CHECK_PNG CHECK_LAYOUT
set -eu
app=$1 check_png=$2 check_layout=$3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() {  # run SIZE LANG NAME: the Heads view of layer 2 and Compare, in presentation mode
  size=$1 lang=$2 name=$3
  cat > "$out/$name.txt" <<ACTIONS
lang $lang
model coref
sentence The animal didn't cross the street because it was too tired.
view heads
layer 1
presentation on
layout_report $out/${name}_heads.json
screenshot $out/${name}_heads.png
view compare
layout_report $out/${name}_compare.json
screenshot $out/${name}_compare.png
panels on
view heads
screenshot $out/${name}_panels.png
quit
ACTIONS
  xvfb-run -a -s "-screen 0 ${size}x24" "$app" --size "$size" --script "$out/$name.txt"
  w=${size%x*} h=${size#*x}
  for png in heads compare panels; do "$check_png" "$out/${name}_$png.png" "$w" "$h"; done
}
run 1280x800 en projector
"$check_layout" "$out/projector_heads.json" heads 4 28
"$check_layout" "$out/projector_compare.json" compare "$(grep -c '"view": "compare"' "$out/projector_compare.json")" 22
grep -q '"layer": 1' "$out/projector_heads.json" || { echo "the Heads view did not show layer 2"; exit 1; }
run 1280x800 ko projector_ko
"$check_layout" "$out/projector_ko_heads.json" heads 4 28
run 1024x768 en small
"$check_layout" "$out/small_heads.json" heads 4 22
if [ -n "${ATTNVIZ_KEEP_SCREENSHOTS:-}" ]; then cp "$out"/*.png "$ATTNVIZ_KEEP_SCREENSHOTS"/; fi
echo "presentation test: heads and Compare at a projector's size, numbers and every label drawn, panels fold away"
