#!/bin/sh
# GUI test of attention files (saved weights, no model): a session's Heads view has every cell in the
# colour of the file's weight; --attention draws every view (those needing a model say why); a script
# checks cells of the self- and cross-attention, Compare with a second file and dropped paths (a bad one
# keeps what is shown, a checkpoint folder opens as a model); a bad file at launch exits 1 naming it.
# usage: attention_test.sh ATTNVIZ CHECK_PNG CHECK_HEADS_PIXELS FIXTURES [OUT_DIR (kept: the screenshots)]
set -eu
app=$1 check_png=$2 check_pixels=$3 fixtures=$4
if [ $# -ge 5 ]; then out=$5; mkdir -p "$out"; else out=$(mktemp -d); trap 'rm -rf "$out"' EXIT; fi
export XDG_CONFIG_HOME="$out/config"
xvfb() { xvfb-run -a -s '-screen 0 1280x800x24' "$@"; }
enc="$fixtures/attention/encoder_f16.safetensors"
encdec="$fixtures/attention/encdec_f32.safetensors"

# 1. A session showing the F16 encoder file, layer 2: every cell has the colour of the file's weight.
cat > "$out/attention.session.json" <<JSON
{
  "format": "attnviz.session", "version": 1,
  "sentence": "",
  "selection": {"layer": 1, "head": 0, "query": -1},
  "ui": {"view": "heads", "language": "en", "colormap": "viridis", "annotate": "0",
         "model_source": "attention", "model_path": "$enc"}
}
JSON
xvfb "$app" --session "$out/attention.session.json" --screenshot "$out/heads_pixels.png" \
  --layout-report "$out/heads_pixels.json" --frames 3
"$check_pixels" "$out/heads_pixels.png" "$out/heads_pixels.json" "$out/attention.session.json"

# 2. --attention at launch; then every view draws, and those that need the model say why instead
# (one launch for the views: a launch costs seconds under the sanitizers).
xvfb "$app" --attention "$enc" --view heads --screenshot "$out/view_heads.png" --frames 3
"$check_png" "$out/view_heads.png" 1280 800
{
  echo "open_attention $enc"
  for view in model lines compare steps stats coref train; do printf 'view %s\nscreenshot %s\n' "$view" "$out/view_$view.png"; done
  echo quit
} > "$out/views.txt"
xvfb "$app" --script "$out/views.txt"
for view in model lines compare steps stats coref train; do "$check_png" "$out/view_$view.png" 1280 800; done

# 3. A script: open, check cells, cross-attention, Compare with a second file, the Korean UI, drops.
cat > "$out/actions.txt" <<ACTIONS
open_attention $encdec
expect status 2 layers × 2 heads, 5 tokens
expect model tiny random encoder-decoder
expect tokens 5
layer 1
expect weight 1 1 2 1 0.4817444384098053
expect weight 1 1 2 3 0
query 2
screenshot $out/script_heads.png
view model
screenshot $out/script_model.png
cross on
expect weight 1 0 3 0 0.31655460596084595
view heads
screenshot $out/script_cross.png
cross off
try head_off 0 0
expect status cannot be switched off
view steps
screenshot $out/script_steps.png
view compare
screenshot $out/script_compare_a_only.png
open_attention_b $encdec
screenshot $out/script_compare.png
lang ko
view heads
screenshot $out/script_heads_ko.png
lang en
export csv $out/head.csv
drop $out/no-such-file.safetensors
expect status not a checkpoint folder
expect model tiny random encoder-decoder
drop $enc
expect tokens 9
view heads
screenshot $out/script_encoder.png
drop $fixtures/hf/gpt2_tiny
expect model gpt2_tiny
expect no_error
quit
ACTIONS
xvfb "$app" --script "$out/actions.txt"
for png in script_heads script_model script_cross script_steps script_compare_a_only script_compare script_heads_ko script_encoder; do
  "$check_png" "$out/$png.png" 1280 800
done
head -1 "$out/head.csv" | grep -q '^query\\key,<s>,Die,' || { echo "the CSV export lacks the file's tokens"; exit 1; }

# 4. A file that is not an attention file: exit 1, the message names it and what is missing.
if xvfb "$app" --attention "$fixtures/tiny.safetensors" --screenshot "$out/bad.png" --frames 2 2> "$out/bad.err"; then
  echo "--attention with a model file should exit 1"; exit 1
fi
grep -q "tiny.safetensors" "$out/bad.err"
echo "attention test: pixels match the file, every view draws or says why, cells, cross, Compare, drops, errors"
