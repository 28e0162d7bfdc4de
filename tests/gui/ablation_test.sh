#!/bin/sh
# Scripted GUI test of switching heads off: on the coreference demo, layer 1 head 3 off (the head that
# reads "tired" into "it") turns "it" from the animal to the street (the full model's answer beside it),
# mean ablation, "Which heads matter" in Statistics (its best head checked against the CLI's grid),
# value-norm and rollout in Heads, Model view and Lines, Korean; the session keeps the set.
# usage: ablation_test.sh ATTNVIZ ATTNVIZ_CLI CHECK_PNG
set -eu
app=$1 cli=$2 check_png=$3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
tired="The animal didn't cross the street because it was too tired."
demo="$(cd "$(dirname "$0")/../../assets/demo_coref" && pwd)"
best=$("$cli" heads --model "$demo" --text "$tired" --importance |
       sed -n 's/^most important: layer \([0-9]*\) head \([0-9]*\)$/\1:\2/p')
[ -n "$best" ] || { echo "the CLI named no most important head"; exit 1; }
cat > "$out/actions.txt" <<ACTIONS
model coref
sentence $tired
expect answer it → animal
head_off 0 2
expect answer it → street
expect answer_full it → animal
layer 0
screenshot $out/heads_off.png
save $out/ablated.session.json
ablation mean
expect answer it → animal
expect answer_full it → animal
view model
screenshot $out/model_view.png
ablation zero
head_on 0 2
expect answer it → animal
view stats
importance
expect importance $best
screenshot $out/importance.png
view heads
measure value-norm
screenshot $out/value_norm.png
measure rollout
view lines
screenshot $out/rollout_lines.png
lang ko
view coref
importance
screenshot $out/coref_ko.png
try head_off 5 0
expect status the model has no head 5:0
quit
ACTIONS
xvfb-run -a -s '-screen 0 1280x800x24' "$app" --script "$out/actions.txt"
for png in heads_off model_view importance value_norm rollout_lines coref_ko; do "$check_png" "$out/$png.png" 1280 800; done
grep -q '"ablated": "0:2"' "$out/ablated.session.json" || { echo "the session lost the switched-off heads"; exit 1; }
grep -q '"ablation": "zero"' "$out/ablated.session.json"

# The session brings the set back: the answer is the ablated one again.
cat > "$out/reopen.txt" <<ACTIONS
open $out/ablated.session.json
expect answer it → street
quit
ACTIONS
xvfb-run -a -s '-screen 0 1280x800x24' "$app" --script "$out/reopen.txt"
echo "ablation GUI test passed (best head $best)"
