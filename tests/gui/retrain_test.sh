#!/bin/sh
# Scripted GUI test of the trained demos' live architecture: a toggle to a shipped grid cell is
# instant, one not shipped trains off the UI thread (frames keep coming: the app reports how long
# they took while it trained) and lands in the disk cache, and
# Compare's 1 head vs N heads shows the trained 1-head model beside the N-head one (training it
# when neither the grid nor the cache has it). The induction demo refuses one layer with the reason
# (its training with one head a layer is tests/desktop/test_app_state.cpp's: trained once in the suite).
# usage: retrain_test.sh ATTNVIZ CHECK_PNG
set -eu
app=$1 check_png=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export XDG_CACHE_HOME="$out/cache"
cat > "$out/actions.txt" <<ACTIONS
model coref
coref_arch heads=2 d_model=32
expect model demo_coref_grid/heads2_dmodel32
expect answer it → animal
coref_arch heads=2 d_model=32 layers=1
expect retrain heads2_dmodel32_layers1: 9
expect model trained: heads2_dmodel32_layers1
expect answer it → animal
screenshot $out/trained.png
view compare
compare single_vs_multi
screenshot $out/twin.png
view heads
coref_arch heads=4 d_model=32 layers=2
expect model assets/demo_coref
view compare
compare single_vs_multi
screenshot $out/compare.png
view stats
model induction
screenshot $out/induction.png
arch layers=1
expect retrain induction heads2_dmodel32_layers1: an induction head needs 2 layers or more
expect model assets/demo_induction
lang ko
screenshot $out/induction_ko.png
quit
ACTIONS
xvfb-run -a -s '-screen 0 1280x800x24' "$app" --script "$out/actions.txt" 2> "$out/err.txt" || { cat "$out/err.txt"; exit 1; }
cat "$out/err.txt"
for png in trained twin compare induction induction_ko; do "$check_png" "$out/$png.png" 1280 800; done
# The finished run is in the disk cache (a cancelled one never is: tests/desktop/test_app_state.cpp).
[ -f "$out/cache/attnviz/coref/trainer-4/heads2_dmodel32_layers1_seed78/model.safetensors" ] || { echo "not cached"; exit 1; }
# Compare's 1 head vs N heads trained the 1-head twin of the 1-layer architecture (none is shipped).
[ -f "$out/cache/attnviz/coref/trainer-4/heads1_dmodel32_layers1_seed78/model.safetensors" ] || { echo "no 1-head twin"; exit 1; }
grep -q "frames drawn while a demo trained" "$out/err.txt" || { echo "no frame was drawn while training"; exit 1; }

# Back to it in a new launch: the disk cache answers at once, nothing trains.
cat > "$out/again.txt" <<ACTIONS
model coref
coref_arch heads=2 d_model=32 layers=1
expect model cache: heads2_dmodel32_layers1
quit
ACTIONS
xvfb-run -a -s '-screen 0 1280x800x24' "$app" --script "$out/again.txt" 2> "$out/err2.txt" || { cat "$out/err2.txt"; exit 1; }
if grep -q "frames drawn while" "$out/err2.txt"; then echo "a cached architecture was trained again"; exit 1; fi
echo "retrain GUI test passed"
