#!/bin/sh
# GUI test of Hugging Face checkpoints in the app: a BERT sentence pair and a sharded F16 GPT-2 open
# from sessions, and every head's pixels equal the colour of the engine's weight for that cell
# (check_heads_pixels recomputes the trace from the same checkpoint). `--model DIR` loads off the UI
# thread and lands in the recent-models list; every view draws a checkpoint; a bad path exits 1
# naming it, and a bad checkpoint keeps the previous model.
# usage: checkpoint_test.sh ATTNVIZ CHECK_PNG CHECK_HEADS_PIXELS FIXTURES
set -eu
app=$1 check_png=$2 check_pixels=$3 fixtures=$4
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export XDG_CONFIG_HOME="$out/config"
xvfb() { xvfb-run -a -s '-screen 0 1280x800x24' "$@"; }

session() {  # session FILE MODEL_DIR SENTENCE SENTENCE_B LAYER LANGUAGE
  cat > "$1" <<JSON
{
  "format": "attnviz.session", "version": 1,
  "sentence": "$3",
  "selection": {"layer": $5, "head": 0, "query": -1},
  "ui": {"view": "heads", "language": "$6", "colormap": "viridis", "annotate": "0",
         "model_source": "file", "model_path": "$2", "sentence_b": "$4"}
}
JSON
}

# 1. BERT, a sentence pair, layer 2: every drawn cell has the engine's colour.
session "$out/bert.json" "$fixtures/hf/bert_tiny" "The animal didn't cross the street." "It was too tired." 1 en
xvfb "$app" --session "$out/bert.json" --screenshot "$out/bert.png" --layout-report "$out/bert_layout.json" --frames 3
"$check_pixels" "$out/bert.png" "$out/bert_layout.json" "$out/bert.json"

# 2. Sharded F16 GPT-2 with Korean text and an emoji, in the Korean UI.
session "$out/gpt2.json" "$fixtures/hf/gpt2_tiny_sharded" "동물은 너무 피곤했기 때문에 🤖" "" 0 ko
xvfb "$app" --session "$out/gpt2.json" --screenshot "$out/gpt2.png" --layout-report "$out/gpt2_layout.json" --frames 3
"$check_pixels" "$out/gpt2.png" "$out/gpt2_layout.json" "$out/gpt2.json"

# 3. --model loads in the background and the folder is remembered; then every view draws the
# checkpoint (one launch: a launch costs seconds under the sanitizers).
xvfb "$app" --model "$fixtures/hf/gpt2_tiny" --view heads --screenshot "$out/view_heads.png" --frames 3
"$check_png" "$out/view_heads.png" 1280 800
grep -q "hf/gpt2_tiny\"" "$XDG_CONFIG_HOME/attnviz/recent_models.json" || { echo "not in recent models"; exit 1; }
{
  echo "model file $fixtures/hf/gpt2_tiny"
  for view in model lines compare steps stats coref; do printf 'view %s\nscreenshot %s\n' "$view" "$out/view_$view.png"; done
  # The logit lens and attribution (Statistics) and patching (Compare) on a language model's next token.
  printf 'sentence the cat sat on the\nview stats\nwithin 10 expect lens_top 2 ·다\nexpect lens_top 0 ·the\nlens head 1 2\n'
  # The flow graph by attribution: layer 2 head 2 carries "·s" (#4) into the answer's position (#7).
  printf 'flow weight attribution\nflow threshold 0.1\nwithin 10 expect flow_edge 1 1 4 7\nexport data flow %s\n' "$out/flow.csv"
  printf 'screenshot %s\n' "$out/lens.png"
  printf 'view compare\ncompare sentence_b\ncompare_sentence the hat sat on the\npatching position\n'
  printf 'within 30 expect patching 0 2 1.145\nexpect patching 0 0 0\nscreenshot %s\n' "$out/patch.png"
  echo quit
} > "$out/views.txt"
xvfb "$app" --script "$out/views.txt"
for view in model lines compare steps stats coref; do "$check_png" "$out/view_$view.png" 1280 800; done
"$check_png" "$out/lens.png" 1280 800
grep -q "^1,1,4,·s,7,·the,0.18[0-9]*,attribution$" "$out/flow.csv" || { echo "the attribution flow CSV lacks layer 2 head 2 from ·s into ·the"; exit 1; }
"$check_png" "$out/patch.png" 1280 800

# 4. A path that is not a model: exit 1, the message names it.
if xvfb "$app" --model "$out/nothing" --screenshot "$out/bad.png" --frames 2 2> "$out/bad.err"; then
  echo "--model with a bad path should exit 1"; exit 1
fi
grep -q "nothing' does not exist" "$out/bad.err"

# 5. A script opens a checkpoint and exports its tokens; a folder without tokenizer files fails, saying so.
mkdir "$out/broken" && cp "$fixtures/hf/bert_tiny/config.json" "$fixtures/hf/bert_tiny/model.safetensors" "$out/broken/"
cat > "$out/actions.txt" <<ACTIONS
model file $fixtures/hf/bert_tiny
sentence The animal
export json $out/first.json
quit
ACTIONS
xvfb "$app" --script "$out/actions.txt"
grep -q '"piece":"animal"' "$out/first.json" || { echo "BERT tokens missing from the export"; exit 1; }
printf 'model file %s\nquit\n' "$out/broken" > "$out/broken.txt"
if xvfb "$app" --script "$out/broken.txt" 2> "$out/broken.err"; then echo "a broken checkpoint should fail"; exit 1; fi
grep -q "no BERT tokenizer" "$out/broken.err"

# 6. A Llama-shaped folder (8 query heads on 2 key/value heads, rotary positions, RMSNorm, SwiGLU,
# Llama 3's tokenizer.json): pixels match the engine, Heads names each head's K/V head, Step by step
# shows Q and K before and after the rotation.
session "$out/llama.json" "$fixtures/families/llama3_tokenized" "동물은 너무 피곤했기 때문에 🤖 It was too tired." "" 1 en
xvfb "$app" --session "$out/llama.json" --screenshot "$out/llama.png" --layout-report "$out/llama_layout.json" --frames 3
"$check_pixels" "$out/llama.png" "$out/llama_layout.json" "$out/llama.json"
cat > "$out/llama.txt" <<ACTIONS
model file $fixtures/families/llama3_tokenized
sentence The animal didn't cross the street because it was too tired.
expect model llama3_tokenized
view steps
head 5
step 2
screenshot $out/llama_steps.png
quit
ACTIONS
xvfb "$app" --script "$out/llama.txt"
"$check_png" "$out/llama_steps.png" 1280 800
echo "checkpoint test: BERT pair, sharded GPT-2 and Llama-shaped pixels match the engine; --model, recent models, every view, errors"
