#!/usr/bin/env bash
# Takes the README's screenshots again (docs/*.png, 1280 x 800 under Xvfb) from the built app, each
# from fresh XDG folders so that nothing remembered or cached changes them: the app as it opens,
# a head switched off, the Coreference view with "Which heads matter", the softmax step for "it",
# Korean Compare (tired vs wide), Korean Statistics on the induction demo's own sequence, and the
# demo of why several heads help in Compare on a projector (English and Korean), the Architecture
# view, a typeset step in Korean, the Train view's 1-head / 4-head pair on that demo, and the
# Translation view's alignment, decoding step and bottleneck plot in English and Korean, patching in the
# Coreference view (English; Korean on a projector), the logit lens and the flow graph in Statistics, a
# zoomed head's queries and keys in 2-D, and a GGUF model opened from the local-model list.
# docs/cli_layer0.png is not here: it is the CLI's; nor docs/typing_ko.png, which needs keys typed
# through an input method: tests/gui/input_method_test.sh takes it (run it with KEEP_DIR=DIR and copy DIR/i_done.png).
# usage: scripts/docs_screenshots.sh [path/to/attnviz] [OUT_DIR]   (defaults: build/app/attnviz, docs)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
app=$(realpath "${1:-$repo/build/app/attnviz}")
out=$(realpath -m "${2:-$repo/docs}")
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() {  # run NAME ARGS...: the app in fresh XDG folders under Xvfb
  local name=$1
  shift
  rm -rf "$tmp/xdg"
  XDG_CONFIG_HOME=$tmp/xdg/config XDG_CACHE_HOME=$tmp/xdg/cache XDG_DATA_HOME=$tmp/xdg/data XDG_STATE_HOME=$tmp/xdg/state \
    xvfb-run -a -s '-screen 0 1280x800x24' "$app" "$@" 2> "$tmp/$name.err" || { cat "$tmp/$name.err" >&2; exit 1; }
  echo "$out/$name.png"
}

# As it opens: a plain launch opens on the trained coreference demo (scripts start from the sandbox).
run screenshot --screenshot "$out/screenshot.png"

cat > "$tmp/ablation.txt" <<ACTIONS
model coref
layer 0
head_off 0 2
screenshot $out/ablation.png
quit
ACTIONS
run ablation --script "$tmp/ablation.txt"

cat > "$tmp/coref.txt" <<ACTIONS
model coref
view coref
importance
screenshot $out/coref.png
quit
ACTIONS
run coref --script "$tmp/coref.txt"

cat > "$tmp/steps.txt" <<ACTIONS
view steps
query 7
step 6
screenshot $out/steps.png
quit
ACTIONS
run steps --script "$tmp/steps.txt"

cat > "$tmp/compare_ko.txt" <<ACTIONS
model coref
lang ko
view compare
compare sentence_b
compare_sentence The animal didn't cross the street because it was too wide.
layer 0
head 2
screenshot $out/compare_ko.png
quit
ACTIONS
run compare_ko --script "$tmp/compare_ko.txt"

cat > "$tmp/detectors_ko.txt" <<ACTIONS
model induction
lang ko
view stats
screenshot $out/detectors_ko.png
quit
ACTIONS
run detectors_ko --script "$tmp/detectors_ko.txt"

for lang in en ko; do
  cat > "$tmp/several_heads_$lang.txt" <<ACTIONS
lang $lang
preset law
view compare
compare single_vs_multi
presentation on
screenshot $out/several_heads_$lang.png
quit
ACTIONS
  run several_heads_$lang --script "$tmp/several_heads_$lang.txt"
done

cat > "$tmp/architecture.txt" <<ACTIONS
model coref
view arch
screenshot $out/architecture.png
quit
ACTIONS
run architecture --script "$tmp/architecture.txt"

cat > "$tmp/steps_formula_ko.txt" <<ACTIONS
model coref
lang ko
view steps
query 7
step 6
steps_notation on
presentation on
screenshot $out/steps_formula_ko.png
quit
ACTIONS
run steps_formula_ko --script "$tmp/steps_formula_ko.txt"

cat > "$tmp/train_pair.txt" <<ACTIONS
view train
train compare
train wait
screenshot $out/train_pair.png
quit
ACTIONS
run train_pair --script "$tmp/train_pair.txt"

# The Translation view (issue 42): a two-clause sentence's alignment matrix, decoding step 10 (그리고
# from "and"), and the bottleneck against attention on the 300 held-out sentences, in both languages.
for lang in en ko; do
  cat > "$tmp/translate_$lang.txt" <<ACTIONS
wait_limit 300
lang $lang
view translate
translate text the small teacher bought the red book at school and the dog saw the white cat .
screenshot $out/translate_alignment_$lang.png
translate tab steps
translate step 9
screenshot $out/translate_steps_$lang.png
translate curve 100
translate tab bottleneck
expect idle 300
screenshot $out/translate_bottleneck_$lang.png
quit
ACTIONS
  run "translate_$lang" --script "$tmp/translate_$lang.txt"
done

# Patching A (tired) into B (wide) in the Coreference view, by layer and position (English) and by
# head on a projector (Korean); the logit lens and direct attribution on the GPT-2 test checkpoint.
cat > "$tmp/patching.txt" <<ACTIONS
model coref
view coref
sentence The animal didn't cross the street because it was too tired.
coref_swap
patching position
within 30 expect patching 0 10 1.0
scroll_to patching
screenshot $tmp/unused.png
scroll_to patching
screenshot $out/patching_en.png
lang ko
presentation on
patching head
within 30 expect patching 0 2 0.95
scroll_to patching
screenshot $tmp/unused.png
scroll_to patching
screenshot $out/patching_ko.png
quit
ACTIONS
run patching --script "$tmp/patching.txt"
cat > "$tmp/lens.txt" <<ACTIONS
model open $repo/tests/fixtures/hf/gpt2_tiny
sentence the cat sat on the
view stats
within 10 expect lens_top 2 ·다
lens head 1 2
screenshot $out/lens_en.png
quit
ACTIONS
run lens --script "$tmp/lens.txt"
cat > "$tmp/qk.txt" <<ACTIONS
model coref
sentence The animal didn't cross the street because it was too tired.
view heads
layer 1
zoom_head 0
query 7
screenshot $out/qk_projection.png
export view png $out/heads_figure_qk.png
view stats
flow threshold 0.1
within 10 expect flow_edge 0 2 10 7
screenshot $out/flow_en.png
export view png $out/stats_figure_flow.png
quit
ACTIONS
run qk_projection --script "$tmp/qk.txt"
cat > "$tmp/set_preset.txt" <<ACTIONS
model coref
view coref
importance_set preset coref_kind
importance_set measure
expect idle 120
expect importance_set 0:2 8 of 20
importance_set cell 0 0
screenshot $tmp/unused.png
screenshot $out/set_preset.png
quit
ACTIONS
run set_preset --script "$tmp/set_preset.txt"

# A GGUF model opened from File → Open local model…: a made-up home whose Ollama store holds the GGUF
# fixtures as blobs (as `ollama pull` lays them out), then its heads on a log scale with the first token
# set aside.
home="$tmp/home"
store="$home/.ollama/models"
ollama_blob() {  # ollama_blob NAME TAG FILE
  local digest size
  digest=$(sha256sum "$3" | cut -d' ' -f1)
  size=$(wc -c < "$3")
  mkdir -p "$store/blobs" "$store/manifests/registry.ollama.ai/library/$1"
  cp "$3" "$store/blobs/sha256-$digest"
  printf '{"schemaVersion":2,"mediaType":"application/vnd.docker.distribution.manifest.v2+json","config":{"mediaType":"application/vnd.docker.container.image.v1+json","digest":"sha256:%064d","size":10},"layers":[{"mediaType":"application/vnd.ollama.image.model","digest":"sha256:%s","size":%s}]}' \
    0 "$digest" "$size" > "$store/manifests/registry.ollama.ai/library/$1/$2"
}
fixtures="$repo/tests/fixtures/gguf_models"
ollama_blob tinyllama q4_k_m "$fixtures/llama_spm_q4_k_m/model.gguf"
ollama_blob tinyllama q8_0 "$fixtures/llama_spm_q8_0/model.gguf"
ollama_blob qwen2-tiny latest "$fixtures/qwen2_bpe_kquants/model.gguf"
mkdir -p "$home/.lmstudio/models/attnviz/Legacy-GGUF"
cp "$fixtures/llama_legacy_mix/model.gguf" "$home/.lmstudio/models/attnviz/Legacy-GGUF/legacy-mix.gguf"
cat > "$tmp/gguf.txt" <<ACTIONS
local_models
expect local_models 4 0
screenshot $out/gguf_local_models.png
local_models open tinyllama:q4_k_m
sentence The animal didn't cross the street because it was too tired
view heads
layer 1
color_scale log
first_aside on
screenshot $out/gguf_heads.png
quit
ACTIONS
HOME="$home" run gguf_local_models --script "$tmp/gguf.txt"
