#!/bin/sh
# GUI test of HiDPI: under Xvfb with Xft.dpi 192 (a content scale of 2, as GLFW reads it on X11) the
# window opens at twice its size with fonts and widgets twice as large, and every drawn head cell
# still has the engine's colour; --scale 2 does the same on a scale-1 monitor, in presentation mode.
# The font is 17 px at scale 1, 34 px at scale 2, and 1.6 times that in presentation mode (a size the
# font atlas gets only when presentation mode is on).
# usage: hidpi_test.sh ATTNVIZ CHECK_PNG CHECK_HEADS_PIXELS SESSION
set -eu
app=$1 check_png=$2 check_pixels=$3 session=$4
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# -noreset: Xvfb would otherwise reset (and drop the resource) when xrdb disconnects.
xvfb-run -a -s '-screen 0 2560x1600x24 -noreset' sh -c \
  "echo 'Xft.dpi: 192' | xrdb -merge && '$app' --session '$session' --screenshot '$out/dpi2.png' --layout-report '$out/dpi2.json' --frames 3"
"$check_png" "$out/dpi2.png" 2560 1600
"$check_pixels" "$out/dpi2.png" "$out/dpi2.json" "$session"
# --scale 2 in presentation mode (1.6 times larger again), the size it adds to the font atlas when on.
xvfb-run -a -s '-screen 0 2560x1600x24' "$app" --session "$session" --scale 2 --size 2560x1600 --presentation \
  --screenshot "$out/scale2.png" --layout-report "$out/scale2.json" --frames 3
"$check_png" "$out/scale2.png" 2560 1600
"$check_pixels" "$out/scale2.png" "$out/scale2.json" "$session"
# Twice the font: the heads' cells are larger than at scale 1 (the same session, the same layout rules).
xvfb-run -a -s '-screen 0 1280x800x24' "$app" --session "$session" --screenshot "$out/dpi1.png" --layout-report "$out/dpi1.json" --frames 3
cell() { sed -n 's/.*"cell": *\([0-9.]*\).*/\1/p' "$1" | head -1; }
awk -v a="$(cell "$out/dpi1.json")" -v b="$(cell "$out/dpi2.json")" 'BEGIN { if (!(b > 1.5 * a)) { print "cells at scale 2: " b ", at 1: " a; exit 1 } }'
font_px() { sed -n 's/.*"font_px": *\([0-9.]*\).*/\1/p' "$1" | head -1; }
for pair in dpi1:17 dpi2:34 scale2:54.4; do
  name=${pair%%:*} want=${pair#*:}
  awk -v got="$(font_px "$out/$name.json")" -v want="$want" -v name="$name" \
    'BEGIN { if (got == "" || got - want > 0.01 || want - got > 0.01) { print name ": font " got " px, expected " want; exit 1 } }'
done
if [ -n "${ATTNVIZ_KEEP_SCREENSHOTS:-}" ]; then cp "$out"/*.png "$ATTNVIZ_KEEP_SCREENSHOTS"/; fi
echo "hidpi test: scale 2 from Xft.dpi and from --scale, presentation mode, engine colours in every cell"
