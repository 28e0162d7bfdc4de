#!/bin/sh
# Scripted GUI test of the Coreference view: the coreference demo on the trophy sentence, the
# minimal pair by the view's own action (coref_swap), B made the main sentence (coref_swap ab), Korean
# and presentation mode, a causal mask the demo was not trained with (the answer line says so, in both
# languages, instead of a "next token"), and sentences the view cannot use (no "it", empty). Checks the screenshots
# are real frames and that the session and the exported trace hold the swapped sentences. Then
# "Which heads matter" over a set of sentences (a file of six): the mean grid's best head (L1 H1: the two
# scared sentences' drops of about 10 outweigh the three L1 H3 decides, about 5 each) and for how
# many of them it changes the answer, a clicked cell's sentences, in English and Korean; a bad set file named.
# Then patching A (tired) into B (wide): layer 1 head 3 brings 0.95 of the answer back, and by position
# layer 1's input at "wide" exactly all of it and layer 2's at "it" 0.94; sentences of unequal length refused.
# usage: coref_test.sh ATTNVIZ CHECK_PNG
set -eu
app=$1 check_png=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
big="The trophy didn't fit in the suitcase because it was too big."
small="The trophy didn't fit in the suitcase because it was too small."
cat > "$out/set.txt" <<SET
# three sentences L1 H3 decides (tired, hungry, old) and three it does not (scared, wide)
The animal didn't cross the street because it was too tired.
The horse didn't cross the bridge because it was too hungry.	a note in the second column
The dog didn't cross the road because it was too old.

The man refused to cross the street because it was too scared.
The chicken didn't cross the road because it was too scared.
The animal didn't cross the street because it was too wide.
SET
printf '# no sentence\n' > "$out/empty_set.txt"
cat > "$out/actions.txt" <<ACTIONS
model coref
view coref
sentence $big
coref_swap
screenshot $out/pair.png
save $out/pair.json
coref_swap ab
export json $out/swapped.json
save $out/swapped.json.session
lang ko
presentation on
screenshot $out/ko.png
presentation off
lang en
mask causal on
expect answer_line no answer: the model was not trained with this mask, so what it answers under it means nothing: switch the mask off
lang ko
expect answer_line 답 없음: 이 모델은 이 마스크로 학습하지 않아서, 마스크를 쓴 답은 의미가 없습니다: 마스크를 끄세요
lang en
mask causal off
sentence The cat sat on the mat.
screenshot $out/no_it.png
sentence
screenshot $out/empty.png
sentence $big
try importance_set file $out/empty_set.txt
expect status no sentence
importance_set file $out/set.txt
importance_set measure
expect idle 120
expect importance_set 0:0 2 of 6
importance_set cell 0 0
screenshot $out/set_en.png
lang ko
screenshot $out/set_ko.png
lang en
importance_set preset coref_kind
importance_set measure
expect idle 120
expect importance_set 0:2 8 of 20
screenshot $out/set_preset.png
sentence The animal didn't cross the street because it was too tired.
coref_swap
within 30 expect patching 0 2 0.95
scroll_to patching
screenshot $out/patch_head.png
patching position
within 30 expect patching 0 10 1.0
expect patching 1 7 0.94
expect patching 0 9 0.0
export data patching $out/patching.csv
export data set $out/set.json
lang ko
presentation on
scroll_to patching
screenshot $out/patch_position_ko.png
presentation off
lang en
view heads
layer 1
zoom_head 0
query 7
screenshot $out/qk_plot.png
export data qk $out/qk.csv
zoom_head -1
view stats
flow threshold 0.1
within 10 expect flow_edge 0 2 10 7
expect flow_edge 1 0 1 7
screenshot $out/flow.png
export data flow $out/flow.json
view coref
compare_sentence The animal didn't cross the street because it was wide.
within 30 expect patching_error A has 12 tokens and B 11: patching needs sentences of the same number of tokens.
lang ko
expect patching_error A는 토큰 12개, B는 11개입니다
lang en
quit
ACTIONS
xvfb-run -a -s '-screen 0 1280x800x24' "$app" --script "$out/actions.txt"

for png in pair ko no_it empty set_en set_ko set_preset patch_head patch_position_ko qk_plot flow; do "$check_png" "$out/$png.png" 1280 800; done
# The panels' "Export data": the patching grid by position (tired -> wide at layer 0 carries it all),
# the set's mean grid, the zoomed head's query/key points, the flow graph's edges.
grep -q '^0,10,tired,wide,1,' "$out/patching.csv" || { echo "patching CSV lacks the tired/wide cell"; exit 1; }
grep -q '"per_sentence": \[' "$out/set.json" || { echo "set JSON lacks its per-sentence grids"; exit 1; }
grep -q '^key,1,animal,' "$out/qk.csv" || { echo "query/key CSV lacks the key animal"; exit 1; }
grep -q '"target": 7' "$out/flow.json" || { echo "flow JSON does not end at it"; exit 1; }
# coref_swap: sentence B is A's minimal pair, compared sentence by sentence.
grep -q "\"compare_sentence\": \"$small\"" "$out/pair.json" || { echo "B is not the minimal pair"; exit 1; }
grep -q '"compare_mode": "sentence_b"' "$out/pair.json"
# coref_swap ab: the sentences changed places and the engine recomputed A from the new sentence.
grep -q "\"sentence\": \"$small\"" "$out/swapped.json.session" || { echo "A is not the swapped sentence"; exit 1; }
grep -q "\"compare_sentence\": \"$big\"" "$out/swapped.json.session"
grep -q '"text":"small"' "$out/swapped.json" || { echo "trace A was not recomputed"; exit 1; }
if grep -q '"text":"big"' "$out/swapped.json"; then echo "trace A still holds the old sentence"; exit 1; fi

# A sentence without a property word has no minimal pair: the verb fails and says why.
printf 'model coref\nsentence The cat sat on the mat because it was.\ncoref_swap\nquit\n' > "$out/bad.txt"
if xvfb-run -a -s '-screen 0 1280x800x24' "$app" --script "$out/bad.txt" 2> "$out/bad.err"; then
  echo "coref_swap without a property word should fail"; exit 1
fi
grep -q "no property word" "$out/bad.err"
echo "coref test: minimal pair and swap drive the app; the importance over a set; screenshots written in English, Korean and presentation mode"
