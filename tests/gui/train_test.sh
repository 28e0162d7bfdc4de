#!/bin/sh
# Train view GUI test: drives the real app (under Xvfb) to train the coreference demo for 150
# steps from a script, waits for the run, screenshots the Train view, saves the model through the
# `train save` verb, and checks with attnviz-cli that the saved model loads and answers. Then the
# "1 head vs N heads" tab trains its default pair, the gather demo's (seed 7, capped at 350 steps:
# 4 heads reach 99% held-out at step 300, 1 head not by 350), and `train expect_ahead` holds.
# usage: train_test.sh ATTNVIZ ATTNVIZ_CLI CHECK_PNG
set -eu
app=$1 cli=$2 check_png=$3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cat > "$out/actions.txt" <<ACTIONS
view train
train demo coref
train steps 150
train report 10
train start
train wait
screenshot $out/train.png
train save $out/model
train pair_steps 350
train compare
train wait
train expect_ahead
screenshot $out/pair.png
quit
ACTIONS
xvfb-run -a -s '-screen 0 1280x800x24' "$app" --script "$out/actions.txt"

"$check_png" "$out/train.png" 1280 800
"$check_png" "$out/pair.png" 1280 800
test -s "$out/model/model.safetensors" || { echo "no model.safetensors written"; exit 1; }
"$cli" predict --model "$out/model" --text "The animal didn't cross the street because it was too tired." > "$out/predict.txt"
cat "$out/predict.txt"
grep -Eq '^it \(#7\) -> (animal|street) \(#(1|5), p = (0\.[5-9]|1\.0)[0-9]*\)$' "$out/predict.txt" \
  || { echo "unexpected prediction"; exit 1; }
# The saved model is the app's run: 2 layers x 4 heads (the coreference demo's defaults).
"$cli" predict --model "$out/model" --text "The animal didn't cross the street because it was too wide." --json - > "$out/predict.json"
test "$(grep -c '"layer"' "$out/predict.json")" -eq 8 || { echo "expected 2 layers x 4 heads"; exit 1; }
echo "train test: trained 150 steps in the app, saved the model, and attnviz-cli predicts with it"
