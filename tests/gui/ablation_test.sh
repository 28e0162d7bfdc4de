#!/bin/sh
# Scripted GUI test of switching heads off: on the coreference demo, layer 1's heads off turn "it"
# in the "wide" sentence from the street to the animal (the full model's answer shown beside it),
# mean ablation, "Which heads matter" in Statistics (its best head checked against the CLI's grid),
# value-norm and rollout in Heads, Model view and Lines, Korean; the session keeps the set.
# usage: ablation_test.sh ATTNVIZ ATTNVIZ_CLI CHECK_PNG
set -eu
app=$1 cli=$2 check_png=$3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
wide="The animal didn't cross the street because it was too wide."
demo="$(cd "$(dirname "$0")/../../assets/demo_coref" && pwd)"
best=$("$cli" heads --model "$demo" --text "$wide" --importance |
       sed -n 's/^most important: layer \([0-9]*\) head \([0-9]*\)$/\1:\2/p')
[ -n "$best" ] || { echo "the CLI named no most important head"; exit 1; }
cat > "$out/actions.txt" <<ACTIONS
model coref
sentence $wide
expect answer it → street
head_off 0 0
head_off 0 1
head_off 0 2
head_off 0 3
expect answer it → animal
expect answer_full it → street
layer 0
screenshot $out/heads_off.png
save $out/ablated.session.json
ablation mean
expect answer_full it → street
view model
screenshot $out/model_view.png
ablation zero
head_on 0 0
head_on 0 1
head_on 0 2
head_on 0 3
expect answer it → street
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
grep -q '"ablated": "0:0,0:1,0:2,0:3"' "$out/ablated.session.json" || { echo "the session lost the switched-off heads"; exit 1; }
grep -q '"ablation": "zero"' "$out/ablated.session.json"

# The session brings the set back: the answer is the ablated one again.
cat > "$out/reopen.txt" <<ACTIONS
open $out/ablated.session.json
expect answer it → animal
quit
ACTIONS
xvfb-run -a -s '-screen 0 1280x800x24' "$app" --script "$out/reopen.txt"
echo "ablation GUI test passed (best head $best)"
