#!/bin/sh
# GUI test of GGUF models found on the machine: a made-up home laid out as Ollama (manifests naming
# sha256 blobs), LM Studio and llama.cpp's cache lay theirs out, holding the GGUF fixtures. File → Open
# local model… lists the five with their names (and the one broken manifest as a problem); a
# double-click opens an Ollama model by its name off the UI thread; its heads' pixels equal the
# engine's weights (check_heads_pixels opens ollama:NAME itself); the list reads in Korean on a
# projector; the CLI takes --model ollama:NAME and a .gguf path. Gemma 3's and Qwen3's heads are drawn
# as the engine computes them too.
# usage: gguf_test.sh ATTNVIZ CLI CHECK_PNG CHECK_HEADS_PIXELS FIXTURES
set -eu
app=$1 cli=$2 check_png=$3 check_pixels=$4 fixtures=$5
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export HOME="$out/home" XDG_CONFIG_HOME="$out/config"
unset OLLAMA_MODELS LLAMA_CACHE XDG_CACHE_HOME || true
xvfb() { xvfb-run -a -s '-screen 0 1280x800x24' "$@"; }
models="$fixtures/gguf_models"

store="$HOME/.ollama/models"
ollama() {  # ollama NAME TAG FILE: FILE as the blob of NAME:TAG, its manifest as Ollama writes it
  digest=$(sha256sum "$3" | cut -d' ' -f1)
  mkdir -p "$store/blobs" "$store/manifests/registry.ollama.ai/library/$1"
  cp "$3" "$store/blobs/sha256-$digest"
  size=$(wc -c < "$3")
  printf '{"schemaVersion":2,"mediaType":"application/vnd.docker.distribution.manifest.v2+json","config":{"mediaType":"application/vnd.docker.container.image.v1+json","digest":"sha256:%064d","size":10},"layers":[{"mediaType":"application/vnd.ollama.image.model","digest":"sha256:%s","size":%s}]}' \
    0 "$digest" "$size" > "$store/manifests/registry.ollama.ai/library/$1/$2"
}
ollama tinyllama q4_k_m "$models/llama_spm_q4_k_m/model.gguf"
ollama tinyllama q8_0 "$models/llama_spm_q8_0/model.gguf"
ollama qwen2-tiny latest "$models/qwen2_bpe_kquants/model.gguf"
mkdir -p "$store/manifests/registry.ollama.ai/library/broken"
echo '{"schemaVersion": 2, "layers": [' > "$store/manifests/registry.ollama.ai/library/broken/latest"
mkdir -p "$HOME/.lmstudio/models/attnviz/Legacy-GGUF" "$HOME/.cache/llama.cpp"
cp "$models/llama_legacy_mix/model.gguf" "$HOME/.lmstudio/models/attnviz/Legacy-GGUF/legacy-mix.gguf"
cp "$models/bad/control.gguf" "$HOME/.cache/llama.cpp/attnviz_control-Q4_0.gguf"

# 1. The list, then a double-click on an Ollama model: it opens by its name and answers.
cat > "$out/open.txt" <<SCRIPT
local_models
expect local_models 5 1
screenshot $out/list.png
local_models open tinyllama:q4_k_m
sentence The animal didn't cross the street because it was too tired
expect model ollama:tinyllama:q4_k_m
expect answer tired
view heads
layer 1
screenshot $out/heads.png
local_models open attnviz/Legacy-GGUF/legacy-mix.gguf
expect model legacy-mix.gguf
local_models open qwen2-tiny:latest
sentence 고양이가 길을 건너지 않았다
expect model ollama:qwen2-tiny
expect tokens 21
quit
SCRIPT
xvfb "$app" --script "$out/open.txt"
"$check_png" "$out/list.png" 1280 800
"$check_png" "$out/heads.png" 1280 800
grep -q '"ollama:tinyllama:q4_k_m"' "$XDG_CONFIG_HOME/attnviz/recent_models.json" || { echo "the Ollama name is not in recent models"; exit 1; }

# 2. Every drawn cell of an Ollama model's heads has the engine's colour.
cat > "$out/session.json" <<JSON
{
  "format": "attnviz.session", "version": 1,
  "sentence": "The animal didn't cross the street because it was too tired",
  "selection": {"layer": 1, "head": 0, "query": -1},
  "ui": {"view": "heads", "language": "en", "colormap": "viridis", "annotate": "0",
         "model_source": "file", "model_path": "ollama:tinyllama:q8_0"}
}
JSON
xvfb "$app" --session "$out/session.json" --screenshot "$out/q8.png" --layout-report "$out/q8_layout.json" --frames 3
"$check_pixels" "$out/q8.png" "$out/q8_layout.json" "$out/session.json"

# Gemma 3 (a window of 4 keys on five of every six layers: layer 1 slides, layer 5 sees every key,
# each with its own mask) and Qwen3 (heads wider than d_model / heads): the same check.
for pick in "gemma3_q8_0 1" "gemma3_q8_0 5" "qwen3_q8_0 1"; do
  set -- $pick
  sed -e "s|\"layer\": 1,|\"layer\": $2,|" -e "s|ollama:tinyllama:q8_0|$models/$1/model.gguf|" \
    "$out/session.json" > "$out/$1_$2.json"
  xvfb "$app" --session "$out/$1_$2.json" --screenshot "$out/$1_$2.png" --layout-report "$out/$1_$2_layout.json" --frames 3
  "$check_pixels" "$out/$1_$2.png" "$out/$1_$2_layout.json" "$out/$1_$2.json"
done

# 3. The list in Korean, in presentation mode on a 1280 x 800 projector; then the model's heads on a
# log colour scale with the first token set aside, in the view and in an exported figure.
cat > "$out/ko.txt" <<SCRIPT
lang ko
presentation on
local_models
expect local_models 5 1
screenshot $out/list_ko.png
local_models open tinyllama:q4_k_m
sentence The animal didn't cross the street because it was too tired
view heads
layer 1
color_scale log
first_aside on
screenshot $out/aside_ko.png
export view png $out/aside_figure.png 1
save $out/aside.session.json
quit
SCRIPT
xvfb "$app" --script "$out/ko.txt"
"$check_png" "$out/list_ko.png" 1280 800
"$check_png" "$out/aside_ko.png" 1280 800
"$check_png" "$out/aside_figure.png" 0 0
grep -q '"color_scale": "log"' "$out/aside.session.json" && grep -q '"first_aside": "1"' "$out/aside.session.json" ||
  { echo "the session does not keep the scale and the first token aside"; exit 1; }

# 4. The CLI: an Ollama name, a .gguf path, and a name Ollama does not have (exit 1, naming where it looked).
"$cli" predict --model ollama:tinyllama:q4_k_m --text "The animal didn't cross the street because it was too" --top-k 1 > "$out/predict.txt"
grep -q "next token" "$out/predict.txt" || { echo "no prediction from ollama:tinyllama:q4_k_m"; cat "$out/predict.txt"; exit 1; }
"$cli" attention --model "$models/qwen2_bpe_kquants/model.gguf" --text "hello there" > "$out/attention.txt"
grep -q "qwen2_bpe_kquants" "$out/attention.txt" || { echo "no trace of the .gguf path"; exit 1; }
# The CLI's figure on a log scale with the first token set aside; the flags need a figure to act on.
"$cli" attention --model ollama:tinyllama:q8_0 --text "The animal didn't cross the street because it was too tired" \
  --png "$out/cli_aside.png" --layer 1 --color-scale log --first-aside
"$check_png" "$out/cli_aside.png" 0 0
if "$cli" attention --model ollama:tinyllama:q8_0 --text hi --first-aside 2> "$out/err.txt"; then echo "--first-aside without a figure ran"; exit 1; fi
grep -q "give one of them" "$out/err.txt" || { echo "--first-aside without a figure: no message"; exit 1; }
if "$cli" predict --model ollama:nothing:here --text hi 2> "$out/err.txt"; then echo "ollama:nothing:here opened"; exit 1; fi
grep -q "no Ollama model 'nothing:here'" "$out/err.txt" || { echo "the message does not name the model"; cat "$out/err.txt"; exit 1; }
echo "gguf: local models listed, opened and drawn as the engine computes them"
