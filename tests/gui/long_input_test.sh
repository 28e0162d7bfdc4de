#!/bin/sh
# GUI test of a long input: a 1,946-token paste through the sandbox, the Heads grid drawn from
# max-pooled textures, one head zoomed to a 122 x 122 window and panned by the script, in English
# and Korean; then the same with every head's map formed on demand (drawn from Q and K, the
# Statistics view's scan off the UI thread). Checks the frames are real and the trace has every token.
# usage: long_input_test.sh ATTNVIZ CHECK_PNG
set -eu
app=$1 check_png=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# 1,946 words from a small vocabulary, in a fixed pseudo-random order (awk: no Python needed).
awk 'BEGIN { split("the animal did not cross street because it was too tired wide a dog cat sat on mat", w, " ");
             x = 3; for (i = 0; i < 1946; i++) { x = (x * 1103515245 + 12345) % 2147483648;
             printf "%s%s", (i ? " " : ""), w[int(x / 65536) % 18 + 1] } }' > "$out/long.txt"
cat > "$out/actions.txt" <<ACTIONS
paste $out/long.txt
mask causal on
expect tokens 1946
screenshot $out/grid.png
zoom_head 2
screenshot $out/zoom1.png
zoom_head 2 16 700 650
lang ko
screenshot $out/zoom16.png
maps on_demand
expect maps formed
expect tokens 1946
zoom_head -1
screenshot $out/formed.png
view stats
screenshot $out/formed_stats.png
quit
ACTIONS
xvfb-run -a -s '-screen 0 1280x800x24' "$app" --script "$out/actions.txt"
for png in grid zoom1 zoom16 formed formed_stats; do "$check_png" "$out/$png.png" 1280 800; done
echo "long input test: 1946 tokens drawn pooled, zoomed and panned, kept and formed on demand"
