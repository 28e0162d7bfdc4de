#!/bin/sh
# Renders the committed 256x256 PNG icon from the hand-drawn SVG beside it. Run once after editing
# attnviz.svg and commit both: the build and the install never render (no tool is needed there).
# Needs rsvg-convert (Debian's librsvg2-bin).
# usage: packaging/make_icon.sh
set -eu
cd "$(dirname "$0")"
command -v rsvg-convert >/dev/null || { echo "make_icon.sh: needs rsvg-convert (apt-get install librsvg2-bin)" >&2; exit 1; }
rsvg-convert --width 256 --height 256 --format png --output attnviz.png attnviz.svg
echo "wrote $(pwd)/attnviz.png"
